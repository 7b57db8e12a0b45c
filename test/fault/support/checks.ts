import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Db } from 'mongodb';
import type { Logger } from '@crs/runtime';
import { StreamReader, type Messaging } from '@crs/messaging';
import type { CustomerEvent } from '@crs/contracts';
import { OwnedCollections, ProjectionCatalog, ProjectionNames } from '@crs/store';
import { ROOT, type TestReceiver } from '@crs/testing';
import type { RequestKind, RequestRecord } from './load';

const run = promisify(execFile);

/** The events one accepted new-customer import must leave in the log, in order. */
export const EXPECTED_TYPES: Record<RequestKind, string[]> = {
  IMPORT: ['CustomerCreated', 'CustomerStatusChanged', 'RiskAssessed'],
  EVALUATE: ['CustomerCreated', 'CustomerStatusChanged', 'RiskEvaluationRequested', 'RiskAssessed'],
};

/** Reads the namespace's event log from the beginning to its end (committed events only). */
export async function readLog(messaging: Messaging, logger: Logger, groupPrefix: string): Promise<CustomerEvent[]> {
  const events: CustomerEvent[] = [];
  const reader = new StreamReader<CustomerEvent>({
    kafka: messaging.kafka,
    serde: messaging.serde,
    logger,
    topic: messaging.topics.customerEvents,
    groupPrefix,
    onMessage: (m) => {
      events.push(m.value);
    },
  });
  await reader.start();
  try {
    await reader.waitUntilCaughtUp();
  } finally {
    await reader.stop();
  }
  return events;
}

export function byCorrelation(log: CustomerEvent[]): Map<string, CustomerEvent[]> {
  const map = new Map<string, CustomerEvent[]>();
  for (const e of log) {
    const list = map.get(e.correlationId);
    if (list) list.push(e);
    else map.set(e.correlationId, [e]);
  }
  return map;
}

/** Whether the log holds the complete set of events for this request (so the reactors are done with it). */
export function complete(rec: RequestRecord, events: CustomerEvent[] | undefined): boolean {
  return (events?.length ?? 0) >= EXPECTED_TYPES[rec.kind].length;
}

export interface LogVerdict {
  lost: string[];
  doubled: string[];
  /** Requests never answered 200 whose command still reached the log once (a lost ack): allowed. */
  doneWithout200: number;
  duplicateEventIds: number;
  problems: string[];
}

/**
 * Every accepted request has exactly one set of events (expected types, stream versions 1..n, one
 * RiskAssessed), none lost, none doubled; a request that was never accepted has none or exactly one set.
 */
export function verifyLog(records: RequestRecord[], log: CustomerEvent[]): LogVerdict {
  const grouped = byCorrelation(log);
  const verdict: LogVerdict = { lost: [], doubled: [], doneWithout200: 0, duplicateEventIds: 0, problems: [] };
  const seen = new Set<string>();
  for (const e of log) {
    if (seen.has(e.eventId)) verdict.duplicateEventIds++;
    seen.add(e.eventId);
  }
  for (const rec of records) {
    const events = grouped.get(rec.comm) ?? [];
    const types = events.map((e) => e.type);
    const expected = EXPECTED_TYPES[rec.kind];
    if (events.length === 0) {
      if (rec.accepted) verdict.lost.push(rec.comm);
      continue;
    }
    if (!rec.accepted) verdict.doneWithout200++;
    const versions = events.map((e) => e.streamVersion);
    const assessed = events.filter((e) => e.type === 'RiskAssessed');
    if (events.length > expected.length || assessed.length > 1 || new Set(events.map((e) => e.streamId)).size > 1) {
      verdict.doubled.push(rec.comm);
      verdict.problems.push(`${rec.comm}: doubled: ${types.join(',')}`);
    } else if (types.join(',') !== expected.join(',') || versions.join(',') !== expected.map((_, i) => i + 1).join(',')) {
      if (rec.accepted) verdict.lost.push(rec.comm);
      verdict.problems.push(`${rec.comm}: expected ${expected.join(',')} at 1..${expected.length}, got ${types.join(',')} at ${versions.join(',')}`);
    } else {
      const source = (assessed[0]!.data as { assessment: { source: string } }).assessment.source;
      if (source !== rec.kind) verdict.problems.push(`${rec.comm}: assessment source ${source}, expected ${rec.kind}`);
    }
  }
  return verdict;
}

/** Exactly one assessment document per request in the projection, with the level source it asked for. */
export async function verifyAssessments(db: Db, records: RequestRecord[]): Promise<string[]> {
  const assessments = await new ProjectionCatalog(db).collection('assessments');
  const docs = await assessments
    .find({ communicationNumber: { $in: records.map((r) => r.comm) } }, { projection: { communicationNumber: 1, source: 1 } })
    .toArray();
  const byComm = new Map<string, string[]>();
  for (const d of docs) byComm.set(String(d.communicationNumber), [...(byComm.get(String(d.communicationNumber)) ?? []), String(d.source)]);
  const problems: string[] = [];
  for (const rec of records) {
    const got = byComm.get(rec.comm) ?? [];
    if (rec.accepted && (got.length !== 1 || got[0] !== rec.kind)) problems.push(`${rec.comm}: assessments ${JSON.stringify(got)}, expected ["${rec.kind}"]`);
    if (!rec.accepted && got.length > 1) problems.push(`${rec.comm}: ${got.length} assessments for a request never accepted`);
  }
  return problems;
}

export interface CallbackVerdict {
  /** Event ids of accepted requests that never reached the receiver. */
  missing: number;
  /** ce-ids the receiver accepted more than once although the delivery log recorded every such 2xx. */
  doubled: number;
  /**
   * ce-ids the receiver accepted again because a 2xx was never recorded in the delivery log: the crash
   * (or database outage) window between the answer and the write of "delivered". A receiver that
   * de-duplicates by ce-id sees each once.
   */
  redeliveredAfterCrashWindow: number;
  /** ce-ids the receiver got that belong to no event of the log. */
  unknown: number;
  distinctAccepted: number;
  problems: string[];
}

/** Every event of an accepted request reached the receiver; each ce-id once, barring the documented crash window. */
export async function verifyCallbacks(
  db: Db,
  receiver: TestReceiver,
  records: RequestRecord[],
  log: CustomerEvent[],
  routed: (e: CustomerEvent) => boolean,
): Promise<CallbackVerdict> {
  const comms = new Set(records.map((r) => r.comm));
  const acceptedComms = new Set(records.filter((r) => r.accepted).map((r) => r.comm));
  const expected = new Set(log.filter((e) => acceptedComms.has(e.correlationId) && routed(e)).map((e) => e.eventId));
  const allEvents = new Set(log.map((e) => e.eventId));
  const counts = new Map<string, number>();
  for (const cb of receiver.accepted) {
    if (!comms.has(String(cb.headers['ce-source']))) continue;
    const id = String(cb.headers['ce-id']);
    counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  const verdict: CallbackVerdict = { missing: 0, doubled: 0, redeliveredAfterCrashWindow: 0, unknown: 0, distinctAccepted: counts.size, problems: [] };
  for (const id of expected) if (!counts.has(id)) verdict.missing++;
  for (const id of counts.keys()) if (!allEvents.has(id)) verdict.unknown++;
  const repeated = [...counts].filter(([, n]) => n > 1);
  if (repeated.length > 0) {
    const deliveries = db.collection<{ eventId: string; log: { status: number | null }[] }>(OwnedCollections.deliveries);
    const docs = await deliveries.find({ eventId: { $in: repeated.map(([id]) => id) } }).toArray();
    const recorded = new Map(docs.map((d) => [d.eventId, d.log.filter((a) => a.status !== null && a.status >= 200 && a.status < 300).length]));
    for (const [id, n] of repeated) {
      const logged2xx = recorded.get(id) ?? 0;
      if (logged2xx < n) verdict.redeliveredAfterCrashWindow++;
      else {
        verdict.doubled++;
        verdict.problems.push(`ce-id ${id} accepted ${n} times and logged as delivered ${logged2xx} times`);
      }
    }
  }
  return verdict;
}

/** JSON with object keys sorted, so field order (which updates may change) does not count as a difference. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Date)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/** Live read models, sorted, per projection. */
async function snapshot(db: Db): Promise<Record<string, unknown[]>> {
  const catalog = new ProjectionCatalog(db);
  const out: Record<string, unknown[]> = {};
  for (const n of ProjectionNames) out[n] = await db.collection(await catalog.activeName(n)).find({}).sort({ _id: 1 }).toArray();
  return out;
}

/**
 * Rebuilds every projection from the log with the replay CLI (fresh collections, then swapped in) and
 * compares them with the live ones taken just before: a projection that skipped or doubled an event differs.
 */
export async function verifyProjectionsEqualReplay(db: Db, env: Record<string, string>): Promise<{ differences: string[]; documents: number }> {
  const live = await snapshot(db);
  await run(process.execPath, [join(ROOT, 'services/projector/dist/cli/replay.js')], {
    env: { ...process.env, ...env, LOG_LEVEL: 'warn' },
    maxBuffer: 64 * 1024 * 1024,
    timeout: 600000,
  });
  const rebuilt = await snapshot(db);
  const differences: string[] = [];
  let documents = 0;
  for (const n of ProjectionNames) {
    const a = live[n]!;
    const b = rebuilt[n]!;
    documents += a.length;
    if (a.length !== b.length) differences.push(`${n}: ${a.length} live documents, ${b.length} after replay`);
    const ids = new Set(a.map((d) => String((d as { _id: unknown })._id)));
    for (const doc of b) if (!ids.has(String((doc as { _id: unknown })._id))) differences.push(`${n}: ${String((doc as { _id: unknown })._id)} only after replay`);
    const bById = new Map(b.map((d) => [String((d as { _id: unknown })._id), canonical(d)]));
    for (const doc of a) {
      const id = String((doc as { _id: unknown })._id);
      const other = bById.get(id);
      if (other === undefined) differences.push(`${n}: ${id} missing after replay`);
      else if (other !== canonical(doc)) differences.push(`${n}: ${id} differs`);
    }
  }
  return { differences: differences.slice(0, 50), documents };
}
