import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import type { Db } from 'mongodb';
import { commonConfigSpec, createLogger, loadConfig } from '@crs/runtime';
import { DurablePublisher, setUpMessaging, streamKey, type Messaging } from '@crs/messaging';
import type { OperationData } from '@crs/contracts';
import { ProjectionCatalog } from '@crs/store';
import {
  buildIndex,
  loadOfacConsolidated,
  loadOfacSdn,
  loadUnConsolidated,
  screen,
} from '@crs/screening-core';
import { ROOT, TestCluster, eventually, eventuallyNonEmpty, localToken, uniqueId } from '@crs/testing';

/**
 * Operations end to end, through the real stack: an upstream system publishes operations to the
 * namespace's ingest topic -> operation decider (archive service) -> operation events -> operations
 * projection; the ingress archives them (DELETE discard-operations) and lists them (reconciliation);
 * retrospective monitoring screens the counterparties of non-archived operations only.
 */
const NAMESPACE = 'e2e-ops';

/* eslint-disable @typescript-eslint/no-require-imports */
const launcher = require(resolve(ROOT, 'deploy/local/services.cjs')) as {
  baseEnv(overrides: Record<string, string>): Promise<Record<string, string>>;
  namespaceSettings(namespace: string): { env: Record<string, string> };
};

const SHARED_DATA = process.env.CRS_SHARED_DATA ?? resolve(ROOT, '..', 'shared', 'data');
const today = () => new Date().toISOString().slice(0, 10);
const daysFromToday = (n: number) => new Date(Date.now() + n * 86400000).toISOString().slice(0, 10);

/**
 * A real SDN individual whose name, screened against the sanctions lists, hits exactly one entry (its
 * own): so one operation with that counterparty yields exactly one alert per run.
 */
let sanctionedCache: { name: string; entryId: string } | undefined;
function sanctionedIndividual(): { name: string; entryId: string } {
  sanctionedCache ??= findSanctionedIndividual();
  return sanctionedCache;
}

function findSanctionedIndividual(): { name: string; entryId: string } {
  const lists = join(SHARED_DATA, 'lists');
  const now = new Date().toISOString();
  const index = buildIndex([
    loadOfacSdn({ primary: join(lists, 'sdn.csv'), alt: join(lists, 'alt.csv') }, now),
    loadOfacConsolidated({ primary: join(lists, 'cons_prim.csv'), alt: join(lists, 'cons_alt.csv') }, now),
    loadUnConsolidated(join(lists, 'UN_consolidated.xml'), now),
  ]);
  for (const line of readFileSync(join(lists, 'sdn.csv'), 'utf8').split('\n')) {
    const m = /^(\d+),"([^"]+)","individual"/.exec(line);
    if (!m) continue;
    const [last, first] = m[2]!.split(', ');
    if (!first || !/^[A-Za-z -]+$/.test(`${first} ${last}`)) continue;
    const name = `${first} ${last}`;
    const hits = screen(index, { name, lists: ['SANCTIONS'] });
    if (hits.length === 1 && hits[0]!.source === 'OFAC_SDN' && hits[0]!.entryId === m[1])
      return { name, entryId: m[1]! };
  }
  throw new Error('no SDN individual with a single, unambiguous hit found');
}

describe('operations: ingest, archive, reconciliation and retro monitoring end to end', () => {
  const cluster = new TestCluster(NAMESPACE);
  const logger = createLogger('e2e-ops-upstream', 'warn');
  let messaging: Messaging;
  let upstream: DurablePublisher;
  let db: Db;
  let token: string;

  beforeAll(async () => {
    await cluster.start(['customer', 'projector', 'ingress', 'archive']);
    db = await cluster.db();
    token = await localToken({ businessUnits: ['DEMO', 'OTHER'] });
    const config = loadConfig(commonConfigSpec, {
      ...process.env,
      TOPIC_PREFIX: `${NAMESPACE}.`,
      TOPIC_PARTITIONS: '3',
    });
    messaging = await setUpMessaging(config, 'e2e-ops-upstream', logger);
    upstream = new DurablePublisher(messaging.kafka, messaging.serde);
  });

  afterAll(async () => {
    await upstream?.disconnect().catch(() => undefined);
    await cluster.stop();
  });

  const operation = (overrides: Partial<OperationData> = {}): OperationData => ({
    extId: uniqueId('op'),
    businessUnit: 'DEMO',
    customerExtId: uniqueId('cust'),
    type: 'PAYMENT',
    direction: 'OUT',
    amount: 1250.75,
    currency: 'EUR',
    date: today(),
    counterparty: {
      name: 'Harbour Supplies Ltd',
      country: 'LT',
      account: 'LT601010012345678901',
      bank: 'Demo Bank',
    },
    description: 'invoice 42',
    ...overrides,
  });

  /** What an upstream system does: one message per operation, keyed <businessUnit>:<extId>. */
  const publish = (...ops: OperationData[]) =>
    upstream.publish(
      ops.map((op) => ({
        topic: messaging.topics.operationIngest,
        key: streamKey(op.businessUnit, op.extId),
        type: 'OperationReceived',
        value: op,
      })),
    );

  const projected = async (
    op: OperationData,
    until: (doc: Record<string, unknown>) => boolean = () => true,
    what = 'operation in the projection',
  ) =>
    eventually(
      async () => {
        const doc = await (
          await new ProjectionCatalog(db).collection('operations')
        ).findOne({ businessUnit: op.businessUnit, extId: op.extId });
        return doc && until(doc) ? doc : undefined;
      },
      60000,
      what,
    );

  const discard = (query: string, auth = token) =>
    cluster.fetch(`/api/integration-services/v1/discard-operations${query}`, {
      method: 'DELETE',
      token: auth,
    });
  const discardOp = (op: OperationData, auth = token) =>
    discard(
      `?extId=${encodeURIComponent(op.extId)}&businessUnit=${encodeURIComponent(op.businessUnit)}`,
      auth,
    );

  it('projects an upstream operation, ignores a redelivery, records a correction as a new revision', async () => {
    const op = operation();
    await publish(op);
    const first = await projected(op);
    expect(first).toMatchObject({
      extId: op.extId,
      businessUnit: 'DEMO',
      customerExtId: op.customerExtId,
      amount: 1250.75,
      currency: 'EUR',
      counterparty: op.counterparty,
      archived: false,
      revision: 1,
    });
    // The same content again (upstream redelivery), then a correction: only the correction is news.
    await publish(op, { ...op, amount: 1300 });
    const corrected = await projected(op, (d) => d.amount === 1300, 'corrected operation');
    expect(corrected).toMatchObject({
      revision: 2,
      version: 2,
      archived: false,
      registeredAt: first.registeredAt,
    });
  });

  it('DELETE discard-operations archives a known operation (200 {}), and a repeated DELETE is harmless', async () => {
    const op = operation();
    await publish(op);
    await projected(op);

    const res = await discardOp(op);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({});
    const archived = await projected(op, (d) => d.archived === true, 'archived operation');
    expect(archived).toMatchObject({ archivedBy: 'e2e-test', version: 2 });

    const again = await discardOp(op);
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({});
    // A correction arriving after the archive is recorded but does not bring the operation back.
    await publish({ ...op, description: 'corrected after archive' });
    const after = await projected(
      op,
      (d) => d.description === 'corrected after archive',
      'post-archive revision',
    );
    expect(after).toMatchObject({ archived: true, revision: 2, version: 3 });
  });

  it('answers 404 in the generic error shape for an operation that is not known', async () => {
    const res = await discard(`?extId=${uniqueId('missing')}&businessUnit=DEMO`);
    expect(res.status).toBe(404);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toEqual({ errorCode: 'NOT_FOUND', errorDescription: expect.any(String) });
  });

  it("refuses another business unit's operation with 403 for a DEMO-only token, and leaves it as it was", async () => {
    const op = operation({ businessUnit: 'OTHER' });
    await publish(op);
    await projected(op);
    const demoOnly = await localToken({ businessUnits: ['DEMO'], scopes: ['operations:archive'] });
    const res = await discardOp(op, demoOnly);
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ errorCode: 'AUTH_FORBIDDEN_BUSINESS_UNIT' });
    const doc = await projected(op);
    expect(doc.archived).toBe(false);
  });

  it('answers 400 naming the faulty query parameter', async () => {
    const missing = await discard('?businessUnit=DEMO');
    expect(missing.status).toBe(400);
    const body = (await missing.json()) as {
      errorCode: string;
      errorDescription: string;
      errors: { path: string; code: string; message: string }[];
    };
    expect(body.errorCode).toBe('V001');
    expect(body.errors).toEqual([
      { path: 'extId', code: 'V001.extId.REQUIRED', message: expect.any(String) },
    ]);

    const tooLong = await discard(`?extId=x&businessUnit=${'B'.repeat(256)}`);
    expect(tooLong.status).toBe(400);
    expect(((await tooLong.json()) as typeof body).errors).toEqual([
      { path: 'businessUnit', code: 'V001.businessUnit.TOO_LONG', message: expect.any(String) },
    ]);
  });

  it('query limits of interface section 8: 255 characters pass, 256 fail; every missing parameter is named', async () => {
    type Errors = { errorCode: string; errors: { path: string; code: string }[] };
    const errorsOf = async (res: Response) => {
      expect(res.status).toBe(400);
      const body = (await res.json()) as Errors;
      expect(body.errorCode).toBe('V001');
      return body.errors.map(({ path, code }) => ({ path, code }));
    };
    // At the limit the parameters are accepted: the operation simply is not known (404, not 400).
    const extId255 = `${uniqueId('x')}${'e'.repeat(255)}`.slice(0, 255);
    const atLimit = await discard(`?extId=${extId255}&businessUnit=DEMO`);
    expect(atLimit.status).toBe(404);
    expect(await atLimit.json()).toMatchObject({ errorCode: 'NOT_FOUND' });
    const unit255 = 'U'.repeat(255);
    const unitToken = await localToken({ businessUnits: [unit255], scopes: ['operations:archive'] });
    const unitAtLimit = await discard(`?extId=${uniqueId('x')}&businessUnit=${unit255}`, unitToken);
    expect(unitAtLimit.status).toBe(404);
    expect(await unitAtLimit.json()).toMatchObject({ errorCode: 'NOT_FOUND' });

    expect(await errorsOf(await discard(`?extId=${'e'.repeat(256)}&businessUnit=DEMO`))).toEqual([
      { path: 'extId', code: 'V001.extId.TOO_LONG' },
    ]);
    // Characters, as a body field's limit counts them: 255 emoji (510 UTF-16 units) pass, 256 do not.
    const emoji255 = encodeURIComponent('😀'.repeat(255));
    expect((await discard(`?extId=${emoji255}&businessUnit=DEMO`)).status).toBe(404);
    expect(
      await errorsOf(await discard(`?extId=${encodeURIComponent('😀'.repeat(256))}&businessUnit=DEMO`)),
    ).toEqual([{ path: 'extId', code: 'V001.extId.TOO_LONG' }]);
    expect(await errorsOf(await discard(`?extId=${uniqueId('x')}`))).toEqual([
      { path: 'businessUnit', code: 'V001.businessUnit.REQUIRED' },
    ]);
    expect(await errorsOf(await discard(''))).toEqual([
      { path: 'extId', code: 'V001.extId.REQUIRED' },
      { path: 'businessUnit', code: 'V001.businessUnit.REQUIRED' },
    ]);
    expect(await errorsOf(await discard('?extId=&businessUnit='))).toEqual([
      { path: 'extId', code: 'V001.extId.REQUIRED' },
      { path: 'businessUnit', code: 'V001.businessUnit.REQUIRED' },
    ]);
    expect(await errorsOf(await discard('?extId=a&extId=b&businessUnit=DEMO'))).toEqual([
      { path: 'extId', code: 'V001.extId.INVALID_TYPE' },
    ]);
  });

  it('lists the operations registered in a window (reconciliation), only of the business units the token may see', async () => {
    const demo = operation();
    const other = operation({ businessUnit: 'OTHER' });
    await publish(demo, other);
    await projected(demo);
    await projected(other);
    const window = `registeredFrom=${daysFromToday(-1)}&registeredTill=${daysFromToday(1)}`;
    const reader = await localToken({ businessUnits: ['DEMO'], scopes: ['customers:read'] });
    const res = await cluster.fetch(`/api/integration-services/v1/operations-reconciliation?${window}`, {
      token: reader,
    });
    expect(res.status).toBe(200);
    const { operations } = (await res.json()) as { operations: { extId: string; businessUnit: string }[] };
    expect(operations).toContainEqual({ extId: demo.extId, businessUnit: 'DEMO' });
    expect(operations.some((o) => o.businessUnit !== 'DEMO')).toBe(false);

    const past = await cluster.fetch(
      `/api/integration-services/v1/operations-reconciliation?registeredFrom=2000-01-01&registeredTill=2000-01-02&businessUnit=DEMO`,
      { token: reader },
    );
    expect(await past.json()).toEqual({ operations: [] });

    const noScope = await localToken({ businessUnits: ['DEMO'], scopes: ['customers:write'] });
    expect(
      (
        await cluster.fetch(`/api/integration-services/v1/operations-reconciliation?${window}`, {
          token: noScope,
        })
      ).status,
    ).toBe(403);
  });

  it('An archived operation is excluded from a retro-monitoring run that flags its non-archived twin', async () => {
    const sanctioned = sanctionedIndividual();
    const counterparty = { name: sanctioned.name, country: 'LT' };
    const archivedTwin = operation({ counterparty });
    const activeTwin = operation({ counterparty });
    await publish(archivedTwin, activeTwin);
    await projected(archivedTwin);
    await projected(activeTwin);
    expect((await discardOp(archivedTwin)).status).toBe(200);
    await projected(archivedTwin, (d) => d.archived === true, 'archived twin');

    const runCli = async () => {
      const env = await launcher.baseEnv({
        ...launcher.namespaceSettings(NAMESPACE).env,
        TOPIC_PARTITIONS: '3',
        LOG_LEVEL: 'warn',
      });
      const { stdout } = await promisify(execFile)(
        process.execPath,
        [join(ROOT, 'services/archive/dist/cli/retro-monitor.js')],
        {
          env,
          cwd: ROOT,
          timeout: 120000,
        },
      );
      const summary = stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .find((l) => 'scanned' in l && !('level' in l));
      if (!summary) throw new Error(`no summary in the CLI output: ${stdout}`);
      return summary as { scanned: number; raised: number; alreadyRaised: number };
    };
    const summary = await runCli();
    expect(summary.scanned).toBeGreaterThanOrEqual(1);

    const ours = { operationExtId: { $in: [archivedTwin.extId, activeTwin.extId] } };
    const alerts = await eventuallyNonEmpty(
      async () => (await new ProjectionCatalog(db).collection('alerts')).find(ours).toArray(),
      60000,
      'retro-monitoring alert',
    );
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({
      kind: 'RETRO_MONITORING',
      operationExtId: activeTwin.extId,
      businessUnit: 'DEMO',
      customerExtId: activeTwin.customerExtId,
      counterpartyName: sanctioned.name,
      list: 'SANCTIONS',
      source: 'OFAC_SDN',
      entryId: sanctioned.entryId,
      snapshotVersion: expect.stringMatching(/^[0-9a-f]{64}$/),
    });

    // A second run over the same snapshot finds the same match again and raises nothing new.
    const second = await runCli();
    expect(second.alreadyRaised).toBeGreaterThanOrEqual(1);
    expect(second.raised).toBe(0);
  });

  it('a new sanctions list snapshot on the lists topic triggers a run that flags a sanctioned counterparty', async () => {
    const sanctioned = sanctionedIndividual();
    const op = operation({ counterparty: { name: sanctioned.name, country: 'DE' } });
    await publish(op);
    await projected(op);
    const version = uniqueId('snapshot');
    await upstream.publish([
      {
        topic: messaging.topics.screeningLists,
        key: 'SANCTIONS:OFAC_SDN',
        type: 'ListSnapshotLoaded',
        value: {
          eventId: `OFAC_SDN:${version}`,
          type: 'ListSnapshotLoaded',
          occurredAt: new Date().toISOString(),
          data: {
            list: 'SANCTIONS',
            source: 'OFAC_SDN',
            version,
            entryCount: 1,
            loadedAt: new Date().toISOString(),
          },
        },
      },
    ]);
    const alert = await eventually(
      async () =>
        (await (
          await new ProjectionCatalog(db).collection('alerts')
        ).findOne({ operationExtId: op.extId })) ?? undefined,
      120000,
      'alert raised by the triggered run',
    );
    expect(alert).toMatchObject({
      businessUnit: 'DEMO',
      entryId: sanctioned.entryId,
      list: 'SANCTIONS',
      runId: expect.stringContaining(version),
    });
  });
});
