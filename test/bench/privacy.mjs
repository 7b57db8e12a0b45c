#!/usr/bin/env node
// The cost of personal-data encryption (docs/privacy.md, issue #18). Part of `npm run bench`
// (test/bench/run.mjs, section "Personal-data encryption"); `npm run bench privacy` runs it with the pipeline
// twice, in plain and encrypted mode, side by side. Not a test: nothing here passes or fails on speed.
//   - benchPrivacy: in process, no stack: encryptFields and decryptFields of the benchmark customer record
//     with a key already in memory (the cache hit every customer but the first of a TTL sees), and how much
//     larger the record gets.
//   - benchKeyStore: against the local stack's store (FerretDB, MONGODB_URI of .local/stack.env), in a
//     scratch database dropped afterwards: data keys created per second by `DataKeyStore.keysFor` in batches
//     of 500 new customers (the ingress's one insertMany per group of requests); keys read per second by
//     `currentKey` with the cache off (what a decrypting service pays per customer on a cache miss: a
//     findOne by _id and an unwrap), one at a time and from 16 concurrent readers; and
//     `CustomerPrivacy.encryptCustomers` end to end for batches of 500 new customers (keys and fields).
//     BENCH_PRIVACY_CUSTOMERS (default 10,000) sets how many customers each store phase handles.
// Alone: `node test/bench/privacy.mjs` (after `npm run build`; the store phase only when the stack is up).
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { sampleCustomer } from './in-process.mjs';
import { round, summarize } from './stats.mjs';

const require = createRequire(import.meta.url);
const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const loadPrivacy = () => require(path.join(ROOT, 'packages/privacy/dist/index.js'));
// The stream id of a customer, the unit of keys and erasure (the contracts' pure entry).
const loadStreamKey = () => require(path.join(ROOT, 'packages/contracts/dist/types.js')).streamKey;

export async function benchPrivacy(n = 2000, rounds = 5) {
  const privacy = loadPrivacy();
  const streamKey = loadStreamKey();
  const keys = new privacy.MemoryDataKeySource();
  const cipher = new privacy.PersonalDataCipher(keys);
  const records = Array.from({ length: n }, (_, i) => sampleCustomer(i));
  const ids = records.map((r) => streamKey(r.businessUnit, r.customerExtId));
  // The form the services publish: sealed, one ciphertext per record (decision 0054).
  const encrypted = [];
  for (const [i, r] of records.entries())
    encrypted.push(await cipher.sealFields(ids[i], r, privacy.CustomerPersonalFields));
  for (const [i, r] of encrypted.entries()) await cipher.decryptFields(ids[i], r);

  let t0 = performance.now();
  for (let k = 0; k < rounds; k++)
    for (const [i, r] of records.entries())
      await cipher.sealFields(ids[i], r, privacy.CustomerPersonalFields);
  const encryptRate = (n * rounds) / ((performance.now() - t0) / 1000);
  // The form before decision 0054 (one ciphertext per value), still read from old events.
  const perField = [];
  t0 = performance.now();
  for (let k = 0; k < rounds; k++)
    for (const [i, r] of records.entries()) {
      const e = await cipher.encryptFields(ids[i], r, privacy.CustomerPersonalFields);
      if (k === 0) perField.push(e);
    }
  const perFieldEncryptRate = (n * rounds) / ((performance.now() - t0) / 1000);
  t0 = performance.now();
  for (let k = 0; k < rounds; k++)
    for (const [i, r] of perField.entries()) {
      if ((await cipher.decryptFields(ids[i], r)).erased) throw new Error('unexpected erasure');
    }
  const perFieldDecryptRate = (n * rounds) / ((performance.now() - t0) / 1000);
  t0 = performance.now();
  for (let k = 0; k < rounds; k++)
    for (const [i, r] of encrypted.entries()) {
      if ((await cipher.decryptFields(ids[i], r)).erased) throw new Error('unexpected erasure');
    }
  const decryptRate = (n * rounds) / ((performance.now() - t0) / 1000);
  const size = (list) => list.reduce((sum, r) => sum + Buffer.byteLength(JSON.stringify(r)), 0);
  const fields = JSON.stringify(encrypted[0]).match(/crs:sealed:/g)?.length ?? 0;
  return [
    { name: 'privacy.encrypt.customers_per_sec', value: round(encryptRate, 0), unit: 'customers/s (sealed)' },
    { name: 'privacy.decrypt.customers_per_sec', value: round(decryptRate, 0), unit: 'customers/s (sealed)' },
    { name: 'privacy.encrypted_fields_per_customer', value: fields, unit: 'fields' },
    {
      name: 'privacy.record_size_ratio',
      value: round(size(encrypted) / size(records), 2),
      unit: 'ratio (sealed)',
    },
    {
      name: 'privacy.encrypt_per_field.customers_per_sec',
      value: round(perFieldEncryptRate, 0),
      unit: 'customers/s (a ciphertext per value)',
    },
    {
      name: 'privacy.decrypt_per_field.customers_per_sec',
      value: round(perFieldDecryptRate, 0),
      unit: 'customers/s (a ciphertext per value)',
    },
    {
      name: 'privacy.record_size_ratio_per_field',
      value: round(size(perField) / size(records), 2),
      unit: 'ratio (a ciphertext per value)',
    },
  ];
}

/** MONGODB_URI of the local stack (.local/stack.env, as test/bench/stack.mjs reads it); undefined when none. */
export async function localMongoUri() {
  if (!existsSync(path.join(ROOT, '.local/stack.env'))) return undefined;
  const { stackEnv } = await import('./stack.mjs');
  return stackEnv().MONGODB_URI;
}

/**
 * The key store on the real store: keysFor in batches of new customers, currentKey on a cold cache, and
 * encryptCustomers end to end, each over `customers` customers, in a scratch database dropped afterwards.
 */
export async function benchKeyStore(
  mongoUri,
  {
    customers = Number(process.env.BENCH_PRIVACY_CUSTOMERS ?? 10000),
    batchSize = 500,
    readers = 16,
    log = console.log,
  } = {},
) {
  if (!mongoUri) throw new Error('no MONGODB_URI: is the local stack up (.local/stack.env)?');
  const privacy = loadPrivacy();
  const streamKey = loadStreamKey();
  const { ownerDbName } = require(path.join(ROOT, 'packages/store/dist/index.js'));
  const { MongoClient } = require(require.resolve('mongodb', { paths: [path.join(ROOT, 'packages/store')] }));
  const base = `crs_bench_privacy_${Date.now().toString(36)}`;
  // The ingress writes keys into the `keys` owner database, `<MONGODB_DB>_keys` (packages/store): the same here.
  const dbName = ownerDbName({ MONGODB_URI: mongoUri, MONGODB_DB: base }, 'keys');
  const keks = privacy.KeyEncryptionKeys.fromDocument(
    privacy.KeyEncryptionKeys.generateDocument('kek-bench'),
  );
  const mongo = await new MongoClient(mongoUri, { serverSelectionTimeoutMS: 5000 }).connect();
  const db = mongo.db(dbName);
  // The services' default cache (PRIVACY_KEY_CACHE_*) for writers; none for the cold reads.
  const store = (cache) => new privacy.DataKeyStore({ db, keks, ...(cache ? { cache } : {}) });
  const batches = (ids) =>
    Array.from({ length: Math.ceil(ids.length / batchSize) }, (_, i) =>
      ids.slice(i * batchSize, (i + 1) * batchSize),
    );
  const streamIds = (prefix) =>
    Array.from({ length: customers }, (_, i) => streamKey('DEMO', `${prefix}-${i}`));
  const figures = [];
  const push = (name, value, unit, digits = 0) => {
    const f = { name: `privacy.store.${name}`, value: round(value, digits), unit };
    figures.push(f);
    log(`  ${f.name}: ${f.value} ${unit}`);
  };
  try {
    // Warm-up: the collection and its file created, the connection pool filled.
    await store().keysFor(Array.from({ length: batchSize }, (_, i) => `WARM:${i}`));
    await Promise.all(
      Array.from({ length: readers }, (_, i) => store({ maxEntries: 0 }).currentKey(`WARM:${i}`)),
    );

    // 1. keysFor: one unordered insertMany of fresh wrapped keys per batch of new customers.
    const created = streamIds('K');
    const writer = store();
    const batchMs = [];
    let t0 = performance.now();
    for (const ids of batches(created)) {
      const s = performance.now();
      const keys = await writer.keysFor(ids);
      batchMs.push(performance.now() - s);
      if (keys.size !== ids.length) throw new Error(`keysFor returned ${keys.size} keys for ${ids.length}`);
    }
    push(
      'keys_for.keys_per_sec',
      customers / ((performance.now() - t0) / 1000),
      `keys/s (batches of ${batchSize} new customers)`,
    );
    const b = summarize(batchMs);
    push('keys_for.batch_p50', b.p50, `ms (batch of ${batchSize})`, 1);
    push('keys_for.batch_p99', b.p99, `ms (batch of ${batchSize})`, 1);

    // 2. currentKey on a cold cache: a findOne by _id and an unwrap per customer, as a decrypting service
    // pays on a cache miss (first sight of a customer, or after the TTL).
    const cold = store({ maxEntries: 0 });
    const readMs = [];
    t0 = performance.now();
    for (const id of created) {
      const s = performance.now();
      if (!(await cold.currentKey(id))) throw new Error(`no key for ${id}`);
      readMs.push(performance.now() - s);
    }
    push(
      'current_key_cold.keys_per_sec',
      customers / ((performance.now() - t0) / 1000),
      'keys/s (one reader, cache off)',
    );
    const r = summarize(readMs);
    push('current_key_cold.latency_p50', r.p50, 'ms', 2);
    push('current_key_cold.latency_p99', r.p99, 'ms', 2);
    let next = 0;
    t0 = performance.now();
    await Promise.all(
      Array.from({ length: readers }, async () => {
        while (next < created.length) {
          const id = created[next++];
          if (!(await cold.currentKey(id))) throw new Error(`no key for ${id}`);
        }
      }),
    );
    push(
      'current_key_cold.concurrent_keys_per_sec',
      customers / ((performance.now() - t0) / 1000),
      `keys/s (${readers} concurrent readers, cache off)`,
    );

    // 3. encryptCustomers end to end: keys created for a batch of new customers, then every record encrypted.
    const cp = privacy.CustomerPrivacy.withKeys(store());
    const items = streamIds('E').map((streamId, i) => ({ streamId, customer: sampleCustomer(i) }));
    const encMs = [];
    t0 = performance.now();
    for (const batch of batches(items)) {
      const s = performance.now();
      const out = await cp.encryptCustomers(batch);
      encMs.push(performance.now() - s);
      if (out.length !== batch.length) throw new Error('encryptCustomers lost records');
    }
    push(
      'encrypt_customers.customers_per_sec',
      customers / ((performance.now() - t0) / 1000),
      `customers/s (batches of ${batchSize} new customers, keys created)`,
    );
    const e = summarize(encMs);
    push('encrypt_customers.batch_p50', e.p50, `ms (batch of ${batchSize})`, 1);
    push('encrypt_customers.batch_p99', e.p99, `ms (batch of ${batchSize})`, 1);
  } finally {
    await db.dropDatabase().catch(() => undefined);
    await mongo.close();
  }
  return figures;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const { name, value, unit } of await benchPrivacy()) console.log(`${name}\t${value}\t${unit}`);
  const uri = await localMongoUri();
  if (uri)
    for (const { name, value, unit } of await benchKeyStore(uri, { log: () => undefined }))
      console.log(`${name}\t${value}\t${unit}`);
  else console.log('no local stack (.local/stack.env): key store not measured');
  process.exit(0);
}
