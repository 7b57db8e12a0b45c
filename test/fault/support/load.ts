import { uniqueId, type TestCluster } from '@crs/testing';
import { ErrorCodes } from '@crs/contracts';
import type { ScreeningProfile } from './screening-fixtures';

export type RequestKind = 'IMPORT' | 'EVALUATE';

/** One communicationNumber and what the ingress answered to each attempt at it. */
export interface RequestRecord {
  comm: string;
  customerExtId: string;
  kind: RequestKind;
  /** The screening the import asks for (initializeScreeningProcesses) and the outcome it must have. */
  screening?: ScreeningProfile;
  statuses: number[];
  accepted: boolean;
  /** 503 answers that carried a Retry-After header. */
  retryAfterSeen: number;
  /** An attempt after a non-200 that was refused as "communication number already used" (a reservation left behind). */
  usedAfterRetry: boolean;
}

export interface LoadOptions {
  /** Requests (distinct communicationNumbers) to send at least. */
  requests: number;
  /** Upper bound when faults are still under way after `requests` (the load must cover every fault). */
  maxRequests: number;
  concurrency: number;
  ratePerSecond: number;
  /** Share of EVALUATE imports (the evaluation service answers them), the rest are IMPORT. */
  evaluateShare: number;
  /**
   * Every `every`-th import asks for screening, alternately with a known-hit name (rotating through
   * `hits`, always an IMPORT: a match of an EVALUATE customer re-evaluates it) and a clean one.
   */
  screening?: { every: number; hits: ScreeningProfile[]; clean: ScreeningProfile[] };
  /** How long a client keeps retrying one request after 503 (honouring Retry-After, at most 2 s). */
  giveUpAfterMs: number;
  /** Resolves when the fault schedule is done; the load keeps going (up to maxRequests) until then. */
  faultsDone: Promise<unknown>;
  onAccepted?: (acceptedSoFar: number) => void;
}

export interface LoadResult {
  records: RequestRecord[];
  /** HTTP requests sent, retries included. */
  httpRequests: number;
  byStatus: Record<string, number>;
}

function body(rec: RequestRecord, i: number): Record<string, unknown> {
  const common = {
    communicationNumber: rec.comm,
    requester: 'fault-suite',
    businessUnit: 'DEMO',
    action: 'CREATE',
    customerStatus: 'ACTIVE',
    customerExtId: rec.customerExtId,
  };
  const level =
    rec.kind === 'IMPORT'
      ? { sourceOfRiskLevel: 'IMPORT', riskLevel: 'LOW' }
      : { sourceOfRiskLevel: 'EVALUATE' };
  const s = rec.screening;
  if (s) {
    return {
      ...common,
      ...level,
      riskManagementCategory: 'IND',
      entityType: 'INDIVIDUAL',
      firstName: s.firstName,
      lastName: s.lastName,
      ...(s.country
        ? { citizenshipCountry: s.country }
        : rec.kind === 'EVALUATE'
          ? { citizenshipCountry: 'LT' }
          : {}),
      initializeScreeningProcesses: s.lists,
    };
  }
  if (rec.kind === 'IMPORT') {
    return { ...common, ...level, entityType: 'ORGANIZATION', title: `Fault Org ${i}` };
  }
  return {
    ...common,
    ...level,
    riskManagementCategory: 'IND',
    entityType: 'INDIVIDUAL',
    firstName: 'Ann',
    lastName: `Fault ${i}`,
    citizenshipCountry: 'LT',
  };
}

/** Which screening request i makes, if any (see LoadOptions.screening). */
function screeningOf(i: number, opts: LoadOptions): ScreeningProfile | undefined {
  const sc = opts.screening;
  if (!sc || sc.every < 1 || i % sc.every !== sc.every - 1) return undefined;
  const n = Math.floor(i / sc.every);
  return n % 2 === 0 ? sc.hits[(n / 2) % sc.hits.length] : sc.clean[((n - 1) / 2) % sc.clean.length];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A paced stream of new-customer imports from a few concurrent clients that behave as a careful
 * upstream system does: a 503 is retried with the same body (same communicationNumber) after
 * Retry-After, so a command that reached Kafka although its ack was lost must be recognised downstream.
 */
export async function runLoad(
  cluster: TestCluster,
  token: string,
  prefix: string,
  opts: LoadOptions,
): Promise<LoadResult> {
  const records: RequestRecord[] = [];
  const byStatus: Record<string, number> = {};
  let httpRequests = 0;
  let accepted = 0;
  let faultsFinished = false;
  void opts.faultsDone.finally(() => {
    faultsFinished = true;
  });
  const started = Date.now();
  let next = 0;

  const claim = (): number | undefined => {
    const i = next;
    if (i >= opts.maxRequests) return undefined;
    if (i >= opts.requests && faultsFinished) return undefined;
    next++;
    return i;
  };

  const send = async (rec: RequestRecord, i: number) => {
    const deadline = Date.now() + opts.giveUpAfterMs;
    for (;;) {
      let status = 0;
      let retryAfter: string | null = null;
      let errorCode: string | undefined;
      try {
        const res = await cluster.fetch('/core-ws-rest/customer', {
          method: 'POST',
          token,
          body: JSON.stringify(body(rec, i)),
        });
        status = res.status;
        retryAfter = res.headers.get('retry-after');
        const json = (await res.json().catch(() => ({}))) as { errorCode?: string };
        errorCode = json.errorCode;
      } catch {
        status = 0;
      }
      httpRequests++;
      byStatus[status] = (byStatus[status] ?? 0) + 1;
      rec.statuses.push(status);
      if (status === 200) {
        rec.accepted = true;
        accepted++;
        opts.onAccepted?.(accepted);
        return;
      }
      if (status === 503 && retryAfter) rec.retryAfterSeen++;
      if (status === 400 && rec.statuses.length > 1 && errorCode === ErrorCodes.CommunicationNumberUsed) {
        rec.usedAfterRetry = true;
        return;
      }
      // Anything but "unavailable" is final for a client; 0 (no answer) is retried like 503.
      if (status !== 503 && status !== 0) return;
      if (Date.now() > deadline) return;
      await sleep(Math.min(2000, Math.max(100, Number(retryAfter ?? 1) * 1000)));
    }
  };

  const worker = async () => {
    for (;;) {
      const i = claim();
      if (i === undefined) return;
      const due = started + (i * 1000) / opts.ratePerSecond;
      if (due > Date.now()) await sleep(due - Date.now());
      const comm = uniqueId(`${prefix}${i}`);
      const screening = screeningOf(i, opts);
      const rec: RequestRecord = {
        comm,
        customerExtId: `fault-${comm}`,
        kind: !screening?.hit && (i * 7919) % 100 < opts.evaluateShare * 100 ? 'EVALUATE' : 'IMPORT',
        ...(screening ? { screening } : {}),
        statuses: [],
        accepted: false,
        retryAfterSeen: 0,
        usedAfterRetry: false,
      };
      records.push(rec);
      await send(rec, i);
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency }, worker));
  return { records, httpRequests, byStatus };
}
