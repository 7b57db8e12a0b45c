#!/usr/bin/env node
// The callback delivery log read at scale (decision 0066): the delivery-log API's read and redelivery by
// communication, on a log keyed by communication against one written before its keys (no marker, read by
// `communicationNumber`: MongoDB's index, a scan on FerretDB v1). Uses the callback service's own
// DeliveryStore and delivery ids. Not a test: nothing here passes or fails on speed.
//   node test/bench/delivery-log.mjs      (after `npm run build`, with the local stack up)
// BENCH_DLOG_COMMUNICATIONS (default 100,000; three deliveries each, CloudEvents of about 1.4 KB),
// BENCH_DLOG_ROUNDS (2; the two logs read alternately, three reads of an early, a middle and a late
// communication per round). Also times the callback service's read at start (`restoreQueue`: pending
// deliveries by status). The two scratch databases are dropped at the end.
import { createRequire } from 'node:module';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { stackEnv } from './stack.mjs';

const require = createRequire(import.meta.url);
const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const { MongoClient } = require(require.resolve('mongodb', { paths: [path.join(ROOT, 'packages/store')] }));
const { DeliveryStore } = require(path.join(ROOT, 'services/callback/dist/delivery-store.js'));
const { deliveryId } = require(path.join(ROOT, 'services/callback/dist/deliveries-of.js'));

const communications = Number(process.env.BENCH_DLOG_COMMUNICATIONS ?? 100000);
const rounds = Number(process.env.BENCH_DLOG_ROUNDS ?? 2);
const ms = (t0) => Number(process.hrtime.bigint() - t0) / 1e6;
const comm = (c) => `COMM-2026-${String(c).padStart(7, '0')}`;

/** A log of `communications` × 3 delivered deliveries, written through recordBatch like the service's. */
async function fill(client, name, keyed) {
  const store = new DeliveryStore(client.db(name));
  // Marked before the indexes, as the service does (decision 0074: a keyed log has no number index).
  if (keyed && !(await store.markKeys())) throw new Error(`${name} is not empty`);
  await store.ensureIndexes();
  const at = new Date();
  const pad = 'x'.repeat(1200);
  const t0 = process.hrtime.bigint();
  let batch = [];
  for (let c = 0; c < communications; c++) {
    for (let e = 0; e < 3; e++) {
      const eventId = `${randomUUID()}.${e}`;
      const delivery = {
        _id: deliveryId({ eventId, correlationId: comm(c) }, 'ep-1', keyed),
        eventId,
        endpointId: 'ep-1',
        url: 'http://127.0.0.1:9/cb',
        businessUnit: 'BU1',
        communicationNumber: comm(c),
        customerExtId: `C-${c}`,
        streamId: `BU1:C-${c}`,
        streamVersion: e + 1,
        cloudEvent: {
          specversion: '1.0',
          id: eventId,
          type: 'com.crs.risk-assessment.completed',
          source: comm(c),
          subject: `C-${c}`,
          time: at.toISOString(),
          data: { pad },
        },
        nextAttemptAt: at,
      };
      batch.push({
        delivery,
        status: 'delivered',
        attempts: 1,
        attempt: { at, status: 204, ms: 3 },
        nextAttemptAt: at,
      });
    }
    if (batch.length >= 1500) {
      await store.recordBatch(batch, at);
      batch = [];
    }
  }
  if (batch.length) await store.recordBatch(batch, at);
  const took = ms(t0);
  console.log(
    `${keyed ? 'keyed' : 'unkeyed'} log: ${communications * 3} deliveries written in ${(took / 1000).toFixed(1)} s (${Math.round((communications * 3 * 1000) / took)}/s)`,
  );
  return store;
}

async function main() {
  const client = await new MongoClient(stackEnv().MONGODB_URI).connect();
  const tag = Date.now().toString(36);
  const names = {
    unkeyed: `crs_bench_dlog_old_${tag}_callback`,
    keyed: `crs_bench_dlog_key_${tag}_callback`,
  };
  try {
    const stores = {
      unkeyed: await fill(client, names.unkeyed, false),
      keyed: await fill(client, names.keyed, true),
    };
    // What the callback service reads at every start (pending deliveries without a queue entry): by status.
    for (const form of ['unkeyed', 'keyed']) {
      const t0 = process.hrtime.bigint();
      const restored = await stores[form].restoreQueue();
      console.log(`${form} log: restoreQueue at start ${ms(t0).toFixed(0)} ms (${restored} restored)`);
    }
    const picks = { early: 5, middle: Math.floor(communications / 2), late: communications - 5 };
    for (let r = 0; r < rounds; r++) {
      for (const form of ['unkeyed', 'keyed']) {
        const store = stores[form];
        const parts = [];
        for (const [where, c] of Object.entries(picks)) {
          const reads = [];
          for (let i = 0; i < 3; i++) {
            const t0 = process.hrtime.bigint();
            const found = await store.ofCommunication('BU1', comm(c), 1000);
            reads.push(ms(t0));
            if (found.length !== 3) throw new Error(`${form} ${comm(c)}: ${found.length} deliveries`);
          }
          const t0 = process.hrtime.bigint();
          await store.redeliver({ businessUnit: 'BU1', communicationNumber: comm(c) }, new Date());
          parts.push(
            `${where} ${reads.map((x) => x.toFixed(1)).join(' / ')} ms (redeliver ${ms(t0).toFixed(1)} ms)`,
          );
        }
        console.log(`round ${r + 1}, ${form}: ${parts.join(' | ')}`);
      }
    }
  } finally {
    for (const name of Object.values(names)) await client.db(name).dropDatabase();
    await client.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
