import { MongoClient, type Db } from 'mongodb';
import type { OperationData, OperationTopicEvent } from '@crs/contracts';
import { applyOperationEvent, type OperationCollections } from './operation-projection';

/**
 * Against the real MongoDB-compatible store (FerretDB locally): every operation event applied twice,
 * and late redeliveries of older events, leave exactly what applying the history once leaves.
 */
const names: OperationCollections = { operations: 'operations', alerts: 'alerts' };
const op: OperationData = {
  extId: 'OP-1',
  businessUnit: 'DEMO',
  customerExtId: 'C-1',
  type: 'TRANSFER',
  direction: 'IN',
  amount: 10,
  currency: 'EUR',
  date: '2026-01-01',
  counterparty: { name: 'Acme Trading', country: 'LT' },
};

function envelope(version: number, at: string) {
  return {
    eventId: `e-${version}`,
    streamId: 'DEMO:OP-1',
    streamVersion: version,
    occurredAt: at,
    correlationId: `c-${version}`,
    causationId: `c-${version}`,
    businessUnit: 'DEMO',
    operationExtId: 'OP-1',
    customerExtId: 'C-1',
  };
}

const history: OperationTopicEvent[] = [
  {
    ...envelope(1, '2026-01-01T00:00:00.000Z'),
    type: 'OperationRegistered',
    data: { operation: op, revision: 1 },
  },
  { ...envelope(2, '2026-01-02T00:00:00.000Z'), type: 'OperationArchived', data: { requestedBy: 'clerk' } },
  {
    ...envelope(3, '2026-01-03T00:00:00.000Z'),
    type: 'OperationRegistered',
    data: { operation: { ...op, amount: 12 }, revision: 2 },
  },
  {
    eventId: 'retro-1',
    type: 'RetroMonitoringAlertRaised',
    streamId: 'DEMO:OP-1',
    occurredAt: '2026-01-04T00:00:00.000Z',
    correlationId: 'run-1',
    causationId: 'run-1',
    businessUnit: 'DEMO',
    operationExtId: 'OP-1',
    customerExtId: 'C-1',
    data: {
      operationExtId: 'OP-1',
      businessUnit: 'DEMO',
      customerExtId: 'C-1',
      counterpartyName: 'Acme Trading',
      list: 'SANCTIONS',
      source: 'OFAC_SDN',
      entryId: '123',
      score: 0.93,
      snapshotVersion: 'abc',
    },
  },
];

describe('operations projection (idempotent, on the real store)', () => {
  let client: MongoClient;
  let db: Db;

  beforeAll(async () => {
    client = await new MongoClient(process.env.MONGODB_URI!).connect();
    db = client.db(`crs_int_archive_projection_${Date.now().toString(36)}`);
  });

  afterAll(async () => {
    await db.dropDatabase().catch(() => undefined);
    await client.close();
  });

  const snapshot = async () => ({
    operations: await db.collection(names.operations).find().toArray(),
    alerts: await db.collection(names.alerts).find().toArray(),
  });

  it('applying every event twice, and replaying the history, equals applying it once', async () => {
    for (const e of history) await applyOperationEvent(db, names, e);
    const once = await snapshot();
    expect(once.operations).toEqual([
      expect.objectContaining({
        _id: 'DEMO:OP-1',
        amount: 12,
        revision: 2,
        version: 3,
        archived: true,
        archivedBy: 'clerk',
        registeredAt: '2026-01-01T00:00:00.000Z',
      }),
    ]);
    expect(once.alerts).toEqual([
      expect.objectContaining({
        _id: 'retro-1',
        kind: 'RETRO_MONITORING',
        entryId: '123',
        operationExtId: 'OP-1',
      }),
    ]);

    for (const e of history) {
      await applyOperationEvent(db, names, e);
      await applyOperationEvent(db, names, e);
    }
    // A late redelivery of the first registration must not undo the archive or the correction.
    await applyOperationEvent(db, names, history[0]!);
    expect(await snapshot()).toEqual(once);
  });
});
