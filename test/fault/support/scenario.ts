import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Db } from 'mongodb';
import type { Logger } from '@crs/runtime';
import type { Messaging } from '@crs/messaging';
import type { CustomerEvent } from '@crs/contracts';
import { ProjectionCatalog } from '@crs/store';
import { ROOT, eventually, type TestCluster, type TestReceiver } from '@crs/testing';
import { runLoad, type LoadOptions } from './load';
import { byCorrelation, complete, readLog, verifyAssessments, verifyCallbacks, verifyLog, verifyProjectionsEqualReplay } from './checks';
import { writeResult, type ScenarioResult } from './results';

export interface Harness {
  mode: string;
  cluster: TestCluster;
  receiver: TestReceiver;
  token: string;
  db: Db;
  messaging: Messaging;
  logger: Logger;
  /** Settings the replay CLI needs to address this namespace on the fault stack. */
  replayEnv: Record<string, string>;
  /** Bound for the system to settle after the load (all events, projections and callbacks). */
  settleMs: number;
  /** Which events the receiver is subscribed to (the endpoint's eventTypes). */
  routed: (e: CustomerEvent) => boolean;
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
 * Runs the load and the fault schedule side by side, waits (bounded) until the system has settled,
 * then checks the end state request by request and writes the scenario's figures for the summary.
 */
export async function runScenario(h: Harness, spec: ScenarioSpec): Promise<ScenarioResult> {
  const started = Date.now();
  const faults: string[] = [];
  const waiters: { n: number; resolve: () => void }[] = [];
  let acceptedNow = 0;
  const ctl: FaultControl = {
    acceptedAtLeast: (n) =>
      n <= acceptedNow ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ n, resolve })),
    injected: (what) => {
      faults.push(`${what} at ${ctl.elapsedSeconds()}s`);
    },
    elapsedSeconds: () => Math.round((Date.now() - started) / 100) / 10,
  };
  let faultError: unknown;
  const faultsDone = spec.faults(ctl).catch((err: unknown) => {
    faultError = err;
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
  const problems: string[] = [];
  if (faultError) problems.push(`fault schedule failed: ${String(faultError)}`);
  const records = load.records;
  const accepted = records.filter((r) => r.accepted);

  // Settle: every request that reached the log has its complete set (the reactors answered), the
  // projector has applied all of them, and the receiver has every callback.
  const settleDeadline = Date.now() + h.settleMs;
  let log: CustomerEvent[] = [];
  const logSettled = await eventually(
    async () => {
      log = await readLog(h.messaging, h.logger, `${h.cluster.namespace}.fault-reader`);
      const grouped = byCorrelation(log);
      return records.every((r) => (r.accepted ? complete(r, grouped.get(r.comm)) : !grouped.has(r.comm) || complete(r, grouped.get(r.comm))));
    },
    Math.max(1000, settleDeadline - Date.now()),
    'complete event sets in the log',
  ).catch(() => false);
  if (!logSettled) problems.push('the log did not settle in time (incomplete event sets)');

  const comms = records.map((r) => r.comm);
  const commSet = new Set(comms);
  const ours = log.filter((e) => commSet.has(e.correlationId));
  const events = await new ProjectionCatalog(h.db).collection('communication_events');
  const projected = await eventually(
    async () => (await events.countDocuments({ communicationNumber: { $in: comms } })) >= ours.length,
    Math.max(1000, settleDeadline - Date.now()),
    'projection of every event',
  ).catch(() => false);
  if (!projected) problems.push('the projector did not catch up in time');

  const acceptedIds = new Set(accepted.map((r) => r.comm));
  const wantedCallbacks = new Set(ours.filter((e) => acceptedIds.has(e.correlationId) && h.routed(e)).map((e) => e.eventId));
  await eventually(
    async () => {
      const got = new Set(h.receiver.accepted.map((c) => String(c.headers['ce-id'])));
      return [...wantedCallbacks].every((id) => got.has(id));
    },
    Math.max(1000, settleDeadline - Date.now()),
    'every callback',
  ).catch(() => problems.push('not every callback arrived in time'));

  const logVerdict = verifyLog(records, log);
  problems.push(...logVerdict.problems.slice(0, 20));
  if (logVerdict.duplicateEventIds > 0) problems.push(`${logVerdict.duplicateEventIds} event ids occur twice in the log`);
  problems.push(...(await verifyAssessments(h.db, records)).slice(0, 20));
  const cb = await verifyCallbacks(h.db, h.receiver, records, log, h.routed);
  problems.push(...cb.problems.slice(0, 20));
  if (cb.missing > 0) problems.push(`${cb.missing} callbacks of accepted requests never arrived`);
  if (cb.unknown > 0) problems.push(`${cb.unknown} callbacks for events not in the log`);
  const replay = await verifyProjectionsEqualReplay(h.db, h.replayEnv);
  problems.push(...replay.differences.slice(0, 20));
  if (spec.extraChecks) problems.push(...(await spec.extraChecks()));

  // The client side: only 200 and 503 (with Retry-After) are expected answers under these faults.
  const unexpected = Object.entries(load.byStatus).filter(([s]) => s !== '200' && s !== '503');
  for (const [s, n] of unexpected) problems.push(`${n} answers with status ${s}`);
  const without = records.reduce((n, r) => n + r.statuses.filter((s) => s === 503).length - r.retryAfterSeen, 0);
  if (without > 0) problems.push(`${without} answers 503 without Retry-After`);
  const used = records.filter((r) => r.usedAfterRetry).length;
  if (used > 0) problems.push(`${used} retries refused as "communication number already used" (reservation left behind)`);
  const gaveUp = records.filter((r) => !r.accepted).length;
  if (gaveUp > 0) problems.push(`${gaveUp} requests never accepted within the client's retry budget`);

  const lost = logVerdict.lost.length + cb.missing;
  const doubled = logVerdict.doubled.length + logVerdict.duplicateEventIds + cb.doubled;
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
    callbacks: { distinct: cb.distinctAccepted, missing: cb.missing, doubled: cb.doubled, redeliveredAfterCrashWindow: cb.redeliveredAfterCrashWindow },
    projectionDocuments: replay.documents,
    projectionDifferences: replay.differences.length,
    problems,
  };
  writeResult(result);
  return result;
}
