import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
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
 * Retrospective monitoring through the real stack (services/archive/src/retro): a list snapshot
 * announced on the lists topic starts a run in the archive service; the run screens the counterparties
 * of non-archived operations dated inside the look-back window, in chunks, and records its progress
 * (retro_runs, retro_run_progress). An on-demand run (CLI) with a longer window takes the older
 * operation in as well.
 */
const NAMESPACE = 'e2e-retro';
const LOOKBACK_DAYS = 30;

/* eslint-disable @typescript-eslint/no-require-imports */
const launcher = require(resolve(ROOT, 'deploy/local/services.cjs')) as {
  baseEnv(overrides: Record<string, string>): Promise<Record<string, string>>;
  namespaceSettings(namespace: string): { env: Record<string, string> };
};

const SHARED_DATA = process.env.CRS_SHARED_DATA ?? resolve(ROOT, '..', 'shared', 'data');
const daysAgo = (n: number) => new Date(Date.now() - n * 86400000).toISOString().slice(0, 10);

/** A real SDN individual whose name hits exactly one entry (its own) of the sanctions lists. */
function sanctionedIndividual(): { name: string; entryId: string } {
  const lists = join(SHARED_DATA, 'lists');
  const now = new Date().toISOString();
  const index = buildIndex([
    loadOfacSdn({ primary: join(lists, 'sdn.csv'), alt: join(lists, 'alt.csv') }, now),
    loadOfacConsolidated({ primary: join(lists, 'cons_prim.csv'), alt: join(lists, 'cons_alt.csv') }, now),
    loadUnConsolidated(join(lists, 'UN_consolidated.xml'), now),
  ]);
  const clean = (name: string) => screen(index, { name, lists: ['SANCTIONS'] }).length === 0;
  if (!clean('Harbour Supplies Ltd') || !clean('Baltic Timber Works'))
    throw new Error('the clean counterparties match a list');
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

interface RunDoc {
  _id: string;
  status: string;
  fromDate: string;
  chunkSize: number;
  chunks: number;
  scanned: number;
  raised: number;
  alreadyRaised: number;
}
interface ProgressDoc {
  runId: string;
  chunk: number;
  chunkSize: number;
  scanned: number;
  raised: number;
}

describe('retrospective monitoring: look-back window, archive exclusion, progress in chunks', () => {
  const cluster = new TestCluster(NAMESPACE, {
    RETRO_LOOKBACK_DAYS: String(LOOKBACK_DAYS),
    RETRO_CHUNK_SIZE: '1',
  });
  const logger = createLogger('e2e-retro-upstream', 'warn');
  let messaging: Messaging;
  let upstream: DurablePublisher;
  let db: Db;
  let token: string;
  const sanctioned = sanctionedIndividual();

  const operation = (overrides: Partial<OperationData>): OperationData => ({
    extId: uniqueId('op'),
    businessUnit: 'DEMO',
    customerExtId: uniqueId('cust'),
    type: 'PAYMENT',
    direction: 'OUT',
    amount: 980.5,
    currency: 'EUR',
    date: daysAgo(0),
    counterparty: { name: 'Harbour Supplies Ltd', country: 'LT' },
    ...overrides,
  });
  // Inside the window: a sanctioned counterparty (flagged), its archived twin (never takes part), two clean ones.
  const inside = operation({ counterparty: { name: sanctioned.name, country: 'LT' } });
  const archivedTwin = operation({ counterparty: { name: sanctioned.name, country: 'LT' } });
  const cleanToday = operation({});
  const cleanRecent = operation({
    date: daysAgo(10),
    counterparty: { name: 'Baltic Timber Works', country: 'LV' },
  });
  // Outside the 30-day window: the same sanctioned counterparty, 200 days old.
  const outside = operation({ date: daysAgo(200), counterparty: { name: sanctioned.name, country: 'LT' } });
  const ours = [inside, archivedTwin, cleanToday, cleanRecent, outside];

  beforeAll(async () => {
    await cluster.dropDatabase();
    await cluster.start(['customer', 'projector', 'ingress', 'archive']);
    db = await cluster.db();
    token = await localToken();
    const config = loadConfig(commonConfigSpec, {
      ...process.env,
      TOPIC_PREFIX: `${NAMESPACE}.`,
      TOPIC_PARTITIONS: '3',
    });
    messaging = await setUpMessaging(config, 'e2e-retro-upstream', logger);
    upstream = new DurablePublisher(messaging.kafka, messaging.serde);

    await upstream.publish(
      ours.map((op) => ({
        topic: messaging.topics.operationIngest,
        key: streamKey(op.businessUnit, op.extId),
        type: 'OperationReceived',
        value: op,
      })),
    );
    const operations = await new ProjectionCatalog(db).collection('operations');
    await eventually(
      async () =>
        (await operations.countDocuments({ extId: { $in: ours.map((o) => o.extId) } })) === ours.length,
      60000,
      'operations projected',
    );
    const res = await cluster.fetch(
      `/api/integration-services/v1/discard-operations?extId=${encodeURIComponent(archivedTwin.extId)}&businessUnit=DEMO`,
      {
        method: 'DELETE',
        token,
      },
    );
    expect(res.status).toBe(200);
    await eventually(
      async () => (await operations.findOne({ extId: archivedTwin.extId }))?.archived === true,
      60000,
      'archived twin',
    );
  });

  afterAll(async () => {
    await upstream?.disconnect().catch(() => undefined);
    await cluster.stop();
  });

  const alertsFor = async () =>
    (await new ProjectionCatalog(db).collection('alerts'))
      .find({ operationExtId: { $in: ours.map((o) => o.extId) } })
      .toArray();

  it('a new sanctions snapshot starts a run: the operation inside the window is flagged, the older one and the archived twin are not; progress is recorded per chunk', async () => {
    const version = createHash('sha256').update(uniqueId('snapshot')).digest('hex');
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

    const runs = db.collection<RunDoc>('retro_runs');
    const run = await eventually(
      async () => {
        const r = await runs.findOne({ _id: { $regex: `^retro:${version}:` } });
        return r?.status === 'finished' ? r : undefined;
      },
      120000,
      'retro monitoring run started by the snapshot',
    );
    // In the window and not archived: inside, cleanToday, cleanRecent. One operation per chunk.
    expect(run).toMatchObject({
      fromDate: daysAgo(LOOKBACK_DAYS),
      chunkSize: 1,
      chunks: 3,
      scanned: 3,
      raised: 1,
      alreadyRaised: 0,
    });
    const progress = await db
      .collection<ProgressDoc>('retro_run_progress')
      .find({ runId: run._id })
      .sort({ chunk: 1 })
      .toArray();
    expect(progress.map((p) => [p.chunk, p.chunkSize, p.scanned])).toEqual([
      [1, 1, 1],
      [2, 1, 2],
      [3, 1, 3],
    ]);
    expect(progress[2]!.raised).toBe(1);

    const alerts = await eventuallyNonEmpty(alertsFor, 60000, 'retro-monitoring alert');
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({
      kind: 'RETRO_MONITORING',
      operationExtId: inside.extId,
      counterpartyName: sanctioned.name,
      list: 'SANCTIONS',
      entryId: sanctioned.entryId,
    });
  });

  it('an on-demand run with a longer look-back window takes the older operation in, and still never the archived one', async () => {
    const env = await launcher.baseEnv({
      ...launcher.namespaceSettings(NAMESPACE).env,
      TOPIC_PARTITIONS: '3',
      RETRO_CHUNK_SIZE: '2',
      LOG_LEVEL: 'warn',
    });
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [join(ROOT, 'services/archive/dist/cli/retro-monitor.js'), '--lookback-days', '365'],
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
      .find((l) => 'scanned' in l && !('level' in l)) as {
      runId: string;
      scanned: number;
      raised: number;
      alreadyRaised: number;
    };
    // inside, cleanToday, cleanRecent and now outside; the archived twin still not.
    expect(summary).toMatchObject({ scanned: 4, raised: 1, alreadyRaised: 1 });
    const run = await db.collection<RunDoc>('retro_runs').findOne({ _id: summary.runId });
    expect(run).toMatchObject({ status: 'finished', chunkSize: 2, chunks: 2, scanned: 4 });

    const alerts = await eventually(
      async () => {
        const a = await alertsFor();
        return a.length === 2 ? a : undefined;
      },
      60000,
      'alert for the older operation',
    );
    expect(alerts.map((a) => a.operationExtId).sort()).toEqual([inside.extId, outside.extId].sort());
  });
});
