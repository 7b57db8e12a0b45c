#!/usr/bin/env node
// How fast the callback service's dispatcher drains a queue that piled up while a receiver was down, once
// it answers again (decision 0071): the service's own DeliveryStore, Dispatcher, CallbackSender, slots and
// lanes, on a scratch database of the local stack's store, against a local receiver that answers 204 at
// once. Rounds read the store every time (readAhead 0, before decision 0071) and read ahead (10, the
// default), alternating, each on a freshly filled queue. Also checks that nothing is sent twice and that
// each customer's deliveries arrive in stream-version order. Not a test: nothing passes or fails on speed.
//   node test/bench/callback-drain.mjs      (after `npm run build`, with the local stack up)
// BENCH_DRAIN_ENTRIES (100,000 pending deliveries: two events each of 50,000 customers, one receiver),
// BENCH_DRAIN_SECONDS (60 per run), BENCH_DRAIN_ROUNDS (1 pair), BENCH_DRAIN_ENDPOINTS (1: the receivers the
// customers' deliveries go to, each its own endpoint with its share of the attempts at once).
// BENCH_DRAIN_BEFORE_DIST: a build of the callback service to run as the 'before' side instead of this
// build without read-ahead, e.g. the build before a change, copied first with
// `cp -r services/callback/dist services/callback/dist-before` (it must sit in services/callback to find
// its packages); both sides then run with the default read-ahead.
import { createRequire } from 'node:module';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { stackEnv } from './stack.mjs';

const require = createRequire(import.meta.url);
const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const { MongoClient } = require(require.resolve('mongodb', { paths: [path.join(ROOT, 'packages/store')] }));
/** The callback service's pieces from one build (`services/callback/dist` or the 'before' copy). */
function build(dir) {
  const dist = (f) => require(path.resolve(ROOT, dir, f));
  return {
    dir,
    DeliveryStore: dist('delivery-store.js').DeliveryStore,
    deliveryId: dist('deliveries-of.js').deliveryId,
    Dispatcher: dist('dispatcher.js').Dispatcher,
    CallbackSender: dist('callback-sender.js').CallbackSender,
    DeliverySlots: dist('delivery-slots.js').DeliverySlots,
    QueuedLanes: dist('queued-lanes.js').QueuedLanes,
    createCallbackMetrics: dist('callback-metrics.js').createCallbackMetrics,
  };
}
const current = build('services/callback/dist');
const beforeDist = process.env.BENCH_DRAIN_BEFORE_DIST;
// Without a 'before' build: this build, every round reading the store (before decision 0071).
const sides = beforeDist
  ? { before: [build(beforeDist), 10], after: [current, 10] }
  : { before: [current, 0], after: [current, 10] };
const { createLogger, createMetricsRegistry } = require(path.join(ROOT, 'packages/runtime/dist/index.js'));
const { exportJWK, generateKeyPair } = require(
  require.resolve('jose', { paths: [path.join(ROOT, 'services/callback')] }),
);

const entries = Number(process.env.BENCH_DRAIN_ENTRIES ?? 100000);
const seconds = Number(process.env.BENCH_DRAIN_SECONDS ?? 60);
const rounds = Number(process.env.BENCH_DRAIN_ROUNDS ?? 1);
const customers = Math.max(1, Math.floor(entries / 2));
const endpoints = Math.max(1, Number(process.env.BENCH_DRAIN_ENDPOINTS ?? 1));

// The receiver: 204 at once; every CloudEvent id and its customer's stream version, in arrival order.
let received = [];
const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    received.push({ id: String(req.headers['ce-id']), subject: String(req.headers['ce-subject']) });
    res.writeHead(204).end();
  });
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const url = `http://127.0.0.1:${server.address().port}/cb`;
const { privateKey } = await generateKeyPair('ES256', { extractable: true });
const signingKey = { ...(await exportJWK(privateKey)), kid: 'bench-1', alg: 'ES256' };
const client = await new MongoClient(process.env.MONGODB_URI ?? stackEnv().MONGODB_URI).connect();

async function fill(store, { deliveryId }) {
  const now = new Date();
  const due = new Date(now.getTime() - 1000);
  let batch = [];
  const t0 = performance.now();
  for (let v = 1; v <= 2; v++) {
    for (let c = 0; c < customers; c++) {
      const eventId = `${randomUUID()}.${v}`;
      const endpointId = `ep-${c % endpoints}`;
      batch.push({
        delivery: {
          _id: deliveryId({ eventId, correlationId: `COMM-${c}` }, endpointId, true),
          eventId,
          endpointId,
          url,
          businessUnit: 'BU1',
          communicationNumber: `COMM-${c}`,
          customerExtId: `C-${c}`,
          streamId: `BU1:C-${c}`,
          streamVersion: v,
          cloudEvent: {
            specversion: '1.0',
            id: eventId,
            type: 'com.crs.risk-assessment.completed',
            source: `COMM-${c}`,
            subject: `C-${c}`,
            time: now.toISOString(),
            data: { version: v },
          },
          nextAttemptAt: due,
        },
        status: 'pending',
        attempts: 1,
        attempt: { at: now, status: 503, ms: 3 },
        nextAttemptAt: due,
      });
      if (batch.length >= 1500) {
        await store.recordBatch(batch, now);
        batch = [];
      }
    }
  }
  if (batch.length) await store.recordBatch(batch, now);
  return (performance.now() - t0) / 1000;
}

async function run(label, code, readAhead, index) {
  const { DeliveryStore, Dispatcher, CallbackSender, DeliverySlots, QueuedLanes, createCallbackMetrics } =
    code;
  const db = client.db(`bench_cdrain_${index}_${Date.now().toString(36)}`);
  try {
    const store = new DeliveryStore(db);
    // Marked before the indexes, as the service does (decision 0074); both exist in older builds too.
    await store.markKeys();
    await store.ensureIndexes();
    const filled = await fill(store, code);
    received = [];
    const registry = createMetricsRegistry(`bench_drain_${index}`);
    const metrics = createCallbackMetrics(registry);
    const sender = new CallbackSender({ signingKey, timeoutMs: 5000, metrics, clock: () => new Date() });
    const dispatcher = new Dispatcher({
      store,
      logger: createLogger('callback-drain-bench', 'error'),
      registry,
      metrics,
      sender,
      slots: new DeliverySlots(32, 8),
      lanes: new QueuedLanes(),
      maxAttempts: 10,
      timeoutMs: 5000,
      backoffBaseMs: 1000,
      backoffMaxMs: 60000,
      pollMs: 200,
      readAhead,
    });
    const t0 = performance.now();
    await dispatcher.start();
    while (performance.now() - t0 < seconds * 1000 && received.length < entries)
      await new Promise((r) => setTimeout(r, 250));
    const took = (performance.now() - t0) / 1000;
    await dispatcher.stop();
    sender.close();
    const ids = new Set(received.map((r) => r.id));
    const lastVersion = new Map();
    let outOfOrder = 0;
    for (const r of received) {
      const v = Number(r.id.split('.').pop());
      if ((lastVersion.get(r.subject) ?? 0) > v) outOfOrder++;
      lastVersion.set(r.subject, v);
    }
    const line = {
      label,
      build: code.dir,
      readAhead,
      filledSeconds: Math.round(filled * 10) / 10,
      delivered: received.length,
      seconds: Math.round(took * 10) / 10,
      perSecond: Math.round(received.length / took),
      sentTwice: received.length - ids.size,
      outOfOrder,
    };
    console.log(JSON.stringify(line));
    return line;
  } finally {
    await db.dropDatabase();
  }
}

const results = [];
try {
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 === 0 ? ['before', 'after'] : ['after', 'before'];
    for (const label of order) results.push(await run(label, ...sides[label], results.length));
  }
  console.log(JSON.stringify({ entries, endpoints, seconds, results }));
} finally {
  await client.close();
  server.close();
}
process.exit(0);
