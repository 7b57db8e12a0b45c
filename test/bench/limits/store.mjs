// The store's raw rates on the project's own access patterns, with the mongodb driver and nothing else
// (no Kafka, no decoding, no version guards), on a scratch database dropped after:
//   bulkUpsertPerSec          unordered bulkWrite of updateOne({_id}, {$set}, {upsert}) in batches of 500
//                             (the projector's ceiling); the key space is revisited, so most are updates
//   insertManyPerSec          insertMany, unordered, batches of 500 new documents (history collections)
//   uniqueInsertE11000PerSec  insertMany, unordered, batches of 500 where half the _ids exist already and
//                             fail with E11000 (the ingress's communicationNumber reservations)
//   findByIdPerSec            findOne({_id}), several in flight (version reads, reservation checks)
//   findBySecondaryPerSec     findOne({customerExtId}) on an indexed field, several in flight (FerretDB's
//                             SQLite backend scans for any filter besides _id: docs/decisions/0008)
// Each pattern runs for `seconds` (3 by default). Documents are about 700 bytes, shaped like a customer.
// Needs FerretDB with deploy/local/stack/ferretdb/patches/0002 (or MongoDB): the released 1.24.0 hangs
// for good on an `update` command with about 100 updates (docs/decisions/0015).
//
//   const r = await storeLimits({ uri: 'mongodb://127.0.0.1:27018/' });
//   node test/bench/limits/store.mjs [uri]      (default: MONGODB_URI, else .local/stack.env)
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import path from 'node:path';
import { stackEnv } from '../stack.mjs';

const require = createRequire(import.meta.url);
const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../..');
const { MongoClient } = require(require.resolve('mongodb', { paths: [path.join(ROOT, 'packages/store')] }));

const BATCH = 500;
const KEYS = 5_000; // documents the upsert phase cycles over; the find phases read them
const BULK_IN_FLIGHT = 2;
const FIND_IN_FLIGHT = 4;

function customer(i, version) {
  return {
    businessUnit: 'BENCH',
    customerExtId: `EXT-${i}`,
    version,
    status: 'ASSESSED',
    riskLevel: ['LOW', 'MEDIUM', 'HIGH'][i % 3],
    data: {
      firstName: 'Benchmark',
      lastName: `Customer ${i}`,
      birthDate: '1980-01-01',
      nationality: 'DE',
      address: { street: 'Long Street 1', city: 'Example City', postalCode: '12345', country: 'DE' },
      occupation: 'Engineer',
      products: ['CURRENT_ACCOUNT', 'CARD'],
    },
    latestAssessment: { score: (i * 7) % 100, level: 'LOW', matrixVersion: 3, assessedAt: new Date() },
    screening: { sanctions: false, pep: false, checkedAt: new Date() },
    updatedAt: new Date(),
  };
}

/** Runs `op` with `inFlight` concurrent loops for `seconds`; `op` returns the documents it handled. */
async function rate(seconds, inFlight, op) {
  let done = 0;
  let calls = 0;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (performance.now() < deadline) {
        const handled = await op(calls++); // not `done += await …`: that reads `done` before the await
        done += handled;
      }
    }),
  );
  const perSec = done / ((performance.now() - started) / 1000);
  return perSec < 10 ? Math.round(perSec * 10) / 10 : Math.round(perSec);
}

export async function storeLimits({ uri, seconds = 3, log = () => {} } = {}) {
  const client = new MongoClient(uri, { serverSelectionTimeoutMS: 10_000, maxPoolSize: 16 });
  await client.connect();
  const db = client.db(`bench_limit_${Date.now().toString(36)}_${process.pid}`);
  try {
    const customers = db.collection('customers');
    const history = db.collection('history');
    const reservations = db.collection('reservations');
    await customers.createIndex({ customerExtId: 1 });
    // Collections exist before the clock starts (FerretDB creates a table on first write).
    await history.insertOne({ _id: 'warm-up' });
    await reservations.insertOne({ _id: 'warm-up' });

    // Seed the key space once, so every later phase sees the same collection size.
    for (let from = 0; from < KEYS; from += BATCH) {
      await customers.insertMany(
        Array.from({ length: BATCH }, (_, j) => ({ _id: `BENCH:${from + j}`, ...customer(from + j, 1) })),
        { ordered: false },
      );
    }

    let version = 1;
    const bulkUpsertPerSec = await rate(seconds, BULK_IN_FLIGHT, async (call) => {
      const from = (call * BATCH) % KEYS;
      version++;
      const ops = Array.from({ length: BATCH }, (_, j) => {
        const i = from + j;
        return {
          updateOne: { filter: { _id: `BENCH:${i}` }, update: { $set: customer(i, version) }, upsert: true },
        };
      });
      await customers.bulkWrite(ops, { ordered: false });
      return BATCH;
    });
    log(`  bulk upsert by _id (batches of ${BATCH}): ${bulkUpsertPerSec} docs/s`);

    let nextHistory = 0;
    const insertManyPerSec = await rate(seconds, BULK_IN_FLIGHT, async () => {
      const docs = Array.from({ length: BATCH }, () => ({
        _id: `H:${nextHistory++}`,
        ...customer(nextHistory, 1),
      }));
      await history.insertMany(docs, { ordered: false });
      return BATCH;
    });
    log(`  insertMany unordered (batches of ${BATCH}): ${insertManyPerSec} docs/s`);

    // Every batch repeats the second half of the previous one: half of each batch collides.
    let nextReservation = 0;
    const uniqueInsertE11000PerSec = await rate(seconds, 1, async () => {
      const from = Math.max(0, nextReservation - BATCH / 2);
      nextReservation = from + BATCH;
      const docs = Array.from({ length: BATCH }, (_, j) => ({
        _id: `4:BENCH:C${from + j}`,
        businessUnit: 'BENCH',
        communicationNumber: `C${from + j}`,
        customerExtId: `EXT-${from + j}`,
        reservedAt: new Date(),
        commandId: `cmd-${from + j}`,
      }));
      try {
        await reservations.insertMany(docs, { ordered: false });
      } catch (err) {
        const errors = err.writeErrors ?? [];
        if (errors.length === 0 || errors.some((e) => e.code !== 11000)) throw err;
      }
      return BATCH;
    });
    log(`  unique insert, half E11000 (insertMany of ${BATCH}): ${uniqueInsertE11000PerSec} docs/s`);

    const findByIdPerSec = await rate(seconds, FIND_IN_FLIGHT, async (call) => {
      const doc = await customers.findOne({ _id: `BENCH:${(call * 7919) % KEYS}` });
      if (doc === null) throw new Error('findOne by _id found nothing');
      return 1;
    });
    log(`  findOne by _id: ${findByIdPerSec}/s`);

    const findBySecondaryPerSec = await rate(seconds, FIND_IN_FLIGHT, async (call) => {
      const doc = await customers.findOne({ customerExtId: `EXT-${(call * 7919) % KEYS}` });
      if (doc === null) throw new Error('findOne by customerExtId found nothing');
      return 1;
    });
    log(`  findOne by an indexed secondary field (${KEYS} documents): ${findBySecondaryPerSec}/s`);

    return {
      bulkUpsertPerSec,
      insertManyPerSec,
      uniqueInsertE11000PerSec,
      findByIdPerSec,
      findBySecondaryPerSec,
    };
  } finally {
    await db.dropDatabase().catch(() => {});
    await client.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const uri = process.argv[2] ?? process.env.MONGODB_URI ?? stackEnv().MONGODB_URI;
  console.log(
    JSON.stringify(
      await storeLimits({ uri, seconds: Number(process.env.LIMIT_SECONDS ?? 3), log: console.log }),
    ),
  );
}
