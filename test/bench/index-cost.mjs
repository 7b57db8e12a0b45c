#!/usr/bin/env node
// What a secondary index costs the store per inserted document (decision 0074): delivery-log-shaped
// documents (a communication-keyed `_id`, the `status` index) inserted in batches of 20 (a consumed
// batch's deliveries) into a collection with and without the `{businessUnit, communicationNumber}` index,
// alternating, for communication numbers that arrive in order (`COMM-000000001`, ...) and at random (16 hex digits),
// with FerretDB's CPU and the bytes it writes (its WAL and checkpoints: `wchar` of /proc/<pid>/io) per
// document. Every document is a communication of its own (each insert lands on its own leaf of the
// `_id` index, as a log's deliveries do when they arrive in different batches). Not a test: nothing here
// passes or fails on speed.
//   node test/bench/index-cost.mjs        (with the local stack up)
// INDEX_COST_DOCS (20000) per run, INDEX_COST_ROUNDS (3) pairs per kind of number.
import { createRequire } from 'node:module';
import { randomBytes, randomUUID } from 'node:crypto';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { stackEnv } from './stack.mjs';
import { ioSnapshot } from './cpu.mjs';
import { round } from './stats.mjs';

const require = createRequire(import.meta.url);
const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const { MongoClient } = require(require.resolve('mongodb', { paths: [path.join(ROOT, 'packages/store')] }));
const { communicationKey } = require(path.join(ROOT, 'packages/store/dist/index.js'));

const DOCS = Number(process.env.INDEX_COST_DOCS ?? 20000);
const ROUNDS = Number(process.env.INDEX_COST_ROUNDS ?? 3);
const BATCH = 20;

/** A delivery-log document as the callback service writes it for a delivered callback (~1.3 KB). */
function delivery(seq, numbers) {
  const communicationNumber =
    numbers === 'ordered' ? `COMM-${String(seq).padStart(9, '0')}` : `COMM-${randomBytes(8).toString('hex')}`;
  const at = new Date();
  return {
    _id: `${communicationKey(communicationNumber)}${randomUUID()}|ep-1`,
    businessUnit: 'BU1',
    communicationNumber,
    streamId: `BU1:C-${seq}`,
    endpointId: 'ep-1',
    streamVersion: 3,
    eventId: randomUUID(),
    status: 'delivered',
    attempts: 1,
    nextAttemptAt: at,
    createdAt: at,
    deliveredAt: at,
    log: [{ at, status: 204, ms: 12 }],
    cloudEvent: JSON.stringify({
      specversion: '1.0',
      type: 'crs.customer.risk-assessed',
      data: 'x'.repeat(800),
    }),
  };
}

const client = await new MongoClient(stackEnv().MONGODB_URI).connect();
const results = [];
let seq = 0;
for (const numbers of ['ordered', 'random']) {
  // A database of its own per kind of number, so the second kind does not run on a larger file.
  const db = client.db(`bench_index_cost_${numbers}_${Date.now().toString(36)}`);
  try {
    for (let r = 0; r < ROUNDS; r++)
      for (const variant of r % 2 === 0 ? ['with', 'without'] : ['without', 'with']) {
        const col = db.collection(`log_${variant}_${r}`);
        await col.createIndex({ status: 1 });
        if (variant === 'with') await col.createIndex({ businessUnit: 1, communicationNumber: 1 });
        await col.insertOne({ _id: 'first' });
        const s0 = ioSnapshot().get('ferretdb');
        const t0 = performance.now();
        for (let i = 0; i < DOCS; i += BATCH)
          await col.insertMany(
            Array.from({ length: BATCH }, () => delivery(seq++, numbers)),
            { ordered: false },
          );
        const seconds = (performance.now() - t0) / 1000;
        const s1 = ioSnapshot().get('ferretdb');
        const r1 = {
          numbers,
          variant,
          round: r,
          docsPerSec: round(DOCS / seconds, 0),
          ...(s0 && s1
            ? {
                storeCpuUsPerDoc: round(((s1.cpu - s0.cpu) * 1e6) / DOCS, 0),
                storeKBPerDoc: round((s1.bytes - s0.bytes) / 1024 / DOCS, 1),
              }
            : {}),
        };
        results.push(r1);
        console.log(
          `${numbers} numbers, ${variant} the index: ${r1.docsPerSec} docs/s, store ${r1.storeCpuUsPerDoc ?? '-'} µs of CPU and ${r1.storeKBPerDoc ?? '-'} KB written per document`,
        );
      }
  } finally {
    await db.dropDatabase();
  }
}
await client.close();
console.log(JSON.stringify({ docs: DOCS, rounds: ROUNDS, batch: BATCH, results }));
