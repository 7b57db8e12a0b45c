import { request } from 'node:http';
import { TestCluster, eventually, localToken } from '@crs/testing';
import { batchItem, client, individual, type Answer, type Json } from './api-support';

/**
 * Hostile input over real HTTP: absurd nesting, wrong types, impossible dates, odd Unicode, keys
 * aimed at MongoDB or at Object.prototype, a 50 MB body and an oversized batch. Each is refused
 * with a 4xx (or, where the input is merely unusual, stored exactly as sent); no answer is a 5xx,
 * and the ingress stays ready afterwards.
 */
describe('HTTP API under hostile input', () => {
  const cluster = new TestCluster('e2e-api-hostile');
  const log: Answer[] = [];
  const api = client(cluster, log);
  let token: string;

  beforeAll(async () => {
    await cluster.start();
    token = await localToken();
  });

  afterAll(async () => {
    await cluster.stop();
  });

  const post = (path: string, body: unknown) => api.post(path, body, token);
  const get = (path: string) => api.get(path, token);
  const customerOf = (r: Json) => `/api/customers/DEMO/${encodeURIComponent(String(r.customerExtId))}`;
  const rejectedAt = (res: Answer, path: string, code?: string) => {
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual(
      expect.arrayContaining([expect.objectContaining({ path, ...(code ? { code } : {}) })]),
    );
  };

  it('deeply nested arrays and objects are refused as a wrong type, not by exhausting the stack', async () => {
    const depth = 10000;
    const arrays = JSON.stringify(individual()).replace(
      '"firstName":"Ann"',
      `"firstName":${'['.repeat(depth)}${']'.repeat(depth)}`,
    );
    rejectedAt(await post('/core-ws-rest/customer', arrays), 'firstName', 'V001.firstName.INVALID_TYPE');
    const objects = JSON.stringify(individual())
      .replace('"listAddress":', '')
      .replace(
        '"firstName":"Ann"',
        `"firstName":"Ann","listAddress":[${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}]`,
      );
    rejectedAt(
      await post('/core-ws-rest/customer', objects),
      'listAddress[0].a',
      'V001.listAddress.UNKNOWN_FIELD',
    );
    const batch = `{"customers":[${'['.repeat(depth)}${']'.repeat(depth)}]}`;
    const res = await post('/core-ws-rest/validate-batch-customers', batch);
    expect(res.status).toBe(200);
    expect(res.body.results[0]).toMatchObject({
      resultType: 'REQUEST_REJECTED',
      errorCode: 'V001.INVALID_TYPE',
    });
  });

  it('wrong types in every field are refused with that field named', async () => {
    const base = individual({
      birthDate: '1980-01-02',
      isPEP: false,
      initialDepositAmount: 10,
      listAddress: [{ addressType: 'RESIDENTIAL', city: 'Vilnius' }],
      fieldOfActivity: { student: { isStudent: false } },
    });
    const wrong: unknown[] = [123, true, null, {}, [], 'text', 1.5, -1];
    let tried = 0;
    for (const [field, value] of Object.entries(base)) {
      for (const w of wrong) {
        if (
          typeof w === typeof value &&
          Array.isArray(w) === Array.isArray(value) &&
          (w === null) === (value === null)
        )
          continue;
        // A numeric string is a documented form of initialDepositAmount.
        if (field === 'initialDepositAmount' && typeof w === 'number') continue;
        const res = await post('/core-ws-rest/customer', { ...base, [field]: w });
        expect({ field, value: w, status: res.status }).toEqual({ field, value: w, status: 400 });
        expect(JSON.stringify(res.body.errors)).toContain(field);
        tried++;
      }
    }
    expect(tried).toBeGreaterThan(100);
    for (const body of ['[]', '"a string"', '42', 'null', 'true']) {
      const res = await post('/core-ws-rest/customer', body);
      expect(res.status).toBe(400);
      expect(res.body.resultType).toBe('REQUEST_REJECTED');
    }
    const batch = await post('/core-ws-rest/validate-batch-customers', {
      customers: [null, 1, 'x', [], {}, true],
    });
    expect(batch.status).toBe(200);
    expect(batch.body.results.every((r: Json) => r.resultType === 'REQUEST_REJECTED')).toBe(true);
  });

  it.each([
    '2023-02-30',
    '2023-13-01',
    '20230101',
    '2023-1-1',
    '2023-02-29',
    '0000-00-00',
    '2023-01-01T00:00:00Z',
    '',
    ' 2023-01-01',
  ])('the impossible or ill-formed date %p is refused as INVALID_DATE', async (date) => {
    const res = await post('/core-ws-rest/customer', individual({ birthDate: date }));
    rejectedAt(res, 'birthDate', 'V001.birthDate.INVALID_DATE');
    const nested = await post(
      '/core-ws-rest/customer',
      individual({ listBusinessEntityDocument: [{ documentIssueDate: date }] }),
    );
    rejectedAt(
      nested,
      'listBusinessEntityDocument[0].documentIssueDate',
      'V001.listBusinessEntityDocument.documentIssueDate.INVALID_DATE',
    );
  });

  it('numbers beyond their bounds are refused, never coerced', async () => {
    for (const [field, raw] of [
      ['numberOfEmployees', '1e309'],
      ['numberOfEmployees', '-1'],
      ['numberOfEmployees', '1.5'],
      ['companyAssetValue', '1e400'],
      ['numberOfAudits', '99999999999999999999999'],
    ] as const) {
      const text = JSON.stringify({
        ...individual(),
        entityType: 'ORGANIZATION',
        title: 'T',
        firstName: undefined,
        lastName: undefined,
        citizenshipCountry: undefined,
        riskManagementCategory: 'ORG',
      }).replace(/}$/, `,"${field}":${raw}}`);
      const res = await post('/core-ws-rest/customer', text);
      expect({ field, raw, status: res.status }).toEqual({ field, raw, status: 400 });
      expect(JSON.stringify(res.body.errors)).toContain(`"path":"${field}"`);
    }
    rejectedAt(
      await post('/core-ws-rest/customer', individual({ initialDepositAmount: '1e5' })),
      'initialDepositAmount',
    );
  });

  it('odd Unicode is stored exactly as sent; NUL is refused', async () => {
    const names = {
      firstName: 'Zoe\u0308 A\u0301\u0301\u0301nna', // combining marks, stacked
      lastName: 'abc\u202Efed\u202C \u200F\u200E \u{1F600} \u0627\u0644\u0639\u0631\u0628\u064A\u0629', // RTL override, marks, emoji, Arabic
      placeOfBirth: '\uFEFF\u00A0\u2028\u2029 \uFFFF',
    };
    const record = individual(names);
    expect((await post('/core-ws-rest/customer', record)).status).toBe(200);
    await eventually(
      async () => ((await get(customerOf(record))).status === 200 ? true : undefined),
      60000,
      'unicode customer',
    );
    expect((await get(customerOf(record))).body.customer).toMatchObject(names);

    rejectedAt(
      await post('/core-ws-rest/customer', individual({ firstName: 'a\u0000b' })),
      'firstName',
      'V001.firstName.FORBIDDEN_CHARACTER',
    );
    rejectedAt(
      await post('/core-ws-rest/customer', individual({ listAddress: [{ city: '\u0000' }] })),
      'listAddress[0].city',
      'V001.listAddress.city.FORBIDDEN_CHARACTER',
    );
    const nulExtId = individual({ customerExtId: 'ext\u0000id' });
    rejectedAt(
      await post('/core-ws-rest/customer', nulExtId),
      'customerExtId',
      'V001.customerExtId.FORBIDDEN_CHARACTER',
    );
  });

  it('keys aimed at MongoDB ($-prefixed, dotted) are refused and never stored', async () => {
    const cases: [Json, string][] = [
      [individual({ $where: 'sleep(1000)' }), '$where'],
      [individual({ 'a.b': 1 }), '["a.b"]'],
      [individual({ listAddress: [{ $set: { city: 'x' } }] }), 'listAddress[0].$set'],
      [individual({ listAddress: [{ 'city.name': 'x' }] }), 'listAddress[0]["city.name"]'],
      [individual({ fieldOfActivity: { $gt: '' } }), 'fieldOfActivity.$gt'],
    ];
    for (const [record, path] of cases) {
      rejectedAt(await post('/core-ws-rest/customer', record), path);
      expect((await get(customerOf(record))).status).toBe(404);
    }
    // An operator where a string belongs is a wrong type, including in path and query parameters.
    rejectedAt(
      await post('/core-ws-rest/customer', individual({ customerExtId: { $ne: null } })),
      'customerExtId',
    );
    expect((await get('/api/customers/DEMO/%7B%22%24ne%22%3Anull%7D')).status).toBe(404);
    expect([400, 404]).toContain(
      (await get('/api/integration-services/v1/communications-events/x?businessUnit[$ne]=x')).status,
    );
    expect([200, 400]).toContain(
      (await get('/classifier/country?businessUnit=DEMO&businessUnit=OTHER')).status,
    );
  });

  it('__proto__ and constructor keys are refused, never stored, and do not pollute Object.prototype', async () => {
    const record = individual();
    const text = JSON.stringify(record);
    const pollutions = [
      text.replace(/^{/, '{"__proto__":{"lastName":"Polluted","isAdmin":true},'),
      text.replace(/^{/, '{"constructor":{"prototype":{"lastName":"Polluted"}},'),
      text.replace(
        '"citizenshipCountry":"LT"',
        '"citizenshipCountry":"LT","listAddress":[{"__proto__":{"lastName":"Polluted"}}]',
      ),
      text.replace(
        '"citizenshipCountry":"LT"',
        '"citizenshipCountry":"LT","fieldOfActivity":{"constructor":{"prototype":{"lastName":"Polluted"}}}',
      ),
    ];
    const paths = ['__proto__', 'constructor', 'listAddress[0].__proto__', 'fieldOfActivity.constructor'];
    for (const [i, body] of pollutions.entries()) {
      rejectedAt(await post('/core-ws-rest/customer', body), paths[i]!, undefined);
    }
    const batch = await post(
      '/core-ws-rest/batch-customers',
      `{"customers":[${JSON.stringify(batchItem()).replace(/^{/, '{"__proto__":{"lastName":"Polluted"},')}]}`,
    );
    expect(batch.body.results[0]).toMatchObject({
      resultType: 'REQUEST_REJECTED',
      errorCode: 'V001.UNKNOWN_FIELD',
    });
    const simplifiedBody = `{"__proto__":{"firstName":"x"},"communicationNumber":"c","businessUnit":"DEMO"}`;
    expect((await post('/core-ws-rest/simplifiedCustomer', simplifiedBody)).status).toBe(400);
    expect((await get(customerOf(record))).status).toBe(404);

    // Had Object.prototype.lastName been set in the ingress, a record without lastName would now
    // pass the required check; it is still refused.
    const { lastName: _dropped, ...noLastName } = individual();
    rejectedAt(await post('/core-ws-rest/customer', noLastName), 'lastName', 'V001.lastName.REQUIRED');
    // And a normal request behaves normally: accepted and stored without any injected key.
    expect((await post('/core-ws-rest/customer', record)).status).toBe(200);
    await eventually(
      async () => ((await get(customerOf(record))).status === 200 ? true : undefined),
      60000,
      'normal customer',
    );
    const stored = (await get(customerOf(record))).body.customer as Json;
    expect(stored.lastName).toBe('Example');
    expect(Object.keys(stored)).not.toContain('isAdmin');
    expect(Object.keys(stored)).not.toContain('__proto__');
  });

  it('a 50 MB body is refused with 413 and the ingress stays up', async () => {
    const size = 50 * 1024 * 1024;
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const url = new URL('/core-ws-rest/customer', cluster.ingressUrl);
      const req = request(
        url,
        {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'content-length': String(size),
            authorization: `Bearer ${token}`,
          },
        },
        (res) => {
          let body = '';
          res.on('data', (c: Buffer) => (body += c.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      // The server may answer and close before the whole body is sent: that is the point.
      req.on('error', (err: NodeJS.ErrnoException) =>
        err.code === 'EPIPE' || err.code === 'ECONNRESET' ? undefined : reject(err),
      );
      const chunk = Buffer.alloc(1024 * 1024, 'a');
      chunk.write('{"x":"');
      let sent = 0;
      const pump = () => {
        while (sent < size) {
          sent += chunk.length;
          if (!req.write(chunk)) return void req.once('drain', pump);
        }
        req.end();
      };
      pump();
    });
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toMatchObject({ errorCode: 'PAYLOAD_TOO_LARGE' });
    log.push({ status: answer.status, body: answer.body, headers: new Headers() });
    // Also without a content-length (chunked): the limit is counted, not trusted.
    const chunked = await cluster
      .fetch('/core-ws-rest/batch-customers', {
        method: 'POST',
        token,
        body: new ReadableStream({
          start(controller) {
            const mb = new TextEncoder().encode('a'.repeat(1024 * 1024));
            for (let i = 0; i < 12; i++) controller.enqueue(mb);
            controller.close();
          },
        }),
        duplex: 'half',
      } as RequestInit & { duplex: 'half' })
      .catch(() => undefined);
    if (chunked) expect(chunked.status).toBe(413);
    expect((await api.get('/health/ready')).status).toBe(200);
  });

  it('a batch of one more item than allowed (default 1000) gets the spec 400 body and stores nothing', async () => {
    const items = Array.from({ length: 1001 }, () => batchItem());
    const res = await post('/core-ws-rest/batch-customers', { customers: items });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      timestamp: expect.any(String),
      status: 400,
      error: expect.stringMatching(/^BATCH_TOO_LARGE/),
      path: '/core-ws-rest/batch-customers',
    });
    expect((await get(customerOf(items[0]!))).status).toBe(404);
    const full = await post('/core-ws-rest/validate-batch-customers', { customers: items.slice(0, 1000) });
    expect(full.status).toBe(200);
    expect(full.body.results).toHaveLength(1000);
  });

  it('oversized headers, URLs and key names are refused without a 5xx', async () => {
    // Over Node's 16 KiB of request line and headers: refused before any route, in the documented shape
    // (the long fuzz run found an empty 431 that the OpenAPI document did not list).
    for (const [path, init] of [
      ['/classifier/country', { headers: { authorization: `Bearer ${'a'.repeat(20000)}` } }],
      [`/api/customers/DEMO/C-1/personal-data?reason=${'%C3%A0'.repeat(4000)}`, { method: 'DELETE' }],
    ] as const) {
      const huge = await cluster.fetch(path, init);
      expect(huge.status).toBe(431);
      expect(huge.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await huge.json()).toMatchObject({ errorCode: 'REQUEST_HEADERS_TOO_LARGE' });
    }
    const documented = (await (await cluster.fetch('/openapi.json')).json()) as {
      paths: Record<string, Record<string, { responses?: Record<string, unknown> }>>;
    };
    const operations = Object.values(documented.paths).flatMap((item) =>
      Object.values(item).filter((op) => typeof op === 'object' && op !== null && 'responses' in op),
    );
    expect(operations.length).toBeGreaterThan(20);
    for (const op of operations) expect(Object.keys(op.responses!)).toContain('431');
    const longKey = 'k'.repeat(10000);
    const res = await post('/core-ws-rest/customer', individual({ [longKey]: 1 }));
    expect(res.status).toBe(400);
    expect(res.body.errors[0].path.length).toBeLessThan(200);
    const manyKeys = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`k${i}`, i]));
    const many = await post('/core-ws-rest/customer', individual(manyKeys));
    expect(many.status).toBe(400);
    expect(many.body.errorDescription.length).toBeLessThan(5000);
  });

  it('after all of it the ingress is ready and no answer was a 5xx', async () => {
    const ready = await api.get('/health/ready');
    expect(ready.status).toBe(200);
    expect(log.length).toBeGreaterThan(150);
    expect(log.filter((a) => a.status >= 500).map((a) => [a.status, a.body])).toEqual([]);
  });
});
