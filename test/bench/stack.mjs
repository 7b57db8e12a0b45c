// Benchmarks on the local stack, in their own namespace ("bench"): single and batch import throughput
// and latency, accept-to-callback, decider and projector throughput on a backlog, replay speed.
// `size` is the number of customers the figures are measured at. Each phase imports `sample` customers
// (the size itself unless a smaller sample is asked for); when the sample is smaller than the size, the
// store is first filled to `size` customers through the whole pipeline (batch imports of a business unit
// of their own, BENCHLOAD, which has no callback endpoint), and the phases then run on top of it.
import { createRequire } from 'node:module';
import { createServer } from 'node:http';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { readFileSync, readlinkSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import path from 'node:path';
import { round, summarize } from './stats.mjs';
import { sampleCustomer } from './in-process.mjs';
import { post } from './http-client.mjs';

const require = createRequire(import.meta.url);
const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const launcher = require(path.join(ROOT, 'deploy/local/services.cjs'));
const auth = require(path.join(ROOT, 'packages/auth/dist/index.js'));
const { storeDbNames } = require(path.join(ROOT, 'packages/store/dist/index.js'));
const { Kafka, logLevel } = require(
  require.resolve('kafkajs', { paths: [path.join(ROOT, 'packages/messaging')] }),
);
const run = promisify(execFile);
// A namespace of its own per run (topics, consumer groups, database): a backlog left by an earlier,
// interrupted run would otherwise be part of what this run measures.
const NS = process.env.BENCH_NAMESPACE ?? `bench-${Date.now().toString(36)}`;
const ns = launcher.namespaceSettings(NS);
const CORE = ['customer', 'projector', 'callback', 'ingress'];
const PRELOAD_UNIT = 'BENCHLOAD';

const { MongoClient } = require(require.resolve('mongodb', { paths: [path.join(ROOT, 'packages/store')] }));

/** Partitions per topic the bench's services run with: the local stack's default (decision 0035). */
export function benchPartitions() {
  return launcher.defaultPartitions();
}

export function stackEnv() {
  const env = {};
  for (const line of readFileSync(path.join(ROOT, '.local/stack.env'), 'utf8').split('\n')) {
    const m = /^([A-Z_]+)=(.*)$/.exec(line.trim());
    if (m) env[m[1]] = m[2];
  }
  return env;
}

export async function token() {
  const keys = await launcher.ensureKeys();
  const privateJwk = JSON.parse(
    readFileSync(path.join(path.dirname(keys.jwksFile), 'signing-key.private.jwk.json'), 'utf8'),
  );
  return auth.issueToken({
    privateJwk,
    issuer: 'http://127.0.0.1:8080/local-issuer',
    audience: 'crs-api',
    subject: 'bench',
    scopes: ['customers:write', 'customers:read'],
    businessUnits: ['DEMO', PRELOAD_UNIT],
    expiresInSec: 6 * 3600,
  });
}

export function receiver() {
  const arrivals = new Map(); // communicationNumber -> first arrival of the assessment callback
  const listeners = [];
  let count = 0;
  const server = createServer({ keepAliveTimeout: 30000 }, (req, res) => {
    req.resume();
    req.on('end', () => {
      count++;
      const source = req.headers['ce-source'];
      for (const l of listeners) l(source, req.headers['ce-type'], performance.now());
      if (req.headers['ce-type'] === 'com.crs.risk-assessment.completed' && !arrivals.has(source)) {
        arrivals.set(source, performance.now());
      }
      res.writeHead(204).end();
    });
  });
  return {
    arrivals,
    count: () => count,
    /** Called with (ce-source, ce-type, arrival time) for every callback. */
    onCallback: (listener) => listeners.push(listener),
    listen: () => new Promise((r) => server.listen(0, '127.0.0.1', () => r(server.address().port))),
    close: () => new Promise((r) => server.close(r)),
  };
}

/** Batch imports of n customers, 100 per request, 4 requests at a time; request latencies and accepted count. */
async function batchImport(base, tok, n, offset, businessUnit = 'DEMO', onProgress = () => {}) {
  const latencies = [];
  let accepted = 0;
  const batchSize = 100;
  const batches = Math.max(1, Math.ceil(n / batchSize));
  let nextBatch = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (nextBatch < batches) {
        const b = nextBatch++;
        const customers = Array.from({ length: Math.min(batchSize, n - b * batchSize) }, (_, k) => {
          const i = offset + b * batchSize + k;
          const { sourceOfRiskLevel: _s, ...rest } = {
            ...sampleCustomer(i),
            businessUnit,
            communicationNumber: `${NS}-b-${Date.now()}-${i}`,
            customerExtId: `${NS}-b-${Date.now()}-${i}`,
          };
          return rest;
        });
        const res = await post(base, tok, '/core-ws-rest/batch-customers', { customers });
        latencies.push(res.ms);
        if (res.status === 200)
          accepted += JSON.parse(res.text).results.filter((r) => r.resultType === 'REQUEST_ACCEPTED').length;
        onProgress(accepted);
      }
    }),
  );
  return { latencies, accepted };
}

/** Drops a namespace's databases: the read models' and those of the owners (@crs/store, decision 0017). */
export async function dropNamespaceDbs(mongo, dbName) {
  for (const name of storeDbNames({ MONGODB_DB: dbName }))
    await mongo
      .db(name)
      .dropDatabase()
      .catch(() => undefined);
}

/**
 * Deletes the topics of a bench namespace (`<ns>.…`) once its run is over: a stack that kept every
 * run's topics (hundreds after a day of runs) made the broker, and every later run, slower.
 */
export async function dropNamespaceTopics(ns) {
  const kafka = new Kafka({
    clientId: 'bench-cleanup',
    brokers: stackEnv().KAFKA_BROKERS.split(','),
    logLevel: logLevel.NOTHING,
  });
  const admin = kafka.admin();
  await admin.connect();
  try {
    const mine = (await admin.listTopics()).filter((t) => t.startsWith(`${ns}.`));
    if (mine.length > 0) await admin.deleteTopics({ topics: mine });
  } finally {
    await admin.disconnect();
  }
}

/** Settings of every bench service: the bench's partitions, and callbacks of `eventTypes` (DEMO) to the receiver on `port`. */
function benchServiceEnv(port, eventTypes) {
  return {
    TOPIC_PARTITIONS: String(benchPartitions()),
    LOG_LEVEL: 'warn',
    CALLBACK_ENDPOINTS: JSON.stringify({
      endpoints: [{ id: 'bench', businessUnit: 'DEMO', url: `http://127.0.0.1:${port}/cb`, eventTypes }],
    }),
  };
}

/**
 * Runs `work` against the services of the tree at `root`, started in namespace `namespace` with their
 * callbacks of `eventTypes` (business unit DEMO) sent to a local receiver, and `serviceEnv[service]` as a
 * service's own settings; then stops them, and drops the namespace's databases and topics, whatever
 * happens. `work` gets the receiver, the tree's launcher and the ingress's base URL.
 */
export async function inServiceNamespace({ root, namespace, services, eventTypes, serviceEnv = {} }, work) {
  const treeLauncher = require(path.join(root, 'deploy/local/services.cjs'));
  const settings = treeLauncher.namespaceSettings(namespace);
  const mongo = await new MongoClient(stackEnv().MONGODB_URI).connect();
  const recv = receiver();
  const port = await recv.listen();
  const clusterEnv = benchServiceEnv(port, eventTypes);
  try {
    for (const s of services)
      await treeLauncher.startService(s, { env: { ...clusterEnv, ...serviceEnv[s] }, namespace });
    return await work({
      recv,
      launcher: treeLauncher,
      base: `http://127.0.0.1:${treeLauncher.portOf('ingress', namespace)}`,
    });
  } finally {
    for (const s of [...services].reverse()) await treeLauncher.stopService(s, { namespace }).catch(() => {});
    await recv.close();
    await dropNamespaceDbs(mongo, settings.env.MONGODB_DB);
    await dropNamespaceTopics(namespace).catch(() => {});
    await mongo.close();
  }
}

export async function lagOf(admin, group, topic) {
  const ends = await admin.fetchTopicOffsets(topic);
  const [committed] = await admin.fetchOffsets({ groupId: group, topics: [topic] });
  const at = new Map((committed?.partitions ?? []).map((p) => [p.partition, BigInt(p.offset)]));
  let lag = 0n;
  for (const e of ends)
    lag += BigInt(e.high) - (at.get(e.partition) > 0n ? at.get(e.partition) : BigInt(e.low));
  return lag;
}

/**
 * Restarts the local stack's FerretDB on another build (`bin`, run through `STACK_FERRETDB_BIN`), or on the
 * one this tree's patches build when `bin` is undefined; returns the path of the binary now running. The
 * data directory stays: our patches keep FerretDB's data format (decision 0076).
 */
export async function useFerretdbBuild(root, bin) {
  const env = { ...process.env };
  if (bin) env.STACK_FERRETDB_BIN = bin;
  else delete env.STACK_FERRETDB_BIN;
  const stack = path.join(root, 'deploy/local/stack.sh');
  await run('bash', [stack, 'stop', 'ferretdb'], { env });
  await run('bash', [stack, 'start', 'ferretdb'], { env });
  const pid = readFileSync(path.join(root, '.local/run/ferretdb.pid'), 'utf8').trim();
  return readlinkSync(`/proc/${pid}/exe`);
}

/** A metric's value on a service's health port (`/metrics`, labels ignored); NaN when it reports none. */
export async function serviceMetric(port, name) {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const m = new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text);
  return m ? Number(m[1]) : NaN;
}

/** Records in a topic: end minus start over its partitions. */
export async function topicSize(kafka, topic) {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const offsets = await admin.fetchTopicOffsets(topic);
    return offsets.reduce((n, p) => n + Number(p.high) - Number(p.low), 0);
  } finally {
    await admin.disconnect();
  }
}

/**
 * Waits until a topic has stopped growing for `quietMs` (every command decided, every reaction written);
 * returns its size then.
 */
export async function waitForQuietTopic(kafka, topic, quietMs) {
  let last = -1;
  let since = performance.now();
  await waitUntil(
    async () => {
      const now = await topicSize(kafka, topic);
      if (now !== last) {
        last = now;
        since = performance.now();
        return false;
      }
      await new Promise((r) => setTimeout(r, 1000));
      return performance.now() - since > quietMs;
    },
    30 * 60 * 1000,
    `${topic} to stop growing`,
  );
  return last;
}

export async function waitUntil(probe, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await probe()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out: ${what}`);
}

// acceptedAt: communicationNumber -> performance.now() at acceptance; acceptedExt: customerExtId -> epoch ms
// at acceptance (compared with the broker timestamps of the customer's events).
async function importMany(base, tok, n, concurrency, offset, acceptedAt, shape = (b) => b, acceptedExt) {
  const latencies = [];
  let next = 0;
  let accepted = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) {
        const i = offset + next++;
        const body = shape({
          ...sampleCustomer(i),
          communicationNumber: `${NS}-${Date.now()}-${i}`,
          customerExtId: `${NS}-${Date.now()}-${i}`,
        });
        const res = await post(base, tok, '/core-ws-rest/customer', body);
        const e = res.at;
        latencies.push(res.ms);
        if (res.status === 200) {
          accepted++;
          acceptedAt?.set(body.communicationNumber, e);
          acceptedExt?.set(body.customerExtId, Date.now());
        }
      }
    }),
  );
  return { seconds: (performance.now() - t0) / 1000, latencies, accepted };
}

/**
 * Reads the customer event log as a subscriber would: per customerExtId, the broker timestamp of its
 * first RiskAssessed event and of each ScreeningCompleted. Only the `type` header is read, no decoding.
 */
async function eventObserver(kafka, topic) {
  const assessedAt = new Map();
  const screenings = new Map();
  const consumer = kafka.consumer({ groupId: `${NS}.bench-observer` });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ message }) => {
      const type = message.headers?.type?.toString();
      const ext = message.key?.toString().slice('DEMO:'.length);
      const at = Number(message.timestamp);
      if (type === 'RiskAssessed' && !assessedAt.has(ext)) assessedAt.set(ext, at);
      if (type === 'ScreeningCompleted') screenings.set(ext, { at, n: (screenings.get(ext)?.n ?? 0) + 1 });
    },
  });
  return { assessedAt, screenings, stop: () => consumer.disconnect() };
}

// Figures are pushed into `figures` as they are measured, so a phase that fails (a bounded wait that
// ran out) still leaves the earlier phases' figures to the caller.
export async function benchStack({
  size = 1000,
  sample = size,
  concurrency = 16,
  log = console.log,
  figures = [],
} = {}) {
  const n = Math.min(size, sample);
  const env = stackEnv();
  const recv = receiver();
  const port = await recv.listen();
  const clusterEnv = benchServiceEnv(port, ['com.crs.risk-assessment.completed', 'com.crs.screening.*']);
  // A clean store per run: deliveries still queued by an earlier (interrupted) run would be retried
  // against a receiver that is gone and slow everything down.
  const mongo = await new MongoClient(env.MONGODB_URI).connect();
  await dropNamespaceDbs(mongo, ns.env.MONGODB_DB);
  await mongo.close();
  const kafka = new Kafka({
    clientId: 'bench',
    brokers: env.KAFKA_BROKERS.split(','),
    logLevel: logLevel.NOTHING,
  });
  const admin = kafka.admin();
  await admin.connect();
  const topics = { commands: `${NS}.crs.customer.commands.v1`, events: `${NS}.crs.customer.events.v1` };
  const groups = { decider: `${NS}.customer-decider`, projector: `${NS}.projector` };
  const partitions = Number(clusterEnv.TOPIC_PARTITIONS);
  /** Waits until every queued command is decided and every event projected. */
  async function drained(what, timeoutMs) {
    await waitUntil(
      async () => (await lagOf(admin, groups.decider, topics.commands)) === 0n,
      timeoutMs,
      `${what} commands decided`,
    );
    await waitUntil(
      async () => (await lagOf(admin, groups.projector, topics.events)) === 0n,
      timeoutMs,
      `${what} events projected`,
    );
  }

  // Fills the store to `count` customers through the whole pipeline and waits until they are decided and
  // projected: accepted customers/s at the ingress, and customers/s until the read model holds them all.
  async function preload(base, tok, count) {
    log(`  preload: ${count} customers (batch imports, business unit ${PRELOAD_UNIT})`);
    // A business unit exists through its classifiers (docs/api.md): seeded with DEMO's, as the ingress
    // seeds DEMO's.
    const { demoClassifiers } = require(
      path.join(ROOT, 'services/ingress/dist/classifiers/demo-classifiers.js'),
    );
    const { ClassifierStore } = require(
      path.join(ROOT, 'services/ingress/dist/classifiers/classifier-store.js'),
    );
    const client = await new MongoClient(env.MONGODB_URI).connect();
    await new ClassifierStore(client.db(ns.env.MONGODB_DB), 0).seed(demoClassifiers(PRELOAD_UNIT));
    await client.close();
    const t = performance.now();
    let reported = 0;
    const { accepted } = await batchImport(base, tok, count, 50_000_000, PRELOAD_UNIT, (a) => {
      if (a - reported >= 10_000) {
        reported = a;
        log(`  preload: ${a} accepted, ${round((performance.now() - t) / 1000)} s`);
      }
    });
    const importSeconds = (performance.now() - t) / 1000;
    await drained('preload', 3_600_000);
    const settledSeconds = (performance.now() - t) / 1000;
    // The phases measure a settled store of this size: the decider's state snapshots the preload's busy
    // transactions left behind are written first (while idle, decision 0081), not by the phase's commands.
    await waitUntil(
      async () => {
        const backlog = await serviceMetric(launcher.portOf('customer', NS), 'state_snapshot_backlog');
        if (Number.isNaN(backlog)) throw new Error('the customer service reports no state_snapshot_backlog');
        return backlog === 0;
      },
      600_000,
      'the preload state snapshots written',
    );
    log(
      `  preload: state snapshots written ${round((performance.now() - t) / 1000 - settledSeconds)} s after`,
    );
    figures.push(
      {
        name: `preload.accepted_per_sec@${size}`,
        value: round(accepted / importSeconds),
        unit: `customers/s (${accepted} batch-imported)`,
      },
      {
        name: `preload.projected_per_sec@${size}`,
        value: round(accepted / settledSeconds),
        unit: 'customers/s (imported, decided and projected)',
      },
    );
    log(
      `  preload: ${accepted} accepted in ${round(importSeconds)} s, decided and projected in ${round(settledSeconds)} s`,
    );
  }
  try {
    for (const s of CORE) await launcher.startService(s, { env: clusterEnv, namespace: NS });
    const base = `http://127.0.0.1:${launcher.portOf('ingress', NS)}`;
    const tok = await token();
    await importMany(base, tok, 50, 4, 10_000_000); // warm-up
    if (size > n) await preload(base, tok, size);

    // 1. Single-customer imports: accepted requests/s and latency; accept-to-callback.
    const acceptedAt = new Map();
    const single = await importMany(base, tok, n, concurrency, 0, acceptedAt);
    const lat = summarize(single.latencies);
    figures.push(
      {
        name: `ingress.single_import.accepted_per_sec@${size}`,
        value: round(single.accepted / single.seconds),
        unit: 'req/s',
      },
      { name: `ingress.single_import.latency_p50@${size}`, value: round(lat.p50, 2), unit: 'ms' },
      { name: `ingress.single_import.latency_p99@${size}`, value: round(lat.p99, 2), unit: 'ms' },
    );
    log(
      `  single import: ${figures.at(-3).value} req/s, p50 ${figures.at(-2).value} ms, p99 ${figures.at(-1).value} ms`,
    );
    // Bounded: on FerretDB v1 the callback queue is the slowest part; what arrived in time is measured
    // and the share that arrived is reported with it.
    await waitUntil(
      () => [...acceptedAt.keys()].every((c) => recv.arrivals.has(c)),
      600000,
      'all assessment callbacks',
    ).catch((e) => log(`  ${e.message}`));
    const arrivedShare =
      [...acceptedAt.keys()].filter((c) => recv.arrivals.has(c)).length / Math.max(1, acceptedAt.size);
    figures.push({
      name: `callback.arrived_within_10min_share@${size}`,
      value: round(arrivedShare * 100, 1),
      unit: '%',
    });
    const toCallback = summarize(
      [...acceptedAt].filter(([c]) => recv.arrivals.has(c)).map(([c, t]) => recv.arrivals.get(c) - t),
    );
    // The rate over this phase's callbacks only: the warm-up's arrived earlier (before the preload, if any).
    const arrivals = [...acceptedAt.keys()]
      .filter((c) => recv.arrivals.has(c))
      .map((c) => recv.arrivals.get(c))
      .sort((a, b) => a - b);
    figures.push(
      { name: `callback.accept_to_callback_p50@${size}`, value: round(toCallback.p50, 1), unit: 'ms' },
      { name: `callback.accept_to_callback_p99@${size}`, value: round(toCallback.p99, 1), unit: 'ms' },
      {
        name: `callback.delivered_per_sec@${size}`,
        value: round(arrivals.length / Math.max(0.001, (arrivals.at(-1) - arrivals[0]) / 1000)),
        unit: 'callbacks/s',
      },
    );
    log(
      `  accept-to-callback: p50 ${figures.at(-3).value} ms, p99 ${figures.at(-2).value} ms; ${figures.at(-1).value} callbacks/s`,
    );

    // 1b. Batch imports (batch-customers, 100 per request): customers accepted/s and request latency.
    const tb = performance.now();
    const { latencies: batchLat, accepted: batchAccepted } = await batchImport(base, tok, n, 40_000_000);
    const batchSeconds = (performance.now() - tb) / 1000;
    const bl = summarize(batchLat);
    figures.push(
      {
        name: `ingress.batch_import.customers_per_sec@${size}`,
        value: round(batchAccepted / batchSeconds),
        unit: 'customers/s',
      },
      {
        name: `ingress.batch_import.request_latency_p50@${size}`,
        value: round(bl.p50, 1),
        unit: 'ms (100 customers)',
      },
      {
        name: `ingress.batch_import.request_latency_p99@${size}`,
        value: round(bl.p99, 1),
        unit: 'ms (100 customers)',
      },
    );
    log(
      `  batch import: ${figures.at(-3).value} customers/s, request p50 ${figures.at(-2).value} ms, p99 ${figures.at(-1).value} ms`,
    );
    // The next phase times a backlog of its own: let this one drain first.
    await drained('batch', 900000);

    // 2. Decider and projector on a backlog: stop both, queue commands, then time the drain.
    await launcher.stopService('projector', { namespace: NS });
    await launcher.stopService('customer', { namespace: NS });
    await importMany(base, tok, n, concurrency, 20_000_000);
    let t0 = performance.now();
    await launcher.startService('customer', { env: clusterEnv, namespace: NS });
    await waitUntil(
      async () => (await lagOf(admin, groups.decider, topics.commands)) === 0n,
      600000,
      'decider drained',
    );
    const deciderSeconds = (performance.now() - t0) / 1000;
    figures.push({
      name: `decider.commands_per_sec@${size}`,
      value: round(n / deciderSeconds),
      unit: 'commands/s',
    });
    log(`  decider: ${figures.at(-1).value} commands/s (including its start and state rebuild)`);
    const backlog = await lagOf(admin, groups.projector, topics.events);
    t0 = performance.now();
    await launcher.startService('projector', { env: clusterEnv, namespace: NS });
    await waitUntil(
      async () => (await lagOf(admin, groups.projector, topics.events)) === 0n,
      900000,
      'projector drained',
    );
    const projSeconds = (performance.now() - t0) / 1000;
    figures.push({
      name: `projector.events_per_sec@${size}`,
      value: round(Number(backlog) / projSeconds),
      unit: 'events/s',
    });
    log(`  projector: ${figures.at(-1).value} events/s`);

    // 3. EVALUATE with screening: accept-to-assessment latency, assessed and screened customers/s.
    const extra = ['evaluation', 'screening'].filter(
      (s) =>
        launcher.SERVICES[s] && require('node:fs').existsSync(path.join(ROOT, `services/${s}/dist/app.js`)),
    );
    if (extra.length === 2) {
      for (const s of extra) await launcher.startService(s, { env: clusterEnv, namespace: NS });
      // Both read the customer events from the beginning: let them reach the end of what is already
      // there, so the figures below are those of new customers (a transactional consumer stays up to one
      // commit marker per partition short of the end).
      const tc = performance.now();
      for (const s of extra)
        await waitUntil(
          async () => (await lagOf(admin, `${NS}.${s}`, topics.events)) <= BigInt(partitions),
          3_600_000,
          `${s} caught up with the event log`,
        );
      log(
        `  evaluation and screening caught up with the event log in ${round((performance.now() - tc) / 1000)} s`,
      );
      // Measured from the event log (broker timestamps), not from callback arrival: the assessment and
      // screening figures must not include the callback queue's latency.
      const observer = await eventObserver(kafka, topics.events);
      const evalAccepted = new Map();
      const t0e = Date.now();
      await importMany(
        base,
        tok,
        n,
        concurrency,
        30_000_000,
        undefined,
        (b) => {
          const { riskLevel: _r, ...rest } = b;
          return {
            ...rest,
            sourceOfRiskLevel: 'EVALUATE',
            initializeScreeningProcesses: ['SANCTIONS', 'PEP'],
          };
        },
        evalAccepted,
      );
      const done = (c) => observer.assessedAt.has(c) && observer.screenings.get(c)?.n >= 2;
      await waitUntil(() => [...evalAccepted.keys()].every(done), 600000, 'evaluations and screenings').catch(
        (e) => log(`  ${e.message}`),
      );
      await observer.stop();
      const assessed = [...evalAccepted].filter(([c]) => observer.assessedAt.has(c));
      const screenedDone = [...evalAccepted.keys()].filter((c) => observer.screenings.get(c)?.n >= 2);
      figures.push({
        name: `evaluation.assessed_within_10min_share@${size}`,
        value: round((assessed.length / Math.max(1, evalAccepted.size)) * 100, 1),
        unit: '%',
      });
      const toAssessment = summarize(assessed.map(([c, t]) => Math.max(0, observer.assessedAt.get(c) - t)));
      const lastAssessed = Math.max(...assessed.map(([c]) => observer.assessedAt.get(c)));
      const lastScreened = Math.max(...screenedDone.map((c) => observer.screenings.get(c).at));
      figures.push(
        {
          name: `evaluation.accept_to_assessment_p50@${size}`,
          value: round(toAssessment.p50, 1),
          unit: 'ms',
        },
        {
          name: `evaluation.accept_to_assessment_p99@${size}`,
          value: round(toAssessment.p99, 1),
          unit: 'ms',
        },
        {
          name: `evaluation.assessed_customers_per_sec@${size}`,
          value: round(assessed.length / ((lastAssessed - t0e) / 1000)),
          unit: 'customers/s',
        },
        {
          name: `screening.screened_customers_per_sec@${size}`,
          value: round(screenedDone.length / ((lastScreened - t0e) / 1000)),
          unit: 'customers/s',
        },
      );
      log(
        `  evaluate+screen (from the event log): accept-to-assessment p50 ${figures.at(-4).value} ms, p99 ${figures.at(-3).value} ms; ${figures.at(-2).value} assessed/s; ${figures.at(-1).value} screened/s`,
      );
    }

    // 4. Replay of the whole log into fresh collections.
    const { stdout, stderr } = await run(
      process.execPath,
      [path.join(ROOT, 'services/projector/dist/cli/replay.js')],
      {
        env: { ...process.env, ...env, ...ns.env, TOPIC_REPLICATION_FACTOR: '1', LOG_LEVEL: 'info' },
        maxBuffer: 256 * 1024 * 1024,
      },
    );
    const done = `${stdout}${stderr}`
      .split('\n')
      .filter((l) => l.includes('replay done'))
      .map((l) => JSON.parse(l))[0];
    if (done) {
      figures.push({
        name: `replay.events_per_sec@${size}`,
        value: round(done.events / done.seconds),
        unit: 'events/s',
      });
      log(`  replay: ${done.events} events in ${done.seconds} s`);
      // Each phase's seconds (trees since the twenty-fourth stop log them): the log read with the history
      // documents, then the customer documents, the indexes and the switch.
      for (const [phase, seconds] of Object.entries(done.phases ?? {}))
        figures.push({
          name: `replay.${phase}_seconds@${size}`,
          value: round(seconds, 2),
          unit: `s (${done.customers} customers)`,
        });
      if (done.phases) log(`  replay phases (s): ${JSON.stringify(done.phases)}`);
    }
  } finally {
    for (const s of ['evaluation', 'screening', ...[...CORE].reverse()])
      await launcher.stopService(s, { namespace: NS });
    await admin.disconnect();
    await recv.close();
    // A namespace the caller named (BENCH_NAMESPACE) is theirs to keep.
    if (!process.env.BENCH_NAMESPACE) await dropNamespaceTopics(NS).catch(() => undefined);
  }
  return figures;
}
