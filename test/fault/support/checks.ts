import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Db, Document } from 'mongodb';
import type { Logger } from '@crs/runtime';
import { StreamReader, type Messaging } from '@crs/messaging';
import type { CustomerEvent } from '@crs/contracts';
import {
  CustomerProjectionNames,
  OwnedCollections,
  projectionContents,
  ProjectionCatalog,
  type CustomerProjectionName,
} from '@crs/store';
import { ROOT, type TestReceiver } from '@crs/testing';
import type { RequestRecord } from './load';

const run = promisify(execFile);

/**
 * The events one accepted new-customer import must leave in the log: the import's own decision in
 * order (`decided`), then the reactors' answers in any order (`answered`: the assessment of an
 * EVALUATE import, one screening result per requested list).
 */
function expectedEvents(rec: RequestRecord): { decided: string[]; answered: string[] } {
  const screen = rec.screening ? rec.screening.lists.map(() => 'ScreeningCompleted') : [];
  const requested = rec.screening ? ['ScreeningRequested'] : [];
  return rec.kind === 'IMPORT'
    ? {
        decided: ['CustomerCreated', 'CustomerStatusChanged', 'RiskAssessed', ...requested],
        answered: screen,
      }
    : {
        decided: ['CustomerCreated', 'CustomerStatusChanged', 'RiskEvaluationRequested', ...requested],
        answered: ['RiskAssessed', ...screen],
      };
}

const expectedCount = (rec: RequestRecord) => {
  const e = expectedEvents(rec);
  return e.decided.length + e.answered.length;
};

/**
 * A topic of the namespace read from its beginning by one reader (committed messages only) that keeps
 * tailing it while a scenario settles and checks, so that settling never re-reads the whole log. A
 * message the reader sees again after it restarted itself (a broker outage) counts once: it is the
 * same partition and offset.
 */
export class LogTail<T> {
  private readonly seen = new Set<string>();
  private readonly events: T[] = [];
  private readonly lastByPartition = new Map<number, T>();
  private readonly reader: StreamReader<T>;

  constructor(messaging: Messaging, logger: Logger, topic: string, groupPrefix: string) {
    this.reader = new StreamReader<T>({
      kafka: messaging.kafka,
      serde: messaging.serde,
      logger,
      topic,
      groupPrefix,
      onMessage: (m) => {
        const key = `${m.partition}:${m.offset}`;
        if (this.seen.has(key)) return;
        this.seen.add(key);
        this.events.push(m.value);
        this.lastByPartition.set(m.partition, m.value);
      },
    });
  }

  start(): Promise<void> {
    return this.reader.start();
  }

  /** Everything committed to the topic up to now, in log order per partition. */
  async read(): Promise<T[]> {
    await this.reader.waitUntilCaughtUp();
    return [...this.events];
  }

  /** The last message read from each partition (as of the last `read`). */
  lastPerPartition(): T[] {
    return [...this.lastByPartition.values()];
  }

  stop(): Promise<void> {
    return this.reader.stop();
  }
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
  return (events?.length ?? 0) >= expectedCount(rec);
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
  const verdict: LogVerdict = {
    lost: [],
    doubled: [],
    doneWithout200: 0,
    duplicateEventIds: 0,
    problems: [],
  };
  const seen = new Set<string>();
  for (const e of log) {
    if (seen.has(e.eventId)) verdict.duplicateEventIds++;
    seen.add(e.eventId);
  }
  for (const rec of records) {
    const events = grouped.get(rec.comm) ?? [];
    const types = events.map((e) => e.type);
    const { decided, answered } = expectedEvents(rec);
    const expected = [...decided, ...answered];
    if (events.length === 0) {
      if (rec.accepted) verdict.lost.push(rec.comm);
      continue;
    }
    if (!rec.accepted) verdict.doneWithout200++;
    const versions = events.map((e) => e.streamVersion);
    const assessed = events.filter((e) => e.type === 'RiskAssessed');
    const perList = new Map<string, number>();
    for (const e of events)
      if (e.type === 'ScreeningCompleted') perList.set(e.data.list, (perList.get(e.data.list) ?? 0) + 1);
    const sorted = (a: string[]) => [...a].sort().join(',');
    if (
      events.length > expected.length ||
      assessed.length > 1 ||
      [...perList.values()].some((n) => n > 1) ||
      new Set(events.map((e) => e.streamId)).size > 1
    ) {
      verdict.doubled.push(rec.comm);
      verdict.problems.push(`${rec.comm}: doubled: ${types.join(',')}`);
    } else if (
      types.slice(0, decided.length).join(',') !== decided.join(',') ||
      sorted(types.slice(decided.length)) !== sorted(answered) ||
      versions.join(',') !== expected.map((_, i) => i + 1).join(',')
    ) {
      if (rec.accepted) verdict.lost.push(rec.comm);
      verdict.problems.push(
        `${rec.comm}: expected ${decided.join(',')} then {${answered.join(',')}} at 1..${expected.length}, got ${types.join(',')} at ${versions.join(',')}`,
      );
    } else {
      const source = (assessed[0]!.data as { assessment: { source: string } }).assessment.source;
      if (source !== rec.kind)
        verdict.problems.push(`${rec.comm}: assessment source ${source}, expected ${rec.kind}`);
    }
  }
  return verdict;
}

export interface ScreeningVerdict {
  /** Accepted imports that asked for screening. */
  customers: number;
  /** Screening results (ScreeningCompleted) checked against their expected outcome. */
  results: number;
  /** Of those, the known hits found on their list with the expected entry. */
  hits: number;
  /** Requested lists of accepted imports without a result in the log. */
  missing: number;
  /** Requested lists with more than one result (or more than one screening request per import). */
  doubled: number;
  /** Results whose outcome is wrong: a known hit without its entry, a clean name with a match. */
  wrong: number;
  problems: string[];
}

interface ScreeningDoc {
  _id: string;
  communicationNumber: string;
  list: string;
  matched: boolean;
  hits: { source: string; entryId: string }[];
}

/**
 * Customer by customer, for every import that asked for screening: exactly one screening request and
 * exactly one result per requested list in the log (none after a kill or an outage twice), the known
 * hits matched on their list with the expected entry, every other requested list (and every clean
 * name) without a match, and the screenings read model (`docs`, the live documents) holding that one
 * result per list.
 */
export function verifyScreening(
  docs: Document[],
  records: RequestRecord[],
  log: CustomerEvent[],
): ScreeningVerdict {
  const v: ScreeningVerdict = {
    customers: 0,
    results: 0,
    hits: 0,
    missing: 0,
    doubled: 0,
    wrong: 0,
    problems: [],
  };
  const screened = records.filter((r) => r.screening);
  const grouped = byCorrelation(log);
  const docsOf = new Map<string, ScreeningDoc[]>();
  for (const d of docs as ScreeningDoc[])
    docsOf.set(d.communicationNumber, [...(docsOf.get(d.communicationNumber) ?? []), d]);
  for (const rec of screened) {
    const events = grouped.get(rec.comm) ?? [];
    if (!rec.accepted && events.length === 0) continue;
    const profile = rec.screening!;
    if (rec.accepted) v.customers++;
    const requests = events.filter((e) => e.type === 'ScreeningRequested');
    if (requests.length > 1) {
      v.doubled += requests.length - 1;
      v.problems.push(`${rec.comm}: ${requests.length} screening requests`);
    }
    const results = events.filter(
      (e): e is Extract<CustomerEvent, { type: 'ScreeningCompleted' }> => e.type === 'ScreeningCompleted',
    );
    for (const r of results) {
      if (!profile.lists.includes(r.data.list))
        v.problems.push(`${rec.comm}: a result for ${r.data.list}, which it never asked for`);
    }
    for (const list of profile.lists) {
      const mine = results.filter((r) => r.data.list === list);
      if (mine.length === 0) {
        if (rec.accepted) v.missing++;
        v.problems.push(`${rec.comm} (${profile.id}): no ${list} screening result in the log`);
        continue;
      }
      if (mine.length > 1) {
        v.doubled += mine.length - 1;
        v.problems.push(`${rec.comm} (${profile.id}): ${mine.length} ${list} screening results`);
      }
      const result = mine[0]!;
      v.results++;
      if (profile.hit?.list === list) {
        const own = result.data.hits.find(
          (h) => h.source === profile.hit!.source && h.entryId === profile.hit!.entryId,
        );
        if (result.data.matched && own && (own.subject ?? 'CUSTOMER') === 'CUSTOMER') v.hits++;
        else {
          v.wrong++;
          v.problems.push(
            `${rec.comm} (${profile.id}): ${list} matched=${result.data.matched} without ${profile.hit.source} ${profile.hit.entryId} among ${result.data.hits.length} hits`,
          );
        }
      } else if (result.data.matched || result.data.hits.length > 0) {
        v.wrong++;
        v.problems.push(
          `${rec.comm} (${profile.id}): ${list} should be clean, got ${result.data.hits.map((h) => `${h.source}:${h.entryId}`).join(',')}`,
        );
      }
      // The read model holds that one result (its document id is the event id).
      const projected = (docsOf.get(rec.comm) ?? []).filter((d) => d.list === list);
      if (
        projected.length !== mine.length ||
        projected[0]?._id !== result.eventId ||
        projected[0]?.matched !== result.data.matched
      ) {
        v.problems.push(
          `${rec.comm} (${profile.id}): ${projected.length} ${list} documents in the screenings read model for ${mine.length} results`,
        );
      }
    }
  }
  return v;
}

/** Exactly one assessment document per request in the projection (`docs`, the live documents), with the level source it asked for. */
export function verifyAssessments(docs: Document[], records: RequestRecord[]): string[] {
  const byComm = new Map<string, string[]>();
  for (const d of docs)
    byComm.set(String(d.communicationNumber), [
      ...(byComm.get(String(d.communicationNumber)) ?? []),
      String(d.source),
    ]);
  const problems: string[] = [];
  for (const rec of records) {
    const got = byComm.get(rec.comm) ?? [];
    if (rec.accepted && (got.length !== 1 || got[0] !== rec.kind))
      problems.push(`${rec.comm}: assessments ${JSON.stringify(got)}, expected ["${rec.kind}"]`);
    if (!rec.accepted && got.length > 1)
      problems.push(`${rec.comm}: ${got.length} assessments for a request never accepted`);
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
  /** The callback service's database (its delivery log). */
  callbackDb: Db,
  receiver: TestReceiver,
  records: RequestRecord[],
  log: CustomerEvent[],
  routed: (e: CustomerEvent) => boolean,
): Promise<CallbackVerdict> {
  const comms = new Set(records.map((r) => r.comm));
  const acceptedComms = new Set(records.filter((r) => r.accepted).map((r) => r.comm));
  const expected = new Set(
    log.filter((e) => acceptedComms.has(e.correlationId) && routed(e)).map((e) => e.eventId),
  );
  const allEvents = new Set(log.map((e) => e.eventId));
  const counts = new Map<string, number>();
  for (const cb of receiver.accepted) {
    if (!comms.has(String(cb.headers['ce-source']))) continue;
    const id = String(cb.headers['ce-id']);
    counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  const verdict: CallbackVerdict = {
    missing: 0,
    doubled: 0,
    redeliveredAfterCrashWindow: 0,
    unknown: 0,
    distinctAccepted: counts.size,
    problems: [],
  };
  for (const id of expected) if (!counts.has(id)) verdict.missing++;
  for (const id of counts.keys()) if (!allEvents.has(id)) verdict.unknown++;
  const repeated = [...counts].filter(([, n]) => n > 1);
  if (repeated.length > 0) {
    const deliveries = callbackDb.collection<{ eventId: string; log: { status: number | null }[] }>(
      OwnedCollections.deliveries,
    );
    const docs = await deliveries.find({ eventId: { $in: repeated.map(([id]) => id) } }).toArray();
    const recorded = new Map(
      docs.map((d) => [
        d.eventId,
        d.log.filter((a) => a.status !== null && a.status >= 200 && a.status < 300).length,
      ]),
    );
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
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
        )
      : v,
  );
}

export type Projections = Record<CustomerProjectionName, Document[]>;

/**
 * Live read models, sorted, per projection the replay rebuilds: customers, assessments, screenings,
 * communication_events (its events, one entry per event id). (operations and alerts belong to the archive service and its own log: see
 * verifyOperations.)
 */
async function snapshot(db: Db): Promise<Projections> {
  const names = await new ProjectionCatalog(db).customerProjections();
  // communication_events documents fold the events one write saw (decision 0050): the live projector's
  // chunks and the replay's windows cut them differently, so what is compared is every event, once.
  return projectionContents(db, names);
}

/**
 * Rebuilds every projection from the log with the replay CLI (fresh collections, then swapped in) and
 * compares them with the live ones taken just before: a projection that skipped or doubled an event
 * differs. Returns the live documents too (the per-request checks read them instead of the store again).
 */
export async function verifyProjectionsEqualReplay(
  db: Db,
  env: Record<string, string>,
): Promise<{
  live: Projections;
  differences: string[];
  documents: number;
  perProjection: Record<string, number>;
}> {
  const live = await snapshot(db);
  await run(process.execPath, [join(ROOT, 'services/projector/dist/cli/replay.js')], {
    env: { ...process.env, ...env, LOG_LEVEL: 'warn' },
    maxBuffer: 64 * 1024 * 1024,
    timeout: 600000,
  });
  const rebuilt = await snapshot(db);
  const differences: string[] = [];
  let documents = 0;
  const perProjection: Record<string, number> = {};
  for (const n of CustomerProjectionNames) {
    const a = live[n];
    const b = rebuilt[n];
    documents += a.length;
    perProjection[n] = a.length;
    if (a.length !== b.length) differences.push(`${n}: ${a.length} live documents, ${b.length} after replay`);
    const ids = new Set(a.map((d) => String((d as { _id: unknown })._id)));
    for (const doc of b)
      if (!ids.has(String((doc as { _id: unknown })._id)))
        differences.push(`${n}: ${String((doc as { _id: unknown })._id)} only after replay`);
    const bById = new Map(b.map((d) => [String((d as { _id: unknown })._id), canonical(d)]));
    for (const doc of a) {
      const id = String((doc as { _id: unknown })._id);
      const other = bById.get(id);
      if (other === undefined) differences.push(`${n}: ${id} missing after replay`);
      else if (other !== canonical(doc)) {
        // Versions only: the documents carry personal data.
        const version = (d: unknown) => (d as { version?: unknown } | undefined)?.version ?? '-';
        const replayed = b.find((d) => String((d as { _id: unknown })._id) === id);
        differences.push(`${n}: ${id} differs (version live ${version(doc)}, replay ${version(replayed)})`);
      }
    }
  }
  return { live, differences: differences.slice(0, 50), documents, perProjection };
}
