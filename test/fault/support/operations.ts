import type { Db } from 'mongodb';
import type { Logger } from '@crs/runtime';
import { DurablePublisher, streamKey, type Messaging } from '@crs/messaging';
import type { OperationData, OperationEvent, OperationTopicEvent } from '@crs/contracts';
import { ProjectionCatalog } from '@crs/store';
import { uniqueId, type TestCluster } from '@crs/testing';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Counterparties that match no sanctions entry (test/e2e/retro-monitoring checks the same two): no alert may name them. */
const COUNTERPARTIES = [
  { name: 'Harbour Supplies Ltd', country: 'LT' },
  { name: 'Baltic Timber Works', country: 'LV' },
];

/** One upstream operation of a scenario and what the clients were told about it. */
export interface OperationRecord {
  op: OperationData;
  /** Every publish of it was acknowledged by the broker at least once (it is published twice: an upstream redelivery). */
  published: boolean;
  /** Whether the scenario archives it. */
  archive: boolean;
  /** The answers of DELETE discard-operations (404 while not yet projected, 503 while unavailable). */
  archiveStatuses: number[];
  /** Answered 200 at least once. */
  archived: boolean;
  /** 503 answers that carried Retry-After. */
  retryAfterSeen: number;
}

/**
 * The operations side of a scenario: an upstream system publishes operations to the ingest topic
 * (each twice, as an at-least-once upstream does) and a client archives some of them through the
 * ingress (DELETE discard-operations, some twice), both while the faults happen. Publishes are retried
 * until the broker acknowledges them; archive requests after 404 (not projected yet), 503 and no answer.
 */
export class OperationsDriver {
  readonly records: OperationRecord[] = [];
  private readonly publisher: DurablePublisher;
  private httpRequests = 0;
  private readonly statuses: Record<string, number> = {};

  constructor(
    private readonly cluster: TestCluster,
    private readonly messaging: Messaging,
    private readonly token: string,
    private readonly logger: Logger,
    private readonly prefix: string,
    private readonly giveUpAfterMs: number,
  ) {
    this.publisher = new DurablePublisher(messaging.kafka, messaging.serde, 3000);
  }

  /** Publishes n new operations (every other one to be archived later); resolves once all are acknowledged. */
  async publish(n: number): Promise<OperationRecord[]> {
    const batch: OperationRecord[] = [];
    for (let k = 0; k < n; k++) {
      const i = this.records.length;
      const rec: OperationRecord = {
        op: {
          extId: uniqueId(`${this.prefix}op${i}`),
          businessUnit: 'DEMO',
          customerExtId: uniqueId('fault-cust'),
          type: 'PAYMENT',
          direction: i % 2 === 0 ? 'OUT' : 'IN',
          amount: 100 + i,
          currency: 'EUR',
          date: new Date().toISOString().slice(0, 10),
          counterparty: COUNTERPARTIES[i % COUNTERPARTIES.length]!,
          description: `fault suite operation ${i}`,
        },
        published: false,
        archive: i % 2 === 0,
        archiveStatuses: [],
        archived: false,
        retryAfterSeen: 0,
      };
      this.records.push(rec);
      batch.push(rec);
    }
    const message = (op: OperationData) => ({
      topic: this.messaging.topics.operationIngest,
      key: streamKey(op.businessUnit, op.extId),
      type: 'OperationReceived',
      value: op,
    });
    // Twice: the second copy is an upstream redelivery the decider must recognise (same content).
    for (let copy = 0; copy < 2; copy++) {
      const deadline = Date.now() + this.giveUpAfterMs;
      for (;;) {
        try {
          await this.publisher.publish(batch.map((r) => message(r.op)));
          break;
        } catch (err) {
          if (Date.now() > deadline) {
            this.logger.warn({ err }, 'fault suite: gave up publishing operations');
            return batch;
          }
          await sleep(500);
        }
      }
    }
    for (const r of batch) r.published = true;
    return batch;
  }

  /** Archives one operation through the ingress, retrying as a careful client does; `twice` sends a second DELETE after the 200. */
  async archive(rec: OperationRecord, twice: boolean): Promise<void> {
    const query = `?extId=${encodeURIComponent(rec.op.extId)}&businessUnit=${encodeURIComponent(rec.op.businessUnit)}`;
    for (let round = 0; round < (twice ? 2 : 1); round++) {
      const deadline = Date.now() + this.giveUpAfterMs;
      for (;;) {
        let status = 0;
        let retryAfter: string | null = null;
        try {
          const res = await this.cluster.fetch(`/api/integration-services/v1/discard-operations${query}`, {
            method: 'DELETE',
            token: this.token,
          });
          status = res.status;
          retryAfter = res.headers.get('retry-after');
          await res.arrayBuffer().catch(() => undefined);
        } catch {
          status = 0;
        }
        this.httpRequests++;
        this.statuses[status] = (this.statuses[status] ?? 0) + 1;
        rec.archiveStatuses.push(status);
        if (status === 503 && retryAfter) rec.retryAfterSeen++;
        if (status === 200) {
          rec.archived = true;
          break;
        }
        // 404: the operation is not in the read model yet (the archive service may be down); retried.
        if (status !== 404 && status !== 503 && status !== 0) break;
        if (Date.now() > deadline) break;
        await sleep(Math.min(2000, Math.max(250, Number(retryAfter ?? 1) * 1000)));
      }
    }
  }

  figures(): { httpRequests: number; statuses: Record<string, number> } {
    return { httpRequests: this.httpRequests, statuses: { ...this.statuses } };
  }

  async close(): Promise<void> {
    await this.publisher.disconnect().catch(() => undefined);
  }
}

interface OperationDocView {
  _id: string;
  extId: string;
  customerExtId: string;
  amount: number;
  currency: string;
  counterparty: { name: string; country: string };
  revision: number;
  archived: boolean;
  archivedBy?: string;
  version: number;
}

export interface OperationsVerdict {
  /** Operations archived (a 200 from discard-operations), each with exactly one OperationArchived. */
  archived: number;
  /** Registrations or archives the clients were told about that are not in the log. */
  lost: number;
  /** Operations registered twice (the redelivery decided again) or archived twice. */
  doubled: number;
  /** Operation documents compared with the fold of the operation log. */
  documents: number;
  problems: string[];
}

/** Whether the read model already shows what the log says for every operation (settling). */
export async function operationsSettled(db: Db, records: OperationRecord[]): Promise<boolean> {
  const docs = await (await new ProjectionCatalog(db).collection<OperationDocView>('operations'))
    .find(
      { _id: { $in: records.map((r) => streamKey(r.op.businessUnit, r.op.extId)) } },
      { projection: { archived: 1 } },
    )
    .toArray();
  const byId = new Map(docs.map((d) => [d._id, d]));
  return records.every((r) => {
    const d = byId.get(streamKey(r.op.businessUnit, r.op.extId));
    if (!r.published) return true;
    return d !== undefined && (!r.archived || d.archived);
  });
}

/**
 * Operation by operation, from the operation event log: exactly one OperationRegistered (the
 * redelivered copy decided nothing), exactly one OperationArchived for each operation archived with a
 * 200 and none for the others, stream versions 1..n, unique event ids; the operations read model equal
 * to the fold of that log (archived flag, archivedBy, revision, version, content); no retro-monitoring
 * alert for the clean counterparties.
 */
export async function verifyOperations(
  db: Db,
  records: OperationRecord[],
  log: OperationTopicEvent[],
  requestedBy: string,
): Promise<OperationsVerdict> {
  const v: OperationsVerdict = { archived: 0, lost: 0, doubled: 0, documents: 0, problems: [] };
  const ids = new Set(records.map((r) => streamKey(r.op.businessUnit, r.op.extId)));
  const streams = new Map<string, OperationEvent[]>();
  const seen = new Set<string>();
  const alerts: OperationTopicEvent[] = [];
  for (const e of log) {
    if (!ids.has(e.streamId)) continue;
    if (e.type === 'RetroMonitoringAlertRaised') {
      alerts.push(e);
      continue;
    }
    if (seen.has(e.eventId)) {
      v.doubled++;
      v.problems.push(`operation event ${e.eventId} occurs twice in the log`);
    }
    seen.add(e.eventId);
    streams.set(e.streamId, [...(streams.get(e.streamId) ?? []), e]);
  }
  if (alerts.length > 0) v.problems.push(`${alerts.length} retro-monitoring alerts for clean counterparties`);
  const catalog = new ProjectionCatalog(db);
  const docs = await (await catalog.collection<OperationDocView>('operations'))
    .find({ _id: { $in: [...ids] } })
    .toArray();
  const docOf = new Map(docs.map((d) => [d._id, d]));
  const alertDocs = await (
    await catalog.collection('alerts')
  ).countDocuments({ operationExtId: { $in: records.map((r) => r.op.extId) } });
  if (alertDocs > 0) v.problems.push(`${alertDocs} alert documents for clean counterparties`);

  for (const rec of records) {
    const id = streamKey(rec.op.businessUnit, rec.op.extId);
    const events = streams.get(id) ?? [];
    const registered = events.filter(
      (e): e is Extract<OperationEvent, { type: 'OperationRegistered' }> => e.type === 'OperationRegistered',
    );
    const archived = events.filter((e) => e.type === 'OperationArchived');
    if (registered.length === 0) {
      if (rec.published) {
        v.lost++;
        v.problems.push(`${id}: published (acknowledged) but never registered`);
      }
      continue;
    }
    if (registered.length > 1) {
      v.doubled++;
      v.problems.push(`${id}: registered ${registered.length} times`);
    }
    if (archived.length > 1) {
      v.doubled++;
      v.problems.push(`${id}: archived ${archived.length} times`);
    }
    if (rec.archived) {
      if (archived.length === 0) {
        v.lost++;
        v.problems.push(`${id}: archive answered 200 but no OperationArchived in the log`);
      } else v.archived++;
    } else if (archived.length > 0 && rec.archiveStatuses.length === 0) {
      v.problems.push(`${id}: archived although nobody asked`);
    }
    const versions = events.map((e) => e.streamVersion);
    if (versions.join(',') !== events.map((_, i) => i + 1).join(','))
      v.problems.push(`${id}: stream versions ${versions.join(',')}`);

    // The read model against the fold of the log.
    const doc = docOf.get(id);
    if (!doc) {
      v.problems.push(`${id}: in the log, missing from the operations read model`);
      continue;
    }
    v.documents++;
    const last = registered[registered.length - 1]!;
    const expected = {
      extId: rec.op.extId,
      customerExtId: rec.op.customerExtId,
      amount: last.data.operation.amount,
      currency: last.data.operation.currency,
      counterparty: last.data.operation.counterparty.name,
      revision: last.data.revision,
      archived: archived.length > 0,
      archivedBy: archived.length > 0 ? requestedBy : undefined,
      version: Math.max(...versions),
    };
    const actual = {
      extId: doc.extId,
      customerExtId: doc.customerExtId,
      amount: doc.amount,
      currency: doc.currency,
      counterparty: doc.counterparty?.name,
      revision: doc.revision,
      archived: doc.archived,
      archivedBy: doc.archivedBy,
      version: doc.version,
    };
    if (JSON.stringify(actual) !== JSON.stringify(expected))
      v.problems.push(`${id}: read model ${JSON.stringify(actual)}, log says ${JSON.stringify(expected)}`);
  }
  return v;
}
