#!/usr/bin/env node
// The callback retry queue at scale: what the callback service's dispatcher reads every round (every
// CALLBACK_POLL_MS, 200 ms) and every refresh (5 s) while a receiver is down and deliveries pile up in
// `callback_queue`. Uses the callback service's own DeliveryStore on a scratch database of the local stack's
// store. Not a test: nothing here passes or fails on speed.
//   node test/bench/callback-queue.mjs      (after `npm run build`, with the local stack up)
// BENCH_CQUEUE_ENTRIES (100,000 pending deliveries: 30,000 customers' lanes, the receiver down, retries
// due over the next hour, 1 % due now), BENCH_CQUEUE_ROUNDS (3).
import { createRequire } from 'node:module';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { stackEnv } from './stack.mjs';

const require = createRequire(import.meta.url);
const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const { MongoClient } = require(require.resolve('mongodb', { paths: [path.join(ROOT, 'packages/store')] }));
const { DeliveryStore } = require(path.join(ROOT, 'services/callback/dist/delivery-store.js'));
const { deliveryId } = require(path.join(ROOT, 'services/callback/dist/deliveries-of.js'));

const entries = Number(process.env.BENCH_CQUEUE_ENTRIES ?? 100000);
const rounds = Number(process.env.BENCH_CQUEUE_ROUNDS ?? 3);
const customers = Math.max(1, Math.floor(entries / 3.3));
const ms = (t0) => Number(process.hrtime.bigint() - t0) / 1e6;
const r1 = (x) => Math.round(x * 10) / 10;

const client = await new MongoClient(process.env.MONGODB_URI ?? stackEnv().MONGODB_URI).connect();
const name = `bench_cqueue_${Date.now().toString(36)}`;
const result = { entries, rounds };
try {
  const store = new DeliveryStore(client.db(name));
  await store.prepare();
  const now = new Date();
  const pad = 'x'.repeat(1200);
  let t0 = process.hrtime.bigint();
  let batch = [];
  for (let n = 0; n < entries; n++) {
    const c = n % customers;
    const eventId = `${randomUUID()}.${n}`;
    const correlationId = `COMM-${c}`;
    // 1 % due now, the rest spread over the next hour (backoff of a receiver that is down).
    const nextAttemptAt = new Date(now.getTime() + (n % 100 === 0 ? -1000 : (n * 37) % 3_600_000));
    batch.push({
      delivery: {
        _id: deliveryId({ eventId, correlationId }, 'ep-1', true),
        eventId,
        endpointId: 'ep-1',
        url: 'http://127.0.0.1:9/cb',
        businessUnit: 'BU1',
        communicationNumber: correlationId,
        customerExtId: `C-${c}`,
        streamId: `BU1:C-${c}`,
        streamVersion: Math.floor(n / customers) + 1,
        cloudEvent: {
          specversion: '1.0',
          id: eventId,
          type: 'com.crs.risk-assessment.completed',
          data: { pad },
        },
        nextAttemptAt,
      },
      status: 'pending',
      attempts: 1,
      attempt: { at: now, status: 503, ms: 3 },
      nextAttemptAt,
    });
    if (batch.length >= 1500) {
      await store.recordBatch(batch, now);
      batch = [];
    }
  }
  if (batch.length) await store.recordBatch(batch, now);
  console.log(`${entries} pending deliveries queued in ${r1(ms(t0) / 1000)} s`);

  const timed = {};
  const time = async (label, work) => {
    const t = process.hrtime.bigint();
    const out = await work();
    (timed[label] ??= []).push(r1(ms(t)));
    return out;
  };
  for (let r = 0; r < rounds; r++) {
    const due = await time('due (256, earliest first)', () => store.due(new Date(), 256));
    const lanes = new Map();
    for (const d of due)
      if (!lanes.has(`${d.streamId}|${d.endpointId}`)) lanes.set(`${d.streamId}|${d.endpointId}`, d);
    await time("blockedAmong (the round's lanes)", () => store.blockedAmong([...lanes.values()]));
    await time('pendingCount (counting the entries)', () => store.pendingCount());
    await time('pendingEstimate (the queue gauge, decision 0070)', () => store.pendingEstimate());
    const all = await time('queued (the 5 s refresh of lanes)', () => store.queued());
    if (r === 0) console.log(`due: ${due.length}, lanes: ${lanes.size}, queued: ${all.length}`);
  }
  for (const [label, list] of Object.entries(timed)) console.log(`${label}: ${list.join(', ')} ms`);
  result.ms = timed;
  console.log(JSON.stringify(result));
} finally {
  await client.db(name).dropDatabase();
  await client.close();
}
