import { TestCluster, eventually, localToken, uniqueId } from '@crs/testing';
import {
  batchItem,
  client,
  individual,
  organization,
  simplified,
  without,
  type Answer,
  type Json,
} from './api-support';

/**
 * Every endpoint of the ingress, success and failure, over real HTTP against a running system:
 * the conditional rules of interface 2.1, the limits of section 8 at their boundary, the O001 rule
 * across endpoints, partial batch acceptance and the exact bodies of section 7 (docs/api.md,
 * docs/error-codes.md).
 */
const MAX_BATCH = 3;
const MAX_BODY = 256 * 1024;

describe('HTTP API endpoints', () => {
  const cluster = new TestCluster('e2e-api');
  const api = client(cluster);
  let token: string;

  beforeAll(async () => {
    cluster.setEnv({ MAX_BATCH_SIZE: String(MAX_BATCH), MAX_BODY_BYTES: String(MAX_BODY) });
    await cluster.start();
    token = await localToken();
  });

  afterAll(async () => {
    await cluster.stop();
  });

  const post = (path: string, body: unknown) => api.post(path, body, token);
  const get = (path: string) => api.get(path, token);
  const customerOf = (r: Json) => `/api/customers/DEMO/${encodeURIComponent(String(r.customerExtId))}`;
  const visible = (r: Json) =>
    eventually(
      async () => ((await get(customerOf(r))).status === 200 ? true : undefined),
      60000,
      `customer ${String(r.customerExtId)}`,
    );

  function expectRejected(res: Answer, path: string, code: string) {
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ resultType: 'REQUEST_REJECTED' });
    expect(res.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ path, code })]));
    // Messages name the field, never the submitted value.
    expect(res.body.errorDescription).toContain(path);
  }

  describe('POST /core-ws-rest/customer', () => {
    it('accepts a record with 200 REQUEST_ACCEPTED and makes it readable by id and by communication', async () => {
      const record = individual();
      const res = await post('/core-ws-rest/customer', record);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        resultType: 'REQUEST_ACCEPTED',
        communicationNumber: record.communicationNumber,
        customerExtId: record.customerExtId,
        businessUnit: 'DEMO',
        errorCode: null,
        errorDescription: null,
      });
      await visible(record);
      const view = await get(customerOf(record));
      expect(view.body).toMatchObject({
        businessUnit: 'DEMO',
        customerExtId: record.customerExtId,
        entityType: 'INDIVIDUAL',
        customerStatus: 'ACTIVE',
        customer: { firstName: 'Ann', lastName: 'Example', communicationNumber: record.communicationNumber },
      });
      const events = await get(
        `/api/integration-services/v1/communications-events/${String(record.communicationNumber)}`,
      );
      expect(events.status).toBe(200);
      expect(events.body.events.length).toBeGreaterThan(0);
      expect(events.body.errors).toEqual([]);
    });

    it.each<[string, Json, string, string]>([
      [
        'INDIVIDUAL without firstName',
        without(individual(), 'firstName'),
        'firstName',
        'V001.firstName.REQUIRED',
      ],
      [
        'INDIVIDUAL without lastName',
        without(individual(), 'lastName'),
        'lastName',
        'V001.lastName.REQUIRED',
      ],
      ['ORGANIZATION without title', without(organization(), 'title'), 'title', 'V001.title.REQUIRED'],
      [
        'ORGANIZATION with firstName',
        organization({ firstName: 'Ann' }),
        'firstName',
        'V001.firstName.NOT_ALLOWED_FOR_ORGANIZATION',
      ],
      [
        'ORGANIZATION with birthDate',
        organization({ birthDate: '1980-01-01' }),
        'birthDate',
        'V001.birthDate.NOT_ALLOWED_FOR_ORGANIZATION',
      ],
      [
        'INDIVIDUAL with title',
        individual({ title: 'Corp' }),
        'title',
        'V001.title.NOT_ALLOWED_FOR_INDIVIDUAL',
      ],
      [
        'INDIVIDUAL with numberOfEmployees',
        individual({ numberOfEmployees: 5 }),
        'numberOfEmployees',
        'V001.numberOfEmployees.NOT_ALLOWED_FOR_INDIVIDUAL',
      ],
      [
        'related ORGANIZATION with firstName',
        individual({
          listRelatedEntity: [
            { entityType: 'INDIVIDUAL', firstName: 'A', lastName: 'B' },
            { entityType: 'ORGANIZATION', title: 'T', firstName: 'X' },
          ],
        }),
        'listRelatedEntity[1].firstName',
        'V001.listRelatedEntity.firstName.NOT_ALLOWED_FOR_ORGANIZATION',
      ],
      [
        'related INDIVIDUAL without lastName',
        individual({ listRelatedEntity: [{ entityType: 'INDIVIDUAL', firstName: 'A' }] }),
        'listRelatedEntity[0].lastName',
        'V001.listRelatedEntity.lastName.REQUIRED',
      ],
      [
        'closingDate while ACTIVE',
        individual({ closingDate: '2024-01-01' }),
        'closingDate',
        'V001.closingDate.NOT_ALLOWED_UNLESS_CLOSED',
      ],
      [
        'CLOSED without closingDate',
        individual({ customerStatus: 'CLOSED' }),
        'closingDate',
        'V001.closingDate.REQUIRED',
      ],
      [
        'IMPORT without riskLevel',
        without(individual(), 'riskLevel'),
        'riskLevel',
        'V001.riskLevel.REQUIRED',
      ],
      [
        'IMPORT without customerStatus',
        without(individual(), 'customerStatus'),
        'customerStatus',
        'V001.customerStatus.REQUIRED',
      ],
      [
        'EVALUATE with riskLevel',
        individual({ sourceOfRiskLevel: 'EVALUATE' }),
        'riskLevel',
        'V001.riskLevel.NOT_ALLOWED_WITH_EVALUATE',
      ],
      [
        'an unknown riskLevel',
        individual({ riskLevel: 'SEVERE' }),
        'riskLevel',
        'V001.riskLevel.INVALID_VALUE',
      ],
      ['an unknown field', individual({ secretField: 'x' }), 'secretField', 'V001.UNKNOWN_FIELD'],
      [
        'an unknown nested field',
        individual({ listAddress: [{ addressType: 'RESIDENTIAL', floor: 3 }] }),
        'listAddress[0].floor',
        'V001.listAddress.UNKNOWN_FIELD',
      ],
    ])('rejects %s with the field path', async (_name, record, path, code) => {
      const res = await post('/core-ws-rest/customer', record);
      expectRejected(res, path, code);
      expect(res.body.errorCode).toBe(code);
      expect(res.body).toMatchObject({
        communicationNumber: record.communicationNumber,
        customerExtId: record.customerExtId,
        businessUnit: 'DEMO',
      });
    });

    it.each<[string, Json]>([
      ['ORGANIZATION with title', organization()],
      ['CLOSED with closingDate', individual({ customerStatus: 'CLOSED', closingDate: '2024-05-31' })],
      [
        'EVALUATE without riskLevel (minimal form)',
        without(individual({ sourceOfRiskLevel: 'EVALUATE' }), 'riskLevel', 'customerStatus'),
      ],
      [
        'EVALUATE with screening',
        without(
          individual({ sourceOfRiskLevel: 'EVALUATE', initializeScreeningProcesses: ['SANCTIONS', 'PEP'] }),
          'riskLevel',
        ),
      ],
    ])('accepts %s', async (_name, record) => {
      const res = await post('/core-ws-rest/customer', record);
      expect(res.status).toBe(200);
      expect(res.body.resultType).toBe('REQUEST_ACCEPTED');
    });

    it('rejects unknown fields without storing anything and leaves the communicationNumber free', async () => {
      const record = individual({
        listContact: [{ contactType: 'EMAIL', contactDetails: 'a@example.com', verified: true }],
      });
      const res = await post('/core-ws-rest/customer', record);
      expectRejected(res, 'listContact[0].verified', 'V001.listContact.UNKNOWN_FIELD');
      // The same communicationNumber is still free: the rejected request reserved nothing.
      const clean = { ...record, listContact: [{ contactType: 'EMAIL', contactDetails: 'a@example.com' }] };
      expect((await post('/core-ws-rest/customer', clean)).status).toBe(200);
      await visible(record);
      expect((await get(customerOf(record))).body.customer.listContact).toEqual([
        { contactType: 'EMAIL', contactDetails: 'a@example.com' },
      ]);
    });
  });

  describe('limits of interface section 8 at their boundary', () => {
    const both = [
      'activityDescription',
      'activityInRestrictedRegionDescription',
      'regionOfActivityDescription',
      'incomeSourceDescription',
    ];
    const orgOnly = [
      'licenseDescription',
      'thirdPartyServicesUsedDescription',
      'organizationalStructureDescription',
    ];
    const cases: [string, number, (extra: Json) => Json][] = [
      ['communicationNumber', 255, individual],
      ['requester', 100, individual],
      ['nationalCode', 100, individual],
      ['initialDepositSource', 200, individual],
      ['initialDepositBank', 200, individual],
      ['initialDepositAccount', 200, individual],
      ...both.map((f): [string, number, (extra: Json) => Json] => [f, 32768, individual]),
      ...orgOnly.map((f): [string, number, (extra: Json) => Json] => [f, 32768, organization]),
    ];

    it.each(cases)('%s: %i characters pass, one more fails with TOO_LONG', async (field, max, build) => {
      // A unique prefix keeps communicationNumber values unique across runs.
      const value = (n: number) => (uniqueId('x') + 'y'.repeat(n)).slice(0, n);
      const ok = build({ [field]: value(max) });
      const okRes = await post('/core-ws-rest/customer', ok);
      expect(okRes.status).toBe(200);
      const tooLong = build({ [field]: value(max + 1) });
      expectRejected(await post('/core-ws-rest/customer', tooLong), field, `V001.${field}.TOO_LONG`);
    });

    it('applies the same limits to batch items and simplified customers', async () => {
      const batch = await post('/core-ws-rest/validate-batch-customers', {
        customers: [batchItem({ requester: 'r'.repeat(100) }), batchItem({ requester: 'r'.repeat(101) })],
      });
      expect(batch.status).toBe(200);
      expect(batch.body.results.map((r: Json) => r.resultType)).toEqual([
        'REQUEST_ACCEPTED',
        'REQUEST_REJECTED',
      ]);
      expect(batch.body.results[1].errorCode).toBe('V001.requester.TOO_LONG');
      const s = await post(
        '/core-ws-rest/simplifiedCustomer',
        simplified({ communicationNumber: 'c'.repeat(256) }),
      );
      expect(s.status).toBe(400);
      expect(s.body).toEqual({
        resultType: 'REQUEST_REJECTED',
        errorCode: 'V001.communicationNumber.TOO_LONG',
        errorDescription: expect.stringContaining('communicationNumber'),
      });
    });
  });

  describe('classifier-backed fields', () => {
    it.each<[string, Json, string, string]>([
      [
        'an unknown addressType deep in a related entity',
        individual({
          listRelatedEntity: [
            { entityType: 'INDIVIDUAL', firstName: 'A', lastName: 'B' },
            {
              entityType: 'ORGANIZATION',
              title: 'T',
              listAddress: [{ addressType: 'NO_SUCH_TYPE', city: 'Vilnius' }],
            },
          ],
        }),
        'listRelatedEntity[1].listAddress[0].addressType',
        'K003.listRelatedEntity.listAddress.addressType.UNKNOWN_CODE',
      ],
      [
        'an unknown country',
        individual({ citizenshipCountry: 'QQ' }),
        'citizenshipCountry',
        'K001.citizenshipCountry.UNKNOWN_CODE',
      ],
      [
        'an unknown currency',
        individual({ initialDepositCurrency: 'QQQ' }),
        'initialDepositCurrency',
        'K002.initialDepositCurrency.UNKNOWN_CODE',
      ],
      [
        'an unknown paymentPurposeType',
        individual({
          listPaymentPurpose: [
            { paymentPurposeType: 'SALARY', turnoverDirection: 'IN' },
            { paymentPurposeType: 'BRIBES', turnoverDirection: 'OUT' },
          ],
        }),
        'listPaymentPurpose[1].paymentPurposeType',
        'K004.listPaymentPurpose.paymentPurposeType.UNKNOWN_CODE',
      ],
      [
        'an unknown sourceOfWealth',
        individual({ listSourceOfWealth: [{ code: '999', amount: 1 }] }),
        'listSourceOfWealth[0].code',
        'K005.listSourceOfWealth.code.UNKNOWN_CODE',
      ],
      [
        'an unknown riskManagementCategory',
        individual({ riskManagementCategory: 'VIP' }),
        'riskManagementCategory',
        'K006.riskManagementCategory.UNKNOWN_CODE',
      ],
    ])('rejects %s for DEMO with the code naming its path', async (_name, record, path, code) => {
      const res = await post('/core-ws-rest/customer', record);
      expectRejected(res, path, code);
      expect(res.body.errorCode).toBe(code);
      expect((await get(customerOf(record))).status).toBe(404);
    });

    it('reports a classifier rejection in a batch item and on simplifiedCustomer', async () => {
      const batch = await post('/core-ws-rest/batch-customers', {
        customers: [batchItem({ listAddress: [{ addressType: 'RESIDENTIAL' }, { addressType: 'CASTLE' }] })],
      });
      expect(batch.body.results[0]).toMatchObject({
        resultType: 'REQUEST_REJECTED',
        errorCode: 'K003.listAddress.addressType.UNKNOWN_CODE',
      });
      expect(batch.body.results[0].errorDescription).toContain('listAddress[1].addressType');
      const s = await post('/core-ws-rest/simplifiedCustomer', simplified({ riskManagementCategory: 'VIP' }));
      expect(s.status).toBe(400);
      expect(s.body).toMatchObject({
        resultType: 'REQUEST_REJECTED',
        errorCode: 'K006.riskManagementCategory.UNKNOWN_CODE',
      });
    });
  });

  describe('O001: a communicationNumber is used once per business unit, across endpoints', () => {
    it('single, then batch: the batch item is rejected, the batch answers 200', async () => {
      const first = individual();
      expect((await post('/core-ws-rest/customer', first)).status).toBe(200);
      const batch = await post('/core-ws-rest/batch-customers', {
        customers: [batchItem({ communicationNumber: first.communicationNumber })],
      });
      expect(batch.status).toBe(200);
      expect(batch.body.results[0]).toMatchObject({
        resultType: 'REQUEST_REJECTED',
        errorCode: 'O001',
        communicationNumber: first.communicationNumber,
      });
    });

    it('batch, then simplified: 400 O001 with its description', async () => {
      const item = batchItem();
      expect(
        (await post('/core-ws-rest/batch-customers', { customers: [item] })).body.results[0].resultType,
      ).toBe('REQUEST_ACCEPTED');
      const res = await post(
        '/core-ws-rest/simplifiedCustomer',
        simplified({ communicationNumber: item.communicationNumber }),
      );
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        resultType: 'REQUEST_REJECTED',
        errorCode: 'O001',
        errorDescription: expect.stringMatching(/already used/),
      });
    });

    it('simplified, then single: 400 O001', async () => {
      const s = simplified();
      expect((await post('/core-ws-rest/simplifiedCustomer', s)).status).toBe(200);
      const res = await post(
        '/core-ws-rest/customer',
        individual({ communicationNumber: s.communicationNumber }),
      );
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ resultType: 'REQUEST_REJECTED', errorCode: 'O001' });
    });

    it('twice within one batch: the first is accepted, the second rejected', async () => {
      const comm = uniqueId('comm');
      const res = await post('/core-ws-rest/batch-customers', {
        customers: [batchItem({ communicationNumber: comm }), batchItem({ communicationNumber: comm })],
      });
      expect(res.body.results.map((r: Json) => [r.resultType, r.errorCode])).toEqual([
        ['REQUEST_ACCEPTED', null],
        ['REQUEST_REJECTED', 'O001'],
      ]);
    });

    it('validate-batch-customers reserves nothing but reports numbers already used', async () => {
      const item = batchItem();
      const validated = await post('/core-ws-rest/validate-batch-customers', {
        customers: [item, batchItem({ communicationNumber: item.communicationNumber })],
      });
      // Within one validation the duplicate is still reported, as batch-customers would.
      expect(validated.body.results.map((r: Json) => r.errorCode)).toEqual([null, 'O001']);
      expect(
        (await post('/core-ws-rest/customer', individual({ communicationNumber: item.communicationNumber })))
          .status,
      ).toBe(200);
      const again = await post('/core-ws-rest/validate-batch-customers', { customers: [item] });
      expect(again.body.results[0]).toMatchObject({ resultType: 'REQUEST_REJECTED', errorCode: 'O001' });
    });
  });

  describe('batch endpoints', () => {
    it('accept valid items and reject invalid ones individually, in order, each with its own timeElapsedMs', async () => {
      const items = [
        batchItem(),
        without(batchItem(), 'lastName'),
        without(organization(), 'sourceOfRiskLevel'),
      ];
      const res = await post('/core-ws-rest/batch-customers', { customers: items });
      expect(res.status).toBe(200);
      // Rule 2 (docs/api.md): per-item problems live in the items; the top level stays null.
      expect(res.body).toMatchObject({
        errorCode: null,
        errorDescription: null,
        timeElapsedMs: expect.any(Number),
      });
      const results = res.body.results as Json[];
      expect(results).toHaveLength(3);
      results.forEach((r, i) => {
        expect(r).toMatchObject({
          businessUnit: 'DEMO',
          communicationNumber: items[i]!.communicationNumber,
          customerExtId: items[i]!.customerExtId,
        });
        expect(Number.isInteger(r.timeElapsedMs) && (r.timeElapsedMs as number) >= 0).toBe(true);
        expect(Object.keys(r).sort()).toEqual([
          'businessUnit',
          'communicationNumber',
          'customerExtId',
          'errorCode',
          'errorDescription',
          'resultType',
          'timeElapsedMs',
        ]);
      });
      expect(results.map((r) => r.resultType)).toEqual([
        'REQUEST_ACCEPTED',
        'REQUEST_REJECTED',
        'REQUEST_ACCEPTED',
      ]);
      expect(results[1]).toMatchObject({
        errorCode: 'V001.lastName.REQUIRED',
        errorDescription: expect.stringContaining('lastName'),
      });
      expect(results[0]).toMatchObject({ errorCode: null, errorDescription: null });
      await visible(items[0]!);
      await visible(items[2]!);
      expect((await get(customerOf(items[1]!))).status).toBe(404);
    });

    it('an all-valid batch has null top-level errorCode and errorDescription', async () => {
      const res = await post('/core-ws-rest/batch-customers', { customers: [batchItem()] });
      expect(res.body).toMatchObject({
        errorCode: null,
        errorDescription: null,
        results: [{ resultType: 'REQUEST_ACCEPTED' }],
      });
    });

    it('validate-batch-customers saves nothing: no customer appears and the communicationNumber stays free', async () => {
      const items = [batchItem(), batchItem()];
      const res = await post('/core-ws-rest/validate-batch-customers', { customers: items });
      expect(res.status).toBe(200);
      expect(res.body.results.map((r: Json) => r.resultType)).toEqual([
        'REQUEST_ACCEPTED',
        'REQUEST_ACCEPTED',
      ]);
      // A later import through the same pipeline is visible; the validated ones never were sent.
      const sentinel = individual();
      expect((await post('/core-ws-rest/customer', sentinel)).status).toBe(200);
      await visible(sentinel);
      for (const item of items) expect((await get(customerOf(item))).status).toBe(404);
      for (const item of items) {
        const events = await get(
          `/api/integration-services/v1/communications-events/${String(item.communicationNumber)}`,
        );
        expect(events.status).toBe(404);
      }
      const reused = await post('/core-ws-rest/batch-customers', { customers: items });
      expect(reused.body.results.map((r: Json) => r.resultType)).toEqual([
        'REQUEST_ACCEPTED',
        'REQUEST_ACCEPTED',
      ]);
    });

    it.each(['/core-ws-rest/validate-batch-customers', '/core-ws-rest/batch-customers'])(
      '%s never evaluates or screens: EVALUATE or initializeScreeningProcesses reject the item',
      async (path) => {
        const res = await post(path, {
          customers: [
            batchItem({ sourceOfRiskLevel: 'EVALUATE' }),
            batchItem({ initializeScreeningProcesses: ['SANCTIONS'] }),
            batchItem({ sourceOfRiskLevel: 'IMPORT' }),
          ],
        });
        expect(res.status).toBe(200);
        const [evaluate, screen, ok] = res.body.results as Json[];
        expect(evaluate).toMatchObject({
          resultType: 'REQUEST_REJECTED',
          errorDescription: expect.stringContaining('sourceOfRiskLevel'),
        });
        expect(String(evaluate!.errorCode)).toMatch(/^V001\./);
        expect(screen).toMatchObject({
          resultType: 'REQUEST_REJECTED',
          errorCode: 'V001.initializeScreeningProcesses.NOT_ALLOWED_IN_BATCH',
        });
        expect(ok).toMatchObject({ resultType: 'REQUEST_ACCEPTED' });
      },
    );

    it.each(['/core-ws-rest/validate-batch-customers', '/core-ws-rest/batch-customers'])(
      '%s takes MAX_BATCH_SIZE items and answers one more with the spec 400 body (BATCH_TOO_LARGE)',
      async (path) => {
        const full = await post(path, { customers: Array.from({ length: MAX_BATCH }, () => batchItem()) });
        expect(full.status).toBe(200);
        expect(full.body.results).toHaveLength(MAX_BATCH);
        const over = Array.from({ length: MAX_BATCH + 1 }, () => batchItem());
        const res = await post(path, { customers: over });
        expect(res.status).toBe(400);
        expect(res.body).toEqual({
          timestamp: expect.any(String),
          status: 400,
          error: expect.stringMatching(/^BATCH_TOO_LARGE/),
          path,
        });
        expect(Number.isNaN(Date.parse(res.body.timestamp))).toBe(false);
        if (path.endsWith('/batch-customers'))
          for (const item of over) expect((await get(customerOf(item))).status).toBe(404);
      },
    );

    it.each([
      ['not an object with customers', { items: [] }],
      ['customers not an array', { customers: {} }],
      ['an extra top-level key', { customers: [], extra: 1 }],
    ])('a body that is %s gets the spec 400 body', async (_name, body) => {
      const path = '/core-ws-rest/batch-customers';
      const res = await post(path, body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        timestamp: expect.any(String),
        status: 400,
        error: expect.any(String),
        path,
      });
    });

    it('rejects an item for a business unit the token does not cover, and only that item', async () => {
      const res = await post('/core-ws-rest/validate-batch-customers', {
        customers: [batchItem({ businessUnit: 'ELSEWHERE' }), batchItem()],
      });
      expect(res.status).toBe(200);
      expect(res.body.results.map((r: Json) => [r.resultType, r.errorCode])).toEqual([
        ['REQUEST_REJECTED', 'AUTH_FORBIDDEN_BUSINESS_UNIT'],
        ['REQUEST_ACCEPTED', null],
      ]);
    });
  });

  describe('POST /core-ws-rest/simplifiedCustomer', () => {
    it('accepts an IND_OCCASIONAL individual and an organization', async () => {
      const person = simplified();
      const res = await post('/core-ws-rest/simplifiedCustomer', person);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ resultType: 'REQUEST_ACCEPTED', errorCode: null, errorDescription: null });
      const org = simplified({
        entityType: 'ORGANIZATION',
        riskManagementCategory: 'ORG_OCCASIONAL',
        title: 'Shop',
        firstName: undefined,
        lastName: undefined,
      });
      expect((await post('/core-ws-rest/simplifiedCustomer', JSON.parse(JSON.stringify(org)))).status).toBe(
        200,
      );
      await visible(person);
      expect((await get(customerOf(person))).body).toMatchObject({
        simplified: true,
        customer: { firstName: 'Sam' },
      });
    });

    it.each<[string, Json, string]>([
      [
        'a field outside the simplified record',
        simplified({ birthDate: '1990-01-01' }),
        'V001.UNKNOWN_FIELD',
      ],
      [
        'no title for an ORGANIZATION',
        without(simplified({ entityType: 'ORGANIZATION' }), 'firstName', 'lastName'),
        'V001.title.REQUIRED',
      ],
      [
        'no riskManagementCategory',
        without(simplified(), 'riskManagementCategory'),
        'V001.riskManagementCategory.REQUIRED',
      ],
    ])('rejects %s with 400 REQUEST_REJECTED', async (_name, record, code) => {
      const res = await post('/core-ws-rest/simplifiedCustomer', record);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        resultType: 'REQUEST_REJECTED',
        errorCode: code,
        errorDescription: expect.stringMatching(/^Validation failed: /),
      });
    });
  });

  describe('transport-level refusals', () => {
    const writes = [
      '/core-ws-rest/customer',
      '/core-ws-rest/validate-batch-customers',
      '/core-ws-rest/batch-customers',
      '/core-ws-rest/simplifiedCustomer',
    ];

    it.each(writes)('%s: a body over MAX_BODY_BYTES gets 413 PAYLOAD_TOO_LARGE', async (path) => {
      const res = await post(path, individual({ activityDescription: 'a'.repeat(MAX_BODY + 1) }));
      expect(res.status).toBe(413);
      expect(res.body).toEqual({ errorCode: 'PAYLOAD_TOO_LARGE', errorDescription: expect.any(String) });
    });

    it.each(writes)(
      '%s: a body that is not application/json gets 415 UNSUPPORTED_MEDIA_TYPE',
      async (path) => {
        for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
          const res = await api.send(path, {
            method: 'POST',
            token,
            body: JSON.stringify(individual()),
            headers: { 'content-type': type },
          });
          expect(res.status).toBe(415);
          expect(res.body).toEqual({
            errorCode: 'UNSUPPORTED_MEDIA_TYPE',
            errorDescription: expect.any(String),
          });
        }
      },
    );

    it('malformed JSON gets 400 in the shape of each endpoint', async () => {
      const bad = '{"communicationNumber": "x",';
      const single = await post('/core-ws-rest/customer', bad);
      expect(single.status).toBe(400);
      expect(single.body).toEqual({
        resultType: 'REQUEST_REJECTED',
        businessUnit: null,
        communicationNumber: null,
        customerExtId: null,
        errorCode: 'MALFORMED_JSON',
        errorDescription: expect.any(String),
      });
      for (const path of ['/core-ws-rest/validate-batch-customers', '/core-ws-rest/batch-customers']) {
        const res = await post(path, bad);
        expect(res.status).toBe(400);
        expect(res.body).toEqual({
          timestamp: expect.any(String),
          status: 400,
          error: expect.stringMatching(/^MALFORMED_JSON/),
          path,
        });
      }
      const s = await post('/core-ws-rest/simplifiedCustomer', bad);
      expect(s.status).toBe(400);
      expect(s.body).toEqual({
        resultType: 'REQUEST_REJECTED',
        errorCode: 'MALFORMED_JSON',
        errorDescription: expect.any(String),
      });
    });
  });

  describe('404 bodies of interface section 7', () => {
    it('an unknown path under validate-batch-customers: errorCode "404", NotFound', async () => {
      const res = await post('/core-ws-rest/validate-batch-customers/unknown', { customers: [] });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({
        errorCode: '404',
        errorDescription: 'NotFound',
        timeElapsedMs: expect.any(Number),
      });
    });

    it('an unknown path under batch-customers: errorCode "404", Not Found', async () => {
      const res = await post('/core-ws-rest/batch-customers/unknown/deeper', { customers: [] });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({
        errorCode: '404',
        errorDescription: 'Not Found',
        timeElapsedMs: expect.any(Number),
      });
    });

    it('an unknown path under simplifiedCustomer: { timestamp, status 404, error, path }', async () => {
      const res = await post('/core-ws-rest/simplifiedCustomer/unknown', simplified());
      expect(res.status).toBe(404);
      expect(res.body).toEqual({
        timestamp: expect.any(String),
        status: 404,
        error: 'Not Found',
        path: '/core-ws-rest/simplifiedCustomer/unknown',
      });
    });

    describe('a business unit this installation does not know (no classifiers)', () => {
      const NOWHERE = 'NOWHERE';
      let both: string;
      beforeAll(async () => {
        both = await localToken({ businessUnits: ['DEMO', NOWHERE] });
      });

      it.each([
        ['/core-ws-rest/validate-batch-customers', 'NotFound'],
        ['/core-ws-rest/batch-customers', 'Not Found'],
      ])('%s: a batch only for it gets the section 7 404 body (%s)', async (path, description) => {
        const res = await api.post(
          path,
          { customers: [batchItem({ businessUnit: NOWHERE }), batchItem({ businessUnit: NOWHERE })] },
          both,
        );
        expect(res.status).toBe(404);
        expect(res.body).toEqual({
          errorCode: '404',
          errorDescription: description,
          timeElapsedMs: expect.any(Number),
        });
      });

      it('a mixed batch accepts the known business unit and rejects the unknown one per item (NOT_FOUND)', async () => {
        const known = batchItem();
        const unknown = batchItem({ businessUnit: NOWHERE });
        const res = await api.post(
          '/core-ws-rest/validate-batch-customers',
          { customers: [known, unknown] },
          both,
        );
        expect(res.status).toBe(200);
        expect(res.body.results).toEqual([
          expect.objectContaining({
            communicationNumber: known.communicationNumber,
            resultType: 'REQUEST_ACCEPTED',
            errorCode: null,
          }),
          expect.objectContaining({
            communicationNumber: unknown.communicationNumber,
            resultType: 'REQUEST_REJECTED',
            errorCode: 'NOT_FOUND',
          }),
        ]);
      });

      it('simplifiedCustomer: the section 7 404 body', async () => {
        const res = await api.post(
          '/core-ws-rest/simplifiedCustomer',
          simplified({ businessUnit: NOWHERE }),
          both,
        );
        expect(res.status).toBe(404);
        expect(res.body).toEqual({
          timestamp: expect.any(String),
          status: 404,
          error: 'Not Found',
          path: '/core-ws-rest/simplifiedCustomer',
        });
      });
    });

    it('GET on a batch endpoint (wrong method) is its 404 too', async () => {
      const res = await get('/core-ws-rest/batch-customers');
      expect(res.status).toBe(404);
      expect(res.body).toEqual({
        errorCode: '404',
        errorDescription: 'Not Found',
        timeElapsedMs: expect.any(Number),
      });
    });

    it('other unknown resources get the ErrorBody NOT_FOUND', async () => {
      for (const path of [
        '/core-ws-rest/unknown',
        `/api/customers/DEMO/${uniqueId('nobody')}`,
        `/api/integration-services/v1/communications-events/${uniqueId('never')}`,
      ]) {
        const res = await get(path);
        expect(res.status).toBe(404);
        expect(res.body).toEqual({ errorCode: 'NOT_FOUND', errorDescription: expect.any(String) });
      }
    });
  });

  describe('GET /classifier/{name}', () => {
    // Interface 2.4: title only for paymentPurposeType; every other classifier carries description.
    const titled = ['paymentPurposeType'];
    const described = [
      'accountType',
      'addressType',
      'sourceOfWealth',
      'riskManagementCategory',
      'currency',
      'country',
    ];

    it.each([...titled, ...described])('%s returns the DEMO entries, ordered by code', async (name) => {
      const res = await get(`/classifier/${name}`);
      expect(res.status).toBe(200);
      const entries = res.body as Json[];
      expect(entries.length).toBeGreaterThan(0);
      const text = titled.includes(name) ? 'title' : 'description';
      for (const e of entries) {
        expect(Object.keys(e).sort()).toEqual(['businessUnit', 'code', text].sort());
        expect(e.businessUnit).toBe('DEMO');
        expect(typeof e.code === 'string' && typeof e[text] === 'string').toBe(true);
      }
      const codes = entries.map((e) => String(e.code));
      expect(codes).toEqual([...codes].sort());
      if (name === 'sourceOfWealth') for (const c of codes) expect(c).toMatch(/^[0-9]+$/);
      if (name === 'country') expect(codes).toContain('LT');
      if (name === 'currency') expect(codes).toContain('EUR');
      // Same answer with the business unit named explicitly.
      expect((await get(`/classifier/${name}?businessUnit=DEMO`)).body).toEqual(entries);
    });

    it('an unknown classifier is 404, another business unit is 403, an unnamed one with a multi-unit token is 400', async () => {
      expect((await get('/classifier/favouriteColour')).status).toBe(404);
      const other = await get('/classifier/country?businessUnit=ELSEWHERE');
      expect(other.status).toBe(403);
      expect(other.body.errorCode).toBe('AUTH_FORBIDDEN_BUSINESS_UNIT');
      const multi = await localToken({ businessUnits: ['DEMO', 'ELSEWHERE'] });
      const res = await api.get('/classifier/country', multi);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({
        errorCode: 'V001',
        errors: [{ path: 'businessUnit', code: 'V001.businessUnit.REQUIRED' }],
      });
    });
  });

  describe('read endpoints, documents and probes', () => {
    it('path parameters over 255 characters are 400', async () => {
      const res = await get(`/api/customers/DEMO/${'x'.repeat(256)}`);
      expect(res.status).toBe(400);
      expect(res.body.errorCode).toBe('V001');
      expect(
        (await get(`/api/integration-services/v1/communications-events/${'x'.repeat(256)}`)).status,
      ).toBe(400);
    });

    it('serve the OpenAPI document, the docs page, the probes and the metrics', async () => {
      const openapi = await get('/openapi.json');
      expect(openapi.status).toBe(200);
      expect(openapi.body.openapi).toBe('3.1.0');
      for (const p of [
        '/core-ws-rest/customer',
        '/core-ws-rest/validate-batch-customers',
        '/core-ws-rest/batch-customers',
        '/core-ws-rest/simplifiedCustomer',
        '/classifier/riskManagementCategory',
        '/api/customers/{businessUnit}/{customerExtId}',
      ]) {
        expect(Object.keys(openapi.body.paths)).toContain(p);
      }
      const docs = await api.get('/docs');
      expect(docs.status).toBe(200);
      expect(docs.headers.get('content-type')).toMatch(/text\/html/);
      expect(docs.body).toContain('/docs/assets/swagger-ui-bundle.js');
      expect((await api.get('/health/live')).body).toEqual({ status: 'UP' });
      expect((await api.get('/health/ready')).body).toMatchObject({ status: 'UP' });
      const metrics = await api.get('/metrics');
      expect(metrics.status).toBe(200);
      expect(metrics.body).toContain('http_request_duration_seconds');
    });
  });
});
