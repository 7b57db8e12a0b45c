import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Db } from 'mongodb';
import type { Logger } from '@crs/runtime';
import type { Messaging } from '@crs/messaging';
import type { CustomerEvent, OperationTopicEvent } from '@crs/contracts';
import {
  CommunicationKeyLookup,
  ProjectionCatalog,
  communicationEventsOf,
  type CommunicationEventsDoc,
} from '@crs/store';
import { ROOT, type TestCluster, type TestReceiver } from '@crs/testing';
import { runLoad, type LoadOptions, type RequestRecord } from './load';
import {
  byCorrelation,
  complete,
  verifyAssessments,
  verifyCallbacks,
  verifyLog,
  verifyProjectionsEqualReplay,
  verifyScreening,
  LogTail,
} from './checks';
import { OperationsDriver, operationsSettled, verifyOperations, type OperationRecord } from './operations';
import { writeResult, type ScenarioResult } from './results';

export interface Harness {
  mode: string;
  /** The services' namespace: their logs are .local/logs/<namespace>-<service>.log. */
  namespace: string;
  cluster: TestCluster;
  receiver: TestReceiver;
  token: string;
  db: Db;
  /** The callback service's own database (its delivery log). */
  callbackDb: Db;
  messaging: Messaging;
  logger: Logger;
  /** Settings the replay CLI needs to address this namespace on the fault stack. */
  replayEnv: Record<string, string>;
  /** Bound for the system to settle after the load (all events, projections and callbacks). */
  settleMs: number;
  /** Which events the receiver is subscribed to (the endpoint's eventTypes). */
  routed: (e: CustomerEvent) => boolean;
  /** Upstream operations per scenario (half of them archived through the ingress while the faults happen); 0 = none. */
  operations: number;
  /** The token subject an archive is recorded with (OperationArchived.requestedBy). */
  requestedBy: string;
}

/** What a fault schedule can wait for and report. */
export interface FaultControl {
  /** Resolves once this many requests were accepted (200). */
  acceptedAtLeast(n: number): Promise<void>;
  /** Records one injected fault (shown in the summary) with the time since the scenario began. */
  injected(what: string): void;
  elapsedSeconds(): number;
}

export interface ScenarioSpec {
  name: string;
  load: Omit<LoadOptions, 'faultsDone' | 'onAccepted'>;
  faults: (ctl: FaultControl) => Promise<void>;
  /** Extra end-state checks of the scenario; returns problems. */
  extraChecks?: () => Promise<string[]>;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Polls `probe` every `intervalMs` until it holds or the deadline passes. Settling looks once a second
 * and cheaply (the log is tailed, the projection is probed by _id): on FerretDB v1 (SQLite) a count is
 * a scan that competes with the projector it waits for.
 */
async function settled(
  probe: () => Promise<boolean>,
  deadline: number,
  intervalMs: number,
): Promise<boolean> {
  for (;;) {
    try {
      if (await probe()) return true;
    } catch {
      // A store or broker that is still coming back: look again.
    }
    if (Date.now() + intervalMs > deadline) return false;
    await sleep(intervalMs);
  }
}

/** Answers a client saw with a status outside `expected`, and 503 answers without Retry-After. */
function answerProblems(
  what: string,
  byStatus: Record<string, number>,
  expected: string[],
  clients: { statuses: number[]; retryAfterSeen: number }[],
): string[] {
  const problems = Object.entries(byStatus)
    .filter(([s]) => !expected.includes(s))
    .map(([s, n]) => `${n} ${what} with status ${s}`);
  const without = clients.reduce(
    (n, r) => n + r.statuses.filter((s) => s === 503).length - r.retryAfterSeen,
    0,
  );
  if (without > 0) problems.push(`${without} ${what} 503 without Retry-After`);
  return problems;
}

/** Pids of the namespace's service processes, from services.cjs's pid files (a restart changes them). */
export function servicePids(namespace: string, names: readonly string[]): Record<string, number | undefined> {
  const out: Record<string, number | undefined> = {};
  for (const name of names) {
    try {
      const pid = Number(readFileSync(join(ROOT, '.local', 'run', `svc-${namespace}-${name}.pid`), 'utf8'));
      process.kill(pid, 0);
      out[name] = pid;
    } catch {
      out[name] = undefined;
    }
  }
  return out;
}

/**
 * The consumer batches a service of the namespace reported stalled since `sinceMs` (`CONSUMER_BATCH_STALLED`
 * in its log, decision 0087): one line each, with the service, group, phase, partition and offset. Nothing
 * restarts a service here, so a stall would otherwise show only as a settle bound missed.
 */
export function stalledBatches(namespace: string, sinceMs: number): string[] {
  const dir = join(ROOT, '.local', 'logs');
  const found: string[] = [];
  for (const file of readdirSync(dir).filter((f) => f.startsWith(`${namespace}-`) && f.endsWith('.log'))) {
    for (const line of readFileSync(join(dir, file), 'utf8').split('\n')) {
      if (!line.includes('CONSUMER_BATCH_STALLED')) continue;
      try {
        const e = JSON.parse(line) as Record<string, unknown>;
        if (e.code !== 'CONSUMER_BATCH_STALLED' || Date.parse(String(e.time)) < sinceMs) continue;
        found.push(
          `${file.slice(namespace.length + 1, -4)}: a batch of ${String(e.groupId)} stalled in "${String(e.phase)}" (partition ${String(e.partition)}, offset ${String(e.offset)})`,
        );
      } catch {
        // A line cut by a crash: not a report.
      }
    }
  }
  return found;
}

/**
 * Runs the load and the fault schedule side by side, waits (bounded) until the system has settled,
 * then checks the end state request by request and writes the scenario's figures for the summary.
 */
export async function runScenario(h: Harness, spec: ScenarioSpec): Promise<ScenarioResult> {
  const started = Date.now();
  const faults: string[] = [];
  const waiters: { n: number; resolve: () => void }[] = [];
  let acceptedNow = 0;
  const faultListeners: (() => void)[] = [];
  const ctl: FaultControl = {
    acceptedAtLeast: (n) =>
      n <= acceptedNow ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ n, resolve })),
    injected: (what) => {
      faults.push(`${what} at ${ctl.elapsedSeconds()}s`);
      for (const l of faultListeners) l();
    },
    elapsedSeconds: () => Math.round((Date.now() - started) / 100) / 10,
  };
  let faultError: unknown;
  const faultsDone = spec.faults(ctl).catch((err: unknown) => {
    faultError = err;
  });
  const ops = new OperationsDriver(
    h.cluster,
    h.messaging,
    h.token,
    h.logger,
    `${spec.name}-`,
    spec.load.giveUpAfterMs,
  );
  let opsError: unknown;
  const opsDone = driveOperations(
    ops,
    h.operations,
    spec.load.requests,
    ctl,
    (l) => faultListeners.push(l),
    faultsDone,
  ).catch((err: unknown) => {
    opsError = err;
  });
  const load = await runLoad(h.cluster, h.token, `${spec.name}-`, {
    ...spec.load,
    faultsDone,
    onAccepted: (n) => {
      acceptedNow = n;
      for (const w of waiters.splice(0)) {
        if (w.n <= n) w.resolve();
        else waiters.push(w);
      }
    },
  });
  // A schedule still waiting for a progress mark the load can no longer reach is released.
  for (const w of waiters.splice(0)) w.resolve();
  await faultsDone;
  await opsDone;
  await ops.close();
  const problems: string[] = [];
  if (faultError) problems.push(`fault schedule failed: ${String(faultError)}`);
  if (opsError) problems.push(`operations schedule failed: ${String(opsError)}`);

  // Settle: every request that reached the log has its complete set (the reactors answered), the
  // projector has applied all of them, and the receiver has every callback; then the checks.
  const settleDeadline = Date.now() + h.settleMs;
  // The customer and operation event logs, tailed while the scenario settles and checks.
  const logTail = new LogTail<CustomerEvent>(
    h.messaging,
    h.logger,
    h.messaging.topics.customerEvents,
    `${h.cluster.namespace}.fault-reader`,
  );
  const opTail = new LogTail<OperationTopicEvent>(
    h.messaging,
    h.logger,
    h.messaging.topics.operationEvents,
    `${h.cluster.namespace}.fault-op-reader`,
  );
  await logTail.start();
  await opTail.start();
  try {
    return await settleAndCheck(h, spec, {
      started,
      faults,
      records: load.records,
      byStatus: load.byStatus,
      httpRequests: load.httpRequests,
      ops,
      problems,
      settleDeadline,
      logTail,
      opTail,
    });
  } finally {
    await logTail.stop();
    await opTail.stop();
  }
}

async function settleAndCheck(
  h: Harness,
  spec: ScenarioSpec,
  s: {
    started: number;
    faults: string[];
    records: RequestRecord[];
    byStatus: Record<string, number>;
    httpRequests: number;
    ops: OperationsDriver;
    problems: string[];
    settleDeadline: number;
    logTail: LogTail<CustomerEvent>;
    opTail: LogTail<OperationTopicEvent>;
  },
): Promise<ScenarioResult> {
  const { started, faults, records, ops, problems, settleDeadline } = s;
  const load = { byStatus: s.byStatus, httpRequests: s.httpRequests };
  const accepted = records.filter((r) => r.accepted);
  let log: CustomerEvent[] = [];
  const logSettled = await settled(
    async () => {
      log = await s.logTail.read();
      const grouped = byCorrelation(log);
      return records.every((r) =>
        r.accepted
          ? complete(r, grouped.get(r.comm))
          : !grouped.has(r.comm) || complete(r, grouped.get(r.comm)),
      );
    },
    settleDeadline,
    1000,
  );
  if (!logSettled) problems.push('the log did not settle in time (incomplete event sets)');

  const comms = records.map((r) => r.comm);
  const commSet = new Set(comms);
  const ours = log.filter((e) => commSet.has(e.correlationId));
  // The projector applies each partition in order: it has caught up once the last event of every
  // partition is in communication_events (folded per communication: decision 0050, so looked up by its
  // communication, by the key its documents' _ids start with: decision 0065, an index range on both stores).
  const events = await new ProjectionCatalog(h.db).collection<CommunicationEventsDoc>('communication_events');
  const lookup = new CommunicationKeyLookup();
  const lastEvents = s.logTail.lastPerPartition();
  const projected = await settled(
    async () => {
      const comms = [...new Set(lastEvents.map((e) => e.correlationId))];
      const docs = (
        await Promise.all(comms.map(async (c) => events.find(await lookup.filter(events, c)).toArray()))
      ).flat();
      const there = new Set(communicationEventsOf(docs).map((e) => e.eventId));
      return lastEvents.every((e) => there.has(e.eventId));
    },
    settleDeadline,
    1000,
  );
  if (!projected) problems.push('the projector did not catch up in time');
  // A chunk's history documents can land before the bulk write of its customers ends (the projector
  // writes both at once): the live read is taken only once every customer document also carries the
  // version of its stream's last event. Streams with rejected commands only have no document.
  const lastVersion = new Map<string, number>();
  const hasDocument = new Set<string>();
  for (const e of ours) {
    lastVersion.set(e.streamId, Math.max(lastVersion.get(e.streamId) ?? 0, e.streamVersion));
    if (e.type !== 'CustomerCommandRejected') hasDocument.add(e.streamId);
  }
  const customers = await new ProjectionCatalog(h.db).collection<{ _id: string; version?: number }>(
    'customers',
  );
  const customersProjected = await settled(
    async () => {
      const at = new Map(
        (await customers.find({}, { projection: { version: 1 } }).toArray()).map((d) => [
          d._id,
          d.version ?? 0,
        ]),
      );
      return [...hasDocument].every((stream) => (at.get(stream) ?? -1) >= lastVersion.get(stream)!);
    },
    settleDeadline,
    1000,
  );
  if (!customersProjected) problems.push('the customer documents did not reach their last event in time');

  const acceptedIds = new Set(accepted.map((r) => r.comm));
  const wantedCallbacks = new Set(
    ours.filter((e) => acceptedIds.has(e.correlationId) && h.routed(e)).map((e) => e.eventId),
  );
  const called = await settled(
    async () => {
      const got = new Set(h.receiver.accepted.map((c) => String(c.headers['ce-id'])));
      return [...wantedCallbacks].every((id) => got.has(id));
    },
    settleDeadline,
    200,
  );
  if (!called) problems.push('not every callback arrived in time');

  const opsSettled = await settled(() => operationsSettled(h.db, ops.records), settleDeadline, 1000);
  if (!opsSettled) problems.push('the operations read model did not settle in time');

  const logVerdict = verifyLog(records, log);
  problems.push(...logVerdict.problems.slice(0, 20));
  if (logVerdict.duplicateEventIds > 0)
    problems.push(`${logVerdict.duplicateEventIds} event ids occur twice in the log`);
  // One read of the live read models (just before the replay rebuilds them) serves the replay
  // comparison and the per-request checks of assessments and screenings.
  const replay = await verifyProjectionsEqualReplay(h.db, h.replayEnv);
  problems.push(...replay.differences.slice(0, 20));
  problems.push(...verifyAssessments(replay.live.assessments, records).slice(0, 20));
  const cb = await verifyCallbacks(h.callbackDb, h.receiver, records, log, h.routed);
  problems.push(...cb.problems.slice(0, 20));
  if (cb.missing > 0) problems.push(`${cb.missing} callbacks of accepted requests never arrived`);
  if (cb.unknown > 0) problems.push(`${cb.unknown} callbacks for events not in the log`);
  const screening = verifyScreening(replay.live.screenings, records, log);
  problems.push(...screening.problems.slice(0, 20));
  const opLog = await s.opTail.read();
  const opVerdict = await verifyOperations(h.db, ops.records, opLog, h.requestedBy);
  problems.push(...opVerdict.problems.slice(0, 20));
  const opFigures = ops.figures();
  const archiveClients = ops.records.map((r) => ({
    statuses: r.archiveStatuses,
    retryAfterSeen: r.retryAfterSeen,
  }));
  problems.push(
    ...answerProblems('archive answers', opFigures.statuses, ['200', '404', '503'], archiveClients),
  );
  const notArchived = ops.records.filter((r) => r.archive && !r.archived).length;
  if (notArchived > 0)
    problems.push(`${notArchived} operations never archived within the client's retry budget`);
  const unpublished = ops.records.filter((r) => !r.published).length;
  if (unpublished > 0) problems.push(`${unpublished} operations never acknowledged by the broker`);
  if (spec.extraChecks) problems.push(...(await spec.extraChecks()));
  problems.push(...stalledBatches(h.namespace, started).slice(0, 20));

  // The client side: only 200 and 503 (with Retry-After) are expected answers under these faults.
  problems.push(...answerProblems('answers', load.byStatus, ['200', '503'], records));
  const used = records.filter((r) => r.usedAfterRetry).length;
  if (used > 0)
    problems.push(`${used} retries refused as "communication number already used" (reservation left behind)`);
  const gaveUp = records.filter((r) => !r.accepted).length;
  if (gaveUp > 0) problems.push(`${gaveUp} requests never accepted within the client's retry budget`);

  // Each check counts in its own unit: requests, callbacks, screening results, operations.
  const lost = logVerdict.lost.length + cb.missing + screening.missing + opVerdict.lost;
  const doubled =
    logVerdict.doubled.length +
    logVerdict.duplicateEventIds +
    cb.doubled +
    screening.doubled +
    opVerdict.doubled;
  const result: ScenarioResult = {
    scenario: spec.name,
    mode: h.mode,
    passed: problems.length === 0 && lost === 0 && doubled === 0,
    seconds: Math.round((Date.now() - started) / 1000),
    requests: records.length,
    httpRequests: load.httpRequests,
    accepted: accepted.length,
    statuses: load.byStatus,
    faults,
    lost,
    doubled,
    doneWithout200: logVerdict.doneWithout200,
    callbacks: {
      distinct: cb.distinctAccepted,
      missing: cb.missing,
      doubled: cb.doubled,
      redeliveredAfterCrashWindow: cb.redeliveredAfterCrashWindow,
    },
    screening: {
      customers: screening.customers,
      results: screening.results,
      hits: screening.hits,
      missing: screening.missing,
      doubled: screening.doubled,
      wrong: screening.wrong,
    },
    operations: {
      sent: ops.records.length,
      archived: opVerdict.archived,
      httpRequests: opFigures.httpRequests,
      statuses: opFigures.statuses,
      lost: opVerdict.lost,
      doubled: opVerdict.doubled,
      documents: opVerdict.documents,
    },
    projectionDocuments: replay.documents,
    projectionCounts: replay.perProjection,
    projectionDifferences: replay.differences.length,
    problems,
  };
  writeResult(result);
  return result;
}

/**
 * The operations schedule of a scenario: half of the operations are published at once, the other half
 * once a third of the requests were accepted (each twice: an upstream redelivery); every other one is
 * archived, one right after each injected fault (a service just killed, the broker or the database
 * just stopped, the receiver failing), the rest once the faults are over; every second archive is
 * requested twice.
 */
async function driveOperations(
  ops: OperationsDriver,
  count: number,
  requests: number,
  ctl: FaultControl,
  onFault: (listener: () => void) => void,
  faultsDone: Promise<unknown>,
): Promise<void> {
  if (count <= 0) return;
  const queue: OperationRecord[] = [];
  const archives: Promise<void>[] = [];
  let n = 0;
  const archiveNext = () => {
    const rec = queue.shift();
    if (rec) archives.push(ops.archive(rec, n++ % 2 === 1));
  };
  onFault(archiveNext);
  const enqueue = (batch: OperationRecord[]) => queue.push(...batch.filter((r) => r.archive && r.published));
  const firstHalf = Math.ceil(count / 2);
  enqueue(await ops.publish(firstHalf));
  await ctl.acceptedAtLeast(Math.floor(requests / 3));
  enqueue(await ops.publish(count - firstHalf));
  await faultsDone;
  while (queue.length > 0) archiveNext();
  await Promise.all(archives);
}
