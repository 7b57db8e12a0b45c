// `npm run bench pipeline`: the issue #15 figures of the whole pipeline on the local stack, each stage beside
// the raw limit it is bound by, measured in the same run (test/bench/limits/*):
//   - the accept path alone: single imports (first) and batches of 1,000 (last), each for
//     BENCH_ALONE_SECONDS (5) with every consumer stopped (the ingress, Kafka and the store with the cores
//     to themselves);
//   - single imports: 32 concurrent clients posting distinct EVALUATE customers with SANCTIONS and PEP
//     screening for BENCH_SINGLE_SECONDS; accepted/s, p50, p99 (limit: raw kafkajs produce, acks=all);
//   - batch imports: batches of 1,000 from 4 clients for BENCH_BATCH_SECONDS; customers/s (same limit);
//   - end to end: from the first single import until the last of their callbacks (assessment, sanctions
//     and PEP screening) arrived: customers/s sustained through ingress, decider, evaluation, screening,
//     projector and callback;
//   - latency at an offered rate: an open-loop load at half the measured end-to-end rate (at most 500/s,
//     the issue's figure) for BENCH_OFFERED_SECONDS: accept-to-callback p50/p99 and whether the backlog
//     (commands not decided, events not projected) grew, and the p50/p99 of each stage of that time, read from
//     the records' own timestamps (offeredStages: the decider, evaluation, screening, the callback service);
//   - decider and projector on a backlog (limit: raw consume-transform-produce in one transaction per
//     fetched batch; raw unordered bulk upsert of the store), each timed alone (evaluation, screening and
//     the callback service stopped until both are done), and the replay.
// With BENCH_BASELINE=<a built checkout of an older commit> the same phases run first against that tree's
// services (its own namespace, same stack, same limits): before and after in one run. `npm run bench privacy`
// runs them twice on this tree, every service in plaintext mode (env PRIVACY_KEK_FILE '') and then with
// encryption: the cost of personal-data encryption (docs/privacy.md). BENCH_BACKLOG (default 20,000) sets the
// decider and projector backlog; BENCH_*_SECONDS the length of the other phases (settings() below). Every phase prints
// the cores each process used (test/bench/cpu.mjs), and the single-import phase the store commands per
// customer (store_commands_total of every service). Each side reads the machine's own speed
// (test/bench/machine-speed.mjs) after its warm-up and after its replay, so a side that ran on a slower
// machine says so. Each side first runs BENCH_WARMUP_SECONDS (60) of single
// imports through its pipeline, unmeasured: a broker just started spends its first minutes compiling (Kafka
// took 0.42-0.44 cores during single imports right after a start against 0.20-0.25 a few minutes later), which
// would count against whichever side runs first.
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { post } from './http-client.mjs';
import { round, summarize } from './stats.mjs';
import { sampleCustomer } from './in-process.mjs';
import {
  stackEnv,
  token,
  receiver,
  waitUntil,
  dropNamespaceDbs,
  dropNamespaceTopics,
  benchPartitions,
} from './stack.mjs';
import { cpuSnapshot, coresBetween } from './cpu.mjs';
import { machineSpeed } from './machine-speed.mjs';

const require = createRequire(import.meta.url);
const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const { Kafka, logLevel } = require(
  require.resolve('kafkajs', { paths: [path.join(ROOT, 'packages/messaging')] }),
);
const { MongoClient } = require(require.resolve('mongodb', { paths: [path.join(ROOT, 'packages/store')] }));
const run = promisify(execFile);

const SERVICES = ['customer', 'projector', 'evaluation', 'screening', 'callback', 'ingress'];
const num = (name, fallback) => Number(process.env[name] ?? fallback);
const settings = () => ({
  singleSeconds: num('BENCH_SINGLE_SECONDS', 20),
  singleClients: num('BENCH_SINGLE_CLIENTS', 32),
  aloneSeconds: num('BENCH_ALONE_SECONDS', 5),
  batchSeconds: num('BENCH_BATCH_SECONDS', 20),
  batchSize: num('BENCH_BATCH_SIZE', 1000),
  batchClients: num('BENCH_BATCH_CLIENTS', 4),
  offeredSeconds: num('BENCH_OFFERED_SECONDS', 60),
  backlog: num('BENCH_BACKLOG', 20000),
  drainMs: num('BENCH_DRAIN_SECONDS', 900) * 1000,
  warmupSeconds: num('BENCH_WARMUP_SECONDS', 60),
});

/** The bench's sample customer `i` under the namespace's ids (`<ns>-<i>`), with `fields` for how it comes in. */
function customerBody(ns, i, fields) {
  const { riskLevel: _r, ...rest } = sampleCustomer(i);
  const id = `${ns}-${i}`;
  return { ...rest, communicationNumber: id, customerExtId: id, ...fields };
}

/** The body of one IMPORT customer (its risk level given), as a batch of an upstream system carries it. */
export function importCustomer(ns, i) {
  return customerBody(ns, i, { riskLevel: 'LOW', sourceOfRiskLevel: 'IMPORT' });
}

/** The body of one EVALUATE import with sanctions and PEP screening, as an upstream system sends it. */
export function evaluateCustomer(ns, i) {
  return customerBody(ns, i, {
    sourceOfRiskLevel: 'EVALUATE',
    initializeScreeningProcesses: ['SANCTIONS', 'PEP'],
  });
}

async function markerTolerantLag(admin, group, topic) {
  const ends = await admin.fetchTopicOffsets(topic);
  const [committed] = await admin.fetchOffsets({ groupId: group, topics: [topic] });
  const at = new Map((committed?.partitions ?? []).map((p) => [p.partition, BigInt(p.offset)]));
  let lag = 0n;
  for (const e of ends) {
    const from = at.get(e.partition) >= 0n ? at.get(e.partition) : BigInt(e.low);
    const l = BigInt(e.high) - from - 2n;
    if (l > 0n) lag += l;
  }
  return lag;
}

/** The end offset of every partition of `topicNames`, by `<topic>/<partition>`: { topic, partition, high }. */
async function partitionEnds(admin, topicNames) {
  const ends = new Map();
  for (const topic of topicNames)
    for (const o of await admin.fetchTopicOffsets(topic))
      ends.set(`${topic}/${o.partition}`, { topic, partition: o.partition, high: BigInt(o.high) });
  return ends;
}

/**
 * Where each offered customer's time went, read from the records themselves (headers, keys and timestamps;
 * nothing decoded): the customer events and commands from `from` (`partitionEnds` when the offered load
 * began) to their ends now, each record's timestamp being when its producer made it. Per customer: the
 * accept (the ingress's answer) to its first event (the decider), that to RiskAssessed (evaluation and the
 * decider), ScreeningRequested to the last screening result command (the screening service, including
 * waiting for its turn), that command to the last ScreeningCompleted (the decider), and the last event to
 * the last callback's arrival (the callback service). The bench's customers carry one id as communication
 * number and customer id, so a record's key (`<unit>:<customerExtId>`) names the accepted request. Returns
 * the stages as [name, durations in ms] pairs, and how many partitions were not read to their end within a
 * minute (0 when complete).
 */
async function offeredStages(kafka, admin, topics, from, accepted, doneAt) {
  const seen = new Map(); // customerExtId -> [[type, timestamp]]
  const ends = await partitionEnds(admin, [topics.events, topics.commands]);
  const left = new Set([...ends].filter(([k, end]) => end.high > (from.get(k)?.high ?? 0n)).map(([k]) => k));
  const consumer = kafka.consumer({
    groupId: `bench-stages-${Date.now().toString(36)}`,
    readUncommitted: false,
  });
  await consumer.connect();
  await consumer.subscribe({ topics: [topics.events, topics.commands], fromBeginning: true });
  const origin = performance.timeOrigin;
  let finished;
  const done = new Promise((resolve) => (finished = resolve));
  const note = (topic, partition, next) => {
    const k = `${topic}/${partition}`;
    // A read_committed consumer stays up to a commit marker short of the end.
    if (left.has(k) && next + 2n >= ends.get(k).high) left.delete(k);
    if (left.size === 0) finished();
  };
  const running = consumer.run({
    eachBatch: async ({ batch }) => {
      for (const m of batch.messages) {
        const key = m.key?.toString() ?? '';
        const ext = key.slice(key.indexOf(':') + 1);
        if (!accepted.has(ext)) continue;
        const type = m.headers?.type?.toString();
        const list = seen.get(ext) ?? [];
        list.push([batch.topic === topics.commands ? `command:${type}` : type, Number(m.timestamp) - origin]);
        seen.set(ext, list);
      }
      note(batch.topic, batch.partition, BigInt(batch.lastOffset()) + 1n);
    },
  });
  // Seeks made right after run() apply before its first fetch (as StreamReader's).
  for (const { topic, partition, high } of from.values())
    consumer.seek({ topic, partition, offset: high.toString() });
  await running;
  if (left.size === 0) finished();
  let timer;
  await Promise.race([done, new Promise((r) => (timer = setTimeout(r, 60000)))]);
  clearTimeout(timer);
  await consumer.disconnect();
  const stages = {
    'accept to decided': [],
    'decided to assessed': [],
    'screening requested to its results': [],
    'screening results to screened': [],
    'last event to callback': [],
  };
  const at = (list, type, pick) => {
    const t = list.filter(([ty]) => ty === type).map(([, ts]) => ts);
    return t.length > 0 ? pick(...t) : undefined;
  };
  for (const [ext, list] of seen) {
    const acceptedAt = accepted.get(ext);
    const callbackAt = doneAt(ext);
    const events = list.filter(([ty]) => !ty.startsWith('command:')).map(([, ts]) => ts);
    if (events.length === 0 || callbackAt === undefined) continue;
    const decided = Math.min(...events);
    const assessed = at(list, 'RiskAssessed', Math.min);
    const requested = at(list, 'ScreeningRequested', Math.min);
    const results = at(list, 'command:RecordScreeningResult', Math.max);
    const screened = at(list, 'ScreeningCompleted', Math.max);
    stages['accept to decided'].push(decided - acceptedAt);
    if (assessed !== undefined) stages['decided to assessed'].push(assessed - decided);
    if (requested !== undefined && results !== undefined)
      stages['screening requested to its results'].push(results - requested);
    if (results !== undefined && screened !== undefined)
      stages['screening results to screened'].push(screened - results);
    stages['last event to callback'].push(callbackAt - Math.max(...events));
  }
  return { stages: Object.entries(stages), unread: left.size };
}

/**
 * Progress of a drain after its consumer started: `remaining()` is polled every 100 ms; the rate counts
 * from the first poll that saw it move (so a service's start, group join and state rebuild stay out of
 * it) to the poll that saw zero.
 */
async function steadyDrain(remaining, timeoutMs, what) {
  const start = Number(await remaining());
  const t0 = performance.now();
  let first;
  for (;;) {
    const left = Number(await remaining());
    const now = performance.now();
    if (first === undefined && left < start) first = { at: now, left };
    if (left <= 0) {
      const total = (now - t0) / 1000;
      const steady = first && now > first.at ? first.left / ((now - first.at) / 1000) : undefined;
      return { total, steady, firstAfter: first ? (first.at - t0) / 1000 : total };
    }
    if (now - t0 > timeoutMs) throw new Error(`${what}: not drained within ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Measures the cores each process used while `work` ran: [result, { total, breakdown }]. */
export async function withCpu(work) {
  const before = cpuSnapshot();
  const t = performance.now();
  const result = await work();
  const rows = coresBetween(before, cpuSnapshot(), (performance.now() - t) / 1000);
  const total = rows.reduce((a, [, c]) => a + c, 0);
  return [result, { total, breakdown: rows.map(([n, c]) => `${n} ${c}`).join(', ') }];
}

/** `store_commands_total` of every service of the namespace: 'service command collection' -> count. */
async function storeCommands(launcher, ns) {
  const out = new Map();
  for (const s of SERVICES) {
    try {
      const text = await (await fetch(`http://127.0.0.1:${launcher.portOf(s, ns)}/metrics`)).text();
      for (const m of text.matchAll(/^store_commands_total\{([^}]*)\} (\d+)/gm)) {
        const label = (n) => new RegExp(`${n}="([^"]*)"`).exec(m[1])?.[1] ?? '';
        out.set(`${s} ${label('command')} ${label('collection')}`, Number(m[2]));
      }
    } catch {
      // a service without metrics (or not running) counts nothing
    }
  }
  return out;
}

/** Store commands per customer between two `storeCommands` readings, most first. */
function commandsPerCustomer(before, after, customers) {
  const rows = [];
  let total = 0;
  for (const [k, v] of after) {
    const d = (v - (before.get(k) ?? 0)) / Math.max(1, customers);
    if (d <= 0) continue;
    total += d;
    rows.push([k, Math.round(d * 100) / 100]);
  }
  rows.sort((a, b) => b[1] - a[1]);
  return { total, breakdown: rows.map(([k, v]) => `${k} ${v}`).join(', ') };
}

export const DONE_TYPES = [
  'com.crs.risk-assessment.completed',
  'com.crs.screening.sanctions.completed',
  'com.crs.screening.pep.completed',
];

/** Tracks, per communicationNumber, when each of the end-to-end callbacks first arrived. */
/** Arrival of each customer's three result callbacks: `doneAt` the last one, `has` a given type's. */
export function endToEnd(recv) {
  const seen = new Map(); // communicationNumber -> Map(type -> time)
  recv.onCallback((source, type, at) => {
    if (!DONE_TYPES.includes(type)) return;
    let m = seen.get(source);
    if (!m) seen.set(source, (m = new Map()));
    if (!m.has(type)) m.set(type, at);
  });
  return {
    doneAt(c) {
      const m = seen.get(c);
      if (!m || m.size < DONE_TYPES.length) return undefined;
      return Math.max(...m.values());
    },
    has: (c, type) => seen.get(c)?.has(type) === true,
  };
}

/** Closed loop: `clients` concurrent clients, one request after the other each, for `seconds`. */
export async function closedLoop(clients, seconds, send) {
  const stopAt = performance.now() + seconds * 1000;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (performance.now() < stopAt) await send();
    }),
  );
  return (performance.now() - t0) / 1000;
}

/** A figure's ratio to a limit ({ name, value, unit }): the value and unit of its `ratio_to_<limit>` figure. */
export function ratioTo(value, limit) {
  return { value: round(value / limit.value, 3), unit: `ratio (limit ${round(limit.value)} ${limit.unit})` };
}

/**
 * Runs every phase against the services of `root` in namespace `NS`; pushes figures with the suffix `.<label>`.
 * `env` adds or overrides settings of every service started (merged last into the cluster's settings), e.g.
 * `{ PRIVACY_KEK_FILE: '' }` for plaintext mode (`npm run bench privacy`).
 */
export async function benchPipeline({
  root = ROOT,
  label = 'after',
  figures = [],
  limits = {},
  env: extraEnv = {},
  partitions = benchPartitions(),
  log = console.log,
}) {
  const cfg = settings();
  const launcher = require(path.join(root, 'deploy/local/services.cjs'));
  const NS = `pl-${label}-${Date.now().toString(36)}`.slice(0, 40);
  const ns = launcher.namespaceSettings(NS);
  const env = stackEnv();
  /** A figure, and its ratio to each limit given (one, or several: the decider's two ceilings). */
  const push = (name, value, unit, limit) => {
    const f = { name: `pipeline.${name}.${label}`, value: round(value, 2), unit };
    figures.push(f);
    const limitsOf = [limit].flat().filter(Boolean);
    for (const l of limitsOf)
      figures.push({ name: `pipeline.${name}.ratio_to_${l.name}.${label}`, ...ratioTo(value, l) });
    const ratios = limitsOf.map((l) => `${ratioTo(value, l).value} of ${l.name}`).join(', ');
    log(`  [${label}] ${name}: ${f.value} ${unit}${ratios ? ` (${ratios})` : ''}`);
  };
  const pushCpu = (name, cpu) => push(`${name}.cpu`, cpu.total, `cores (${cpu.breakdown})`);
  const recv = receiver();
  const port = await recv.listen();
  const e2e = endToEnd(recv);
  const clusterEnv = {
    TOPIC_PARTITIONS: String(partitions),
    LOG_LEVEL: 'warn',
    CALLBACK_ENDPOINTS: JSON.stringify({
      endpoints: [
        {
          id: 'bench',
          businessUnit: 'DEMO',
          url: `http://127.0.0.1:${port}/cb`,
          eventTypes: DONE_TYPES,
        },
      ],
    }),
    ...extraEnv,
  };
  const mongo = await new MongoClient(env.MONGODB_URI).connect();
  await dropNamespaceDbs(mongo, ns.env.MONGODB_DB);
  const kafka = new Kafka({
    clientId: 'bench',
    brokers: env.KAFKA_BROKERS.split(','),
    logLevel: logLevel.NOTHING,
  });
  const admin = kafka.admin();
  await admin.connect();
  const topics = { commands: `${NS}.crs.customer.commands.v1`, events: `${NS}.crs.customer.events.v1` };
  const groups = { decider: `${NS}.customer-decider`, projector: `${NS}.projector` };
  // Commands come from the ingress and, inside transactions, from evaluation and screening: a consumer of a
  // transactional topic stays up to a commit marker (or two) per partition short of the end, so the backlog
  // counts what lies beyond that.
  const backlog = async () =>
    (await markerTolerantLag(admin, groups.decider, topics.commands)) +
    (await markerTolerantLag(admin, groups.projector, topics.events));
  const drained = (what) =>
    waitUntil(
      async () => (await backlog()) === 0n,
      cfg.drainMs,
      `${what}: commands decided, events projected`,
    );
  /**
   * Every stage idle: what evaluation, screening and the callback service still owe of earlier events
   * turns into commands and events after `drained` said zero, so a phase measured from there would carry
   * the tail of the one before (the offered load did: its first backlog sample counted thousands).
   */
  const quiet = (what) =>
    waitUntil(
      async () => {
        for (const g of ['evaluation', 'screening', 'callback'])
          if ((await markerTolerantLag(admin, `${NS}.${g}`, topics.events)) > 0n) return false;
        return (await backlog()) === 0n;
      },
      cfg.drainMs,
      `${what}: every stage idle`,
    );
  let next = 0;
  /** `n` IMPORT customers with a given risk level, as a batch import sends them. */
  const batchOf = (n) =>
    Array.from({ length: n }, () => {
      const { sourceOfRiskLevel: _s, initializeScreeningProcesses: _i, ...c } = evaluateCustomer(NS, next++);
      return { ...c, riskLevel: 'LOW' };
    });
  /** Batches of cfg.batchSize from cfg.batchClients clients for `seconds`: customers accepted, latencies, cores. */
  const batchLoop = async (seconds) => {
    let accepted = 0;
    const lat = [];
    const [took, cpu] = await withCpu(() =>
      closedLoop(cfg.batchClients, seconds, async () => {
        const customers = batchOf(cfg.batchSize);
        const r = await post(base, tok, '/core-ws-rest/batch-customers', { customers });
        lat.push(r.ms);
        if (r.status === 200)
          accepted += JSON.parse(r.text).results.filter((x) => x.resultType === 'REQUEST_ACCEPTED').length;
      }),
    );
    return { accepted, seconds: took, p99: summarize(lat).p99, cpu };
  };
  const base = `http://127.0.0.1:${launcher.portOf('ingress', NS)}`;
  const tok = await token();
  try {
    for (const s of SERVICES) await launcher.startService(s, { env: clusterEnv, namespace: NS });
    // Warm-up: every service connected, every schema and classifier cached; then single imports for
    // cfg.warmupSeconds, unmeasured, so that the broker's and the services' compilers have done their work
    // before either side is measured (the first side would otherwise pay for it alone).
    await Promise.all(
      Array.from({ length: 20 }, () =>
        post(base, tok, '/core-ws-rest/customer', evaluateCustomer(NS, next++)),
      ),
    );
    if (cfg.warmupSeconds > 0)
      await closedLoop(cfg.singleClients, cfg.warmupSeconds, () =>
        post(base, tok, '/core-ws-rest/customer', evaluateCustomer(NS, next++)),
      );
    await quiet('warm-up');
    // The machine's own speed at the side's start and end (test/bench/machine-speed.mjs): sides that read it
    // apart ran on machines of different speed, whatever their code.
    const speedUnit = 'rounds/s (a fixed single-thread workload in a child process, the stages idle)';
    push('machine_speed.start', await machineSpeed(), speedUnit);

    // 0. The accept path alone: single imports with every consumer stopped, so the ingress, Kafka and the
    // store have the cores to themselves (the ceiling of the accept path on this machine); the consumers
    // then start again and work the backlog off before the next phase.
    if (cfg.aloneSeconds > 0) {
      const consumers = SERVICES.filter((s) => s !== 'ingress');
      for (const s of consumers) await launcher.stopService(s, { namespace: NS });
      const aloneLat = [];
      let aloneAccepted = 0;
      const [aloneSeconds, aloneCpu] = await withCpu(() =>
        closedLoop(cfg.singleClients, cfg.aloneSeconds, async () => {
          const r = await post(base, tok, '/core-ws-rest/customer', evaluateCustomer(NS, next++));
          aloneLat.push(r.ms);
          if (r.status === 200) aloneAccepted += 1;
        }),
      );
      const al = summarize(aloneLat);
      push('single_import_alone.accepted_per_sec', aloneAccepted / aloneSeconds, 'req/s', limits.produce);
      push('single_import_alone.latency_p50', al.p50, 'ms');
      push('single_import_alone.latency_p99', al.p99, 'ms');
      pushCpu('single_import_alone', aloneCpu);
      for (const s of consumers) await launcher.startService(s, { env: clusterEnv, namespace: NS });
      await drained('accept path alone');
    }

    // 1. Single imports at 32 concurrent clients; end to end over the same customers.
    const accepted = new Map(); // communicationNumber -> accept time
    const commandsBefore = await storeCommands(launcher, NS);
    const lat = [];
    const t0 = performance.now();
    const [seconds, singleCpu] = await withCpu(() =>
      closedLoop(cfg.singleClients, cfg.singleSeconds, async () => {
        const body = evaluateCustomer(NS, next++);
        const r = await post(base, tok, '/core-ws-rest/customer', body);
        lat.push(r.ms);
        if (r.status === 200) accepted.set(body.communicationNumber, r.at);
      }),
    );
    const l = summarize(lat);
    push('single_import.accepted_per_sec', accepted.size / seconds, 'req/s', limits.produce);
    push('single_import.latency_p50', l.p50, 'ms');
    push('single_import.latency_p99', l.p99, 'ms');
    pushCpu('single_import', singleCpu);
    const allDone = () => [...accepted.keys()].every((c) => e2e.doneAt(c) !== undefined);
    await waitUntil(allDone, cfg.drainMs, 'single imports: every callback').catch((e) =>
      log(`  ${e.message}`),
    );
    const done = [...accepted.keys()].map((c) => e2e.doneAt(c)).filter((t) => t !== undefined);
    const e2eRate = done.length / ((Math.max(...done) - t0) / 1000);
    push('end_to_end.customers_per_sec', e2eRate, 'customers/s (accepted to last callback)');
    push('end_to_end.completed_share', (done.length / Math.max(1, accepted.size)) * 100, '%');
    await drained('single imports');
    const perCustomer = commandsPerCustomer(commandsBefore, await storeCommands(launcher, NS), accepted.size);
    if (perCustomer.total > 0)
      push(
        'end_to_end.store_commands_per_customer',
        perCustomer.total,
        `commands (${perCustomer.breakdown})`,
      );

    // 2. Batch imports of 1,000.
    const {
      accepted: batchAccepted,
      seconds: bSeconds,
      p99: batchP99,
      cpu: batchCpu,
    } = await batchLoop(cfg.batchSeconds);
    push('batch_import.customers_per_sec', batchAccepted / bSeconds, 'customers/s', limits.produce);
    push('batch_import.request_latency_p99', batchP99, `ms (${cfg.batchSize} customers)`);
    pushCpu('batch_import', batchCpu);
    const tb = performance.now();
    await drained('batch imports').catch((e) => log(`  ${e.message}`));
    push(
      'batch_import.decided_and_projected_per_sec',
      batchAccepted / ((performance.now() - tb) / 1000 + bSeconds),
      'customers/s',
    );

    // 3. Open loop at half the measured end-to-end rate (at most 500/s) for offeredSeconds, from an idle
    // pipeline.
    await quiet('before the offered load').catch((e) => log(`  ${e.message}`));
    const rate = Math.max(1, Math.min(500, Math.floor(e2eRate / 2)));
    // Where the offered load's records begin, for the stages below.
    const offeredFrom = await partitionEnds(admin, [topics.events, topics.commands]);
    const offered = new Map();
    const olat = [];
    const backlogAt = [];
    const tickMs = 20;
    const perTick = rate / (1000 / tickMs);
    const inFlight = new Set();
    const offeredErrors = [];
    const to = performance.now();
    const offeredCpuBefore = cpuSnapshot();
    let owed = 0;
    while (performance.now() - to < cfg.offeredSeconds * 1000) {
      owed += perTick;
      while (owed >= 1) {
        owed -= 1;
        const body = evaluateCustomer(NS, next++);
        const p = post(base, tok, '/core-ws-rest/customer', body)
          .then((r) => {
            olat.push(r.ms);
            if (r.status === 200) offered.set(body.communicationNumber, r.at);
          })
          // A request that failed is said below; it must not end the run without its clean-up.
          .catch((err) => offeredErrors.push(err))
          .finally(() => inFlight.delete(p));
        inFlight.add(p);
      }
      const elapsed = performance.now() - to;
      if (backlogAt.length < Math.floor(elapsed / 10000)) backlogAt.push(Number(await backlog()));
      await new Promise((r) => setTimeout(r, tickMs));
    }
    await Promise.all(inFlight);
    if (offeredErrors.length > 0)
      log(`  offered load: ${offeredErrors.length} requests failed (first: ${offeredErrors[0].message})`);
    const offeredCpu = coresBetween(offeredCpuBefore, cpuSnapshot(), (performance.now() - to) / 1000);
    const offeredAccepted = offered.size / cfg.offeredSeconds;
    await waitUntil(
      () => [...offered.keys()].every((c) => e2e.doneAt(c) !== undefined),
      cfg.drainMs,
      'offered load: every callback',
    ).catch((e) => log(`  ${e.message}`));
    const toCallback = summarize(
      [...offered].filter(([c]) => e2e.doneAt(c) !== undefined).map(([c, t]) => e2e.doneAt(c) - t),
    );
    // Each stage's share of the accept-to-callback time, from the records' own timestamps.
    const { stages, unread } = await offeredStages(kafka, admin, topics, offeredFrom, offered, e2e.doneAt);
    if (unread > 0) log(`  offered stages: ${unread} partitions not read to their end within a minute`);
    for (const [stage, ms] of stages) {
      if (ms.length === 0) continue;
      const st = summarize(ms);
      const name = stage.replace(/ /g, '_');
      push(`offered.stage.${name}_p50`, st.p50, `ms (${stage}, ${ms.length} customers)`);
      push(`offered.stage.${name}_p99`, st.p99, `ms (${stage})`);
    }
    push('offered.rate', rate, 'customers/s offered');
    push('offered.accepted_per_sec', offeredAccepted, 'req/s');
    push('offered.accept_to_callback_p50', toCallback.p50, 'ms');
    push('offered.accept_to_callback_p99', toCallback.p99, 'ms');
    pushCpu('offered', {
      total: offeredCpu.reduce((a, [, c]) => a + c, 0),
      breakdown: offeredCpu.map(([n, c]) => `${n} ${c}`).join(', '),
    });
    // Backlog growth: the backlog sampled every 10 s; growth = last sample minus the first.
    push(
      'offered.backlog_growth',
      backlogAt.length > 1 ? backlogAt.at(-1) - backlogAt[0] : 0,
      `messages over the run (samples every 10 s: ${backlogAt.join(', ')})`,
    );
    await drained('offered load');

    // 4. Decider and projector on a backlog: both stopped, commands queued by batch imports, then timed.
    // The reactors (evaluation, screening, callback) stay stopped while each is timed, so the stage has
    // the cores to itself as the limit it is compared with had them; they catch up before the replay.
    const reactors = ['evaluation', 'screening', 'callback'];
    await quiet('decider and projector backlog');
    for (const s of reactors) await launcher.stopService(s, { namespace: NS });
    await launcher.stopService('projector', { namespace: NS });
    await launcher.stopService('customer', { namespace: NS });
    let queued = 0;
    while (queued < cfg.backlog) {
      const customers = batchOf(Math.min(cfg.batchSize, cfg.backlog - queued));
      const r = await post(base, tok, '/core-ws-rest/batch-customers', { customers });
      if (r.status !== 200) throw new Error(`batch import answered ${r.status}`);
      queued += customers.length;
    }
    let t = performance.now();
    await launcher.startService('customer', { env: clusterEnv, namespace: NS });
    const [decider, deciderCpu] = await withCpu(() =>
      steadyDrain(() => markerTolerantLag(admin, groups.decider, topics.commands), cfg.drainMs, 'decider'),
    );
    push(
      'decider.commands_per_sec',
      queued / ((performance.now() - t) / 1000),
      `commands/s (${queued} queued, including its start and state rebuild)`,
    );
    if (decider.steady !== undefined)
      push('decider.steady_commands_per_sec', decider.steady, 'commands/s (once deciding)', [
        limits.ctp,
        limits.ctpDecider,
      ]);
    pushCpu('decider', deciderCpu);
    const events = await markerTolerantLag(admin, groups.projector, topics.events);
    t = performance.now();
    await launcher.startService('projector', { env: clusterEnv, namespace: NS });
    const [projector, projectorCpu] = await withCpu(() =>
      steadyDrain(() => markerTolerantLag(admin, groups.projector, topics.events), cfg.drainMs, 'projector'),
    );
    push(
      'projector.events_per_sec',
      Number(events) / ((performance.now() - t) / 1000),
      `events/s (${events} events, including its start)`,
    );
    if (projector.steady !== undefined)
      push('projector.steady_events_per_sec', projector.steady, 'events/s (once writing)', limits.storeBulk);
    pushCpu('projector', projectorCpu);
    for (const s of reactors) await launcher.startService(s, { env: clusterEnv, namespace: NS });
    await quiet('the reactors after the backlog');

    // 5. Replay of the whole log into fresh collections.
    const [{ stdout, stderr }, replayCpu] = await withCpu(() =>
      run(process.execPath, [path.join(root, 'services/projector/dist/cli/replay.js')], {
        // The side's own settings too (its store address, its privacy mode), as its services have them.
        env: {
          ...process.env,
          ...env,
          ...extraEnv,
          ...ns.env,
          TOPIC_REPLICATION_FACTOR: '1',
          LOG_LEVEL: 'info',
        },
        maxBuffer: 256 * 1024 * 1024,
      }),
    );
    const replay = `${stdout}${stderr}`
      .split('\n')
      .filter((x) => x.includes('replay done'))
      .map((x) => JSON.parse(x))[0];
    if (replay)
      push(
        'replay.events_per_sec',
        replay.events / replay.seconds,
        `events/s (${replay.events} events)`,
        limits.storeInsert,
      );
    // Each phase's seconds (trees since the twenty-fourth stop log them): the log read with the history
    // documents, the customer documents after it, the indexes, the switch.
    for (const [phase, seconds] of Object.entries(replay?.phases ?? {}))
      push(`replay.${phase}_seconds`, seconds, `s (${replay.customers ?? '?'} customers)`);
    pushCpu('replay', replayCpu);
    push('machine_speed.end', await machineSpeed(), speedUnit);

    // 6. Batches of 1,000 with every consumer stopped (the ceiling of the batch endpoint on this machine),
    // last: the backlog it leaves would weigh on any phase after it.
    if (cfg.aloneSeconds > 0) {
      for (const s of SERVICES.filter((x) => x !== 'ingress'))
        await launcher.stopService(s, { namespace: NS }).catch(() => undefined);
      const ba = await batchLoop(cfg.aloneSeconds);
      push('batch_import_alone.customers_per_sec', ba.accepted / ba.seconds, 'customers/s', limits.produce);
      push('batch_import_alone.request_latency_p99', ba.p99, `ms (${cfg.batchSize} customers)`);
      pushCpu('batch_import_alone', ba.cpu);
    }
  } finally {
    for (const s of [...SERVICES].reverse())
      await launcher.stopService(s, { namespace: NS }).catch(() => undefined);
    await admin.disconnect();
    await recv.close();
    await dropNamespaceDbs(mongo, ns.env.MONGODB_DB);
    await mongo.close();
    await dropNamespaceTopics(NS).catch(() => undefined);
  }
  return figures;
}

/** The raw limits of this machine's Kafka and store, measured once for both trees (test/bench/limits). */
export async function measureLimits(log = console.log) {
  const env = stackEnv();
  const limits = {};
  const tryLimit = async (file, fn) => {
    const f = path.join(ROOT, 'test/bench/limits', file);
    if (!existsSync(f)) return log(`  limit ${file}: not available`);
    try {
      await fn(await import(f));
    } catch (err) {
      log(`  limit ${file} failed: ${err.message}`);
    }
  };
  await tryLimit('kafka.mjs', async (m) => {
    const r = await m.produceLimit({ brokers: env.KAFKA_BROKERS.split(','), partitions: benchPartitions() });
    limits.produce = { name: 'raw_produce', value: r.messagesPerSec, unit: 'messages/s' };
  });
  await tryLimit('store.mjs', async (m) => {
    const r = await m.storeLimits({ uri: env.MONGODB_URI });
    limits.storeBulk = { name: 'raw_bulk_upsert', value: r.bulkUpsertPerSec, unit: 'docs/s' };
    limits.storeAll = r;
    // The replay writes history by unordered inserts (one communication event per event): its ceiling.
    limits.storeInsert = { name: 'raw_insert_many', value: r.insertManyPerSec, unit: 'docs/s' };
  });
  await tryLimit('ctp.mjs', async (m) => {
    const r = await m.ctpLimit({ brokers: env.KAFKA_BROKERS.split(','), partitions: benchPartitions() });
    limits.ctp = { name: 'raw_consume_transform_produce', value: r.messagesPerSec, unit: 'messages/s' };
  });
  // The same loop with the decider's traffic (DECIDER_SHAPE: a command in, three events and a snapshot
  // out, at their measured sizes): the ceiling of a process that writes what the decider writes.
  await tryLimit('ctp.mjs', async (m) => {
    const r = await m.ctpLimit({
      brokers: env.KAFKA_BROKERS.split(','),
      partitions: benchPartitions(),
      messages: 30_000,
      ...m.DECIDER_SHAPE,
    });
    limits.ctpDecider = {
      name: 'raw_ctp_decider_shaped',
      value: r.messagesPerSec,
      unit: `commands/s (${m.describeShape(m.DECIDER_SHAPE)})`,
    };
  });
  return limits;
}
