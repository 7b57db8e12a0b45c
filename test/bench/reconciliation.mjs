#!/usr/bin/env node
// The operations reconciliation report's read (GET /api/integration-services/v1/operations-reconciliation)
// on a large operations read model: one range query on `registeredAt` (before decision 0069) against the
// ingress's reconciliationRows (the window's days as `registeredAt` prefixes, served by the index with
// FerretDB patch 0008), alternating, on a scratch database of the local stack's store. Not a test:
// nothing here passes or fails on speed.
//
//   node test/bench/reconciliation.mjs      (after `npm run build`, with the local stack up)
//
// BENCH_RECON_OPERATIONS (200000): operations, one a minute from 2026-01-01, in three business units;
// BENCH_RECON_ROUNDS (3). Windows read: the last day, the last week, and one day in the middle.
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { stackEnv } from './stack.mjs';
import { round } from './stats.mjs';

const require = createRequire(import.meta.url);
const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');
const { reconciliationRows } = require(
  path.join(ROOT, 'services/ingress/dist/routes/reconciliation-query.js'),
);

const N = Number(process.env.BENCH_RECON_OPERATIONS ?? 200000);
const ROUNDS = Number(process.env.BENCH_RECON_ROUNDS ?? 3);
const BASE = Date.UTC(2026, 0, 1);
const MINUTE = 60000;
const at = (n) => new Date(BASE + n * MINUTE).toISOString();

const client = await new MongoClient(process.env.MONGODB_URI ?? stackEnv().MONGODB_URI).connect();
const db = client.db(`bench_recon_${Date.now().toString(36)}`);
const operations = db.collection('operations');
const result = { operations: N, rounds: ROUNDS, windows: {} };
try {
  // The archive service's indexes of the read model (services/archive/src/app.ts).
  await operations.createIndex({ businessUnit: 1, extId: 1 });
  await operations.createIndex({ registeredAt: 1 });
  await operations.createIndex({ date: 1 });
  let t = performance.now();
  for (let i = 0; i < N; i += 1000) {
    const docs = [];
    for (let n = i; n < Math.min(N, i + 1000); n++) {
      const businessUnit = ['DEMO', 'OTHER', 'THIRD'][n % 3];
      docs.push({
        _id: `${businessUnit}:OP-${n}`,
        businessUnit,
        extId: `OP-${n}`,
        customerExtId: `C-${n % 5000}`,
        type: 'PAYMENT',
        direction: 'OUT',
        amount: 100 + (n % 1000),
        currency: 'EUR',
        date: at(n).slice(0, 10),
        counterparty: { name: 'Counterparty Example', country: 'LT' },
        description: null,
        revision: 1,
        version: 1,
        updatedAt: at(n),
        registeredAt: at(n),
        archived: false,
      });
    }
    await operations.insertMany(docs, { ordered: false });
  }
  console.log(`${N} operations written in ${round((performance.now() - t) / 1000, 1)} s`);

  const oneRange = (from, till) =>
    operations
      .find({ registeredAt: { $gte: from, $lte: till } }, { projection: { extId: 1, businessUnit: 1 } })
      .sort({ registeredAt: 1, _id: 1 })
      .limit(10000)
      .toArray();
  const byPrefix = (from, till) => reconciliationRows(operations, {}, from, till, 10000);
  const windows = {
    'last day': [at(N - 1440), at(N)],
    'last week': [at(N - 7 * 1440), at(N)],
    'a day in the middle': [at(Math.floor(N / 2)), at(Math.floor(N / 2) + 1440)],
  };
  for (const [name, [from, till]] of Object.entries(windows)) {
    const times = { oneRange: [], byPrefix: [] };
    let rows = 0;
    for (let r = 0; r < ROUNDS; r++) {
      for (const [label, read] of r % 2 === 0
        ? [
            ['oneRange', oneRange],
            ['byPrefix', byPrefix],
          ]
        : [
            ['byPrefix', byPrefix],
            ['oneRange', oneRange],
          ]) {
        t = performance.now();
        const found = await read(from, till);
        times[label].push(round(performance.now() - t, 1));
        if (label === 'oneRange') rows = found.length;
        else if (found.length !== rows && rows !== 0)
          throw new Error(`${name}: ${found.length} rows against ${rows}`);
      }
    }
    result.windows[name] = { rows, ms: times };
    console.log(
      `${name} (${rows} rows): one range ${times.oneRange.join(', ')} ms; by prefix ${times.byPrefix.join(', ')} ms`,
    );
  }
  console.log(JSON.stringify(result));
} finally {
  await db.dropDatabase();
  await client.close();
}
