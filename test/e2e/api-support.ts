import { uniqueId, type TestCluster } from '@crs/testing';

/** Shared builders of the api-*.e2e suites: valid records that individual tests bend one rule at a time. */

export type Json = Record<string, unknown>;

export function individual(extra: Json = {}): Json {
  return {
    communicationNumber: uniqueId('comm'),
    requester: 'e2e-api',
    businessUnit: 'DEMO',
    action: 'CREATE',
    sourceOfRiskLevel: 'IMPORT',
    riskLevel: 'LOW',
    customerStatus: 'ACTIVE',
    riskManagementCategory: 'IND',
    entityType: 'INDIVIDUAL',
    customerExtId: uniqueId('cust'),
    firstName: 'Ann',
    lastName: 'Example',
    citizenshipCountry: 'LT',
    ...extra,
  };
}

export function organization(extra: Json = {}): Json {
  return {
    communicationNumber: uniqueId('comm'),
    requester: 'e2e-api',
    businessUnit: 'DEMO',
    action: 'CREATE',
    sourceOfRiskLevel: 'IMPORT',
    riskLevel: 'MEDIUM',
    customerStatus: 'ACTIVE',
    riskManagementCategory: 'ORG',
    entityType: 'ORGANIZATION',
    customerExtId: uniqueId('org'),
    title: 'Example Trading UAB',
    registrationCountry: 'LT',
    ...extra,
  };
}

/** A batch item: batch items default to IMPORT, so they carry riskLevel and customerStatus. */
export function batchItem(extra: Json = {}): Json {
  const { sourceOfRiskLevel: _omit, ...rest } = individual(extra);
  return 'sourceOfRiskLevel' in extra ? { ...rest, sourceOfRiskLevel: extra.sourceOfRiskLevel } : rest;
}

export function simplified(extra: Json = {}): Json {
  return {
    communicationNumber: uniqueId('comm'),
    requester: 'e2e-api',
    businessUnit: 'DEMO',
    riskManagementCategory: 'IND_OCCASIONAL',
    entityType: 'INDIVIDUAL',
    customerExtId: uniqueId('simple'),
    firstName: 'Sam',
    lastName: 'Simple',
    ...extra,
  };
}

/** Removes keys whose value is undefined (a way to drop a field from a builder's record). */
export function without(record: Json, ...keys: string[]): Json {
  const copy = { ...record };
  for (const k of keys) delete copy[k];
  return copy;
}

export interface Answer {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- response bodies are asserted field by field
  headers: Headers;
}

/** Sends a request and reads the body (JSON when it is JSON); every answer is recorded in `log`. */
export function client(cluster: TestCluster, log: Answer[] = []) {
  const send = async (path: string, init: RequestInit & { token?: string } = {}): Promise<Answer> => {
    const res = await cluster.fetch(path, init);
    const text = await res.text();
    let body: unknown = text;
    if ((res.headers.get('content-type') ?? '').includes('json')) body = JSON.parse(text);
    const answer = { status: res.status, body, headers: res.headers };
    log.push(answer);
    return answer;
  };
  return {
    log,
    send,
    post: (path: string, body: unknown, token?: string) =>
      send(path, {
        method: 'POST',
        body: typeof body === 'string' ? body : JSON.stringify(body),
        ...(token ? { token } : {}),
      }),
    get: (path: string, token?: string) => send(path, token ? { token } : {}),
  };
}
