#!/usr/bin/env node
// Decider restart over a long customer event log, with and without state snapshots (decision 0016).
//
//   node test/bench/decider-restart.mjs            (RESTART_EVENTS=200000 by default; needs a build)
//
// In a throw-away topic prefix on the local stack: writes RESTART_EVENTS synthetic customer events
// (decided from ImportSimplifiedCustomer commands by the decider shell's own core, so they are exactly
// what the decider writes) straight into the events topic, then starts the decider in this process:
//   1. snapshots off: the full fold (today's restart);
//   2. snapshots on, none written yet: full fold, then a few commands per partition let the decider
//      write the snapshots of every folded state (the one-off cost, SNAPSHOT_MAX_PER_TRANSACTION
//      states per transaction);
//   3. snapshots on: the restart reads the snapshots and folds only the tail;
// then RESTART_COMMANDS queued commands drained with snapshots off and on (the cost on the hot path).
// Times are from start() called to start() resolved (the decider is ready to decide).
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import path from 'node:path';
import { serviceMetric, stackEnv, waitUntil } from './stack.mjs';

const require = createRequire(import.meta.url);
const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');
const { DeciderCore, setUpMessaging } = require(path.join(ROOT, 'packages/messaging/dist/index.js'));
const { createLogger } = require(path.join(ROOT, 'packages/runtime/dist/index.js'));
const { buildCustomerService } = require(path.join(ROOT, 'services/customer/dist/app.js'));
const { loadCustomerConfig } = require(path.join(ROOT, 'services/customer/dist/config.js'));
const { decider } = require(path.join(ROOT, 'services/customer/dist/domain/decider.js'));
const { commandDecision, customerEventFields, customerEventHeaders } = require(
  path.join(ROOT, 'services/customer/dist/command-decision.js'),
);

const EVENTS = Number(process.env.RESTART_EVENTS ?? 200000);
const COMMANDS = Number(process.env.RESTART_COMMANDS ?? 3000);
const PARTITIONS = Number(process.env.TOPIC_PARTITIONS ?? 6);
const run = Date.now().toString(36);
const prefix = `bench-restart-${run}.`;
const env = { ...process.env, ...stackEnv(), TOPIC_PREFIX: prefix, TOPIC_PARTITIONS: String(PARTITIONS) };
const logger = createLogger('decider-restart-bench', 'error');
const serviceLogger = createLogger('customer', process.env.RESTART_LOG_LEVEL ?? 'error');
const NOW = new Date().toISOString();

const messaging = await setUpMessaging(loadCustomerConfig(env), 'decider-restart-bench', logger);
const { kafka, serde, topics } = messaging;
const admin = kafka.admin();
await admin.connect();
const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
await producer.connect();

let commandSeq = 0;
const command = (customerExtId, correlationId) => ({
  commandId: `bench-${run}-${++commandSeq}`,
  type: 'ImportSimplifiedCustomer',
  streamId: `BENCH:${customerExtId}`,
  issuedAt: NOW,
  correlationId,
  businessUnit: 'BENCH',
  customerExtId,
  data: {
    customer: { entityType: 'INDIVIDUAL', firstName: `First${customerExtId}`, lastName: 'Benchmark' },
  },
});

/** Synthetic history: customers imported 4 times each (a create and updates), as the decider decides. */
async function writeEvents() {
  const started = performance.now();
  let written = 0;
  let customer = 0;
  let batch = [];
  const flush = async () => {
    if (batch.length === 0) return;
    await producer.sendBatch({
      acks: -1,
      topicMessages: [{ topic: topics.customerEvents, messages: batch }],
    });
    batch = [];
  };
  while (written < EVENTS) {
    const id = `C${++customer}`;
    // The decider shell's own core decides and wraps the events; one per customer keeps one state in memory.
    const core = new DeciderCore({
      decider,
      eventsTopic: topics.customerEvents,
      now: () => NOW,
      eventFields: customerEventFields,
      eventHeaders: customerEventHeaders,
    });
    for (let n = 0; n < 4 && written < EVENTS; n++) {
      const c = command(id, `${id}-COMM-${n}`);
      const decided = core.decideBatch([commandDecision(c)], 0);
      core.committed(0);
      for (const m of decided) {
        batch.push({ key: m.key, value: await serde.encode(m.type, m.value), headers: { type: m.type } });
        written++;
      }
      if (batch.length >= 2000) await flush();
    }
  }
  await flush();
  return { written, customers: customer, seconds: (performance.now() - started) / 1000 };
}

const service = (snapshots, extra = {}) =>
  buildCustomerService(
    loadCustomerConfig({ ...env, HEALTH_PORT: '0', STATE_SNAPSHOTS: String(snapshots), ...extra }),
    serviceLogger,
  );

async function timedStart(snapshots, extra) {
  const s = service(snapshots, extra);
  const started = performance.now();
  await s.start();
  return { s, seconds: (performance.now() - started) / 1000 };
}

/** n commands: n/4 customers imported 4 times each, in rounds (as an import, then its reactors' answers). */
async function sendCommands(n, tag) {
  const messages = [];
  const customers = Math.max(1, Math.floor(n / 4));
  for (let i = 0; messages.length < n; i++) {
    const c = command(`${tag}-${i % customers}`, `${tag}-${i}-COMM`);
    messages.push({ key: c.streamId, value: await serde.encode(c.type, c), headers: { type: c.type } });
  }
  for (let i = 0; i < messages.length; i += 1000)
    await producer.sendBatch({
      acks: -1,
      topicMessages: [{ topic: topics.customerCommands, messages: messages.slice(i, i + 1000) }],
    });
}

/** Commands not yet consumed by the decider's group (its committed offsets against the topic's end). */
async function commandLag() {
  const ends = await admin.fetchTopicOffsets(topics.customerCommands);
  const [committed] = await admin.fetchOffsets({
    groupId: `${prefix}customer-decider`,
    topics: [topics.customerCommands],
  });
  let lag = 0;
  for (const e of ends) {
    const c = committed.partitions.find((p) => p.partition === e.partition);
    const at = c && Number(c.offset) >= 0 ? Number(c.offset) : Number(e.low);
    // A transactional consumer's offset stops one commit marker short of the end.
    lag += Math.max(0, Number(e.high) - at - 1);
  }
  return lag;
}

const result = {};
try {
  const w = await writeEvents();
  result.events = w.written;
  result.customers = w.customers;
  console.log(`wrote ${w.written} events of ${w.customers} customers in ${w.seconds.toFixed(1)} s`);

  let r = await timedStart(false);
  result.restart_full_fold_s = r.seconds;
  console.log(`1. restart, snapshots off (full fold): ${r.seconds.toFixed(1)} s`);
  await r.s.stop();

  // No interval here: the commands only drive transactions until every folded state is written.
  r = await timedStart(true, {
    SNAPSHOT_MAX_PER_TRANSACTION: process.env.SNAPSHOT_MAX_PER_TRANSACTION ?? '5000',
    SNAPSHOT_INTERVAL_MS: '0',
  });
  result.restart_first_with_snapshots_on_s = r.seconds;
  console.log(`2. restart, snapshots on, none yet: ${r.seconds.toFixed(1)} s; writing the snapshots...`);
  const bootstrap = performance.now();
  let round = 0;
  while ((await serviceMetric(r.s.healthPort(), 'state_snapshot_backlog')) > 0) {
    if (performance.now() - bootstrap > 180000) throw new Error('snapshots not all written in 180 s');
    await sendCommands(4 * PARTITIONS, `boot${++round}-`);
    await new Promise((res) => setTimeout(res, 200));
  }
  result.snapshot_bootstrap_s = (performance.now() - bootstrap) / 1000;
  console.log(
    `   every folded state snapshotted in ${result.snapshot_bootstrap_s.toFixed(1)} s (${round} rounds of commands)`,
  );
  await waitUntil(async () => (await commandLag()) === 0, 60000, 'bootstrap commands decided');
  await r.s.stop();

  r = await timedStart(true);
  result.restart_from_snapshots_s = r.seconds;
  console.log(`3. restart from snapshots: ${r.seconds.toFixed(1)} s`);
  await r.s.stop();

  // The cost on the hot path: the same number of queued commands drained with snapshots off and on,
  // twice each, alternating (the machine is shared and noisy).
  for (const [round, snapshots] of [false, true, false, true].entries()) {
    await sendCommands(COMMANDS, `drain${round}-`);
    const s = (await timedStart(snapshots)).s;
    const started = performance.now();
    await waitUntil(async () => (await commandLag()) === 0, 300000, 'commands drained');
    const perSecond = Math.round(COMMANDS / ((performance.now() - started) / 1000));
    const key = `drain_${COMMANDS}_commands_snapshots_${snapshots ? 'on' : 'off'}_per_s`;
    result[key] = [...(result[key] ?? []), perSecond];
    console.log(`drain ${COMMANDS} commands, snapshots ${snapshots ? 'on' : 'off'}: ${perSecond}/s`);
    await s.stop();
  }
  const snaps = await admin.fetchTopicOffsets(topics.customerStateSnapshots);
  result.snapshot_records = snaps.reduce((n, p) => n + Number(p.high) - Number(p.low), 0);
  console.log(JSON.stringify(result));
} finally {
  await producer.disconnect();
  const own = (await admin.listTopics()).filter((t) => t.startsWith(prefix));
  await admin.deleteTopics({ topics: own }).catch(() => undefined);
  await admin.disconnect();
}
process.exit(0);
