#!/usr/bin/env node
// The cost of personal-data encryption (docs/privacy.md), in process, no stack: encryptFields and
// decryptFields of the benchmark customer record with a key already in memory (the cache hit every
// customer but the first of a TTL sees), and how much larger the record gets. Not a test: nothing here
// passes or fails on speed. Not yet part of `npm run bench` (test/bench/run.mjs): run it alone with
// `node test/bench/privacy.mjs` after `npm run build`.
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import path from 'node:path';
import { sampleCustomer } from './in-process.mjs';
import { round } from './stats.mjs';

const require = createRequire(import.meta.url);
const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');

export async function benchPrivacy(n = 2000, rounds = 5) {
  const privacy = require(path.join(ROOT, 'packages/privacy/dist/index.js'));
  const keys = new privacy.MemoryDataKeySource();
  const cipher = new privacy.PersonalDataCipher(keys);
  const records = Array.from({ length: n }, (_, i) => sampleCustomer(i));
  const ids = records.map((r) => privacy.customerStreamId(r.businessUnit, r.customerExtId));
  const encrypted = [];
  for (const [i, r] of records.entries())
    encrypted.push(await cipher.encryptFields(ids[i], r, privacy.CustomerPersonalFields));
  for (const [i, r] of encrypted.entries()) await cipher.decryptFields(ids[i], r);

  let t0 = performance.now();
  for (let k = 0; k < rounds; k++)
    for (const [i, r] of records.entries())
      await cipher.encryptFields(ids[i], r, privacy.CustomerPersonalFields);
  const encryptRate = (n * rounds) / ((performance.now() - t0) / 1000);
  t0 = performance.now();
  for (let k = 0; k < rounds; k++)
    for (const [i, r] of encrypted.entries()) {
      if ((await cipher.decryptFields(ids[i], r)).erased) throw new Error('unexpected erasure');
    }
  const decryptRate = (n * rounds) / ((performance.now() - t0) / 1000);
  const size = (list) => list.reduce((sum, r) => sum + Buffer.byteLength(JSON.stringify(r)), 0);
  const fields = JSON.stringify(encrypted[0]).match(/crs:enc:1:/g)?.length ?? 0;
  return [
    { name: 'privacy.encrypt.customers_per_sec', value: round(encryptRate, 0), unit: 'customers/s' },
    { name: 'privacy.decrypt.customers_per_sec', value: round(decryptRate, 0), unit: 'customers/s' },
    { name: 'privacy.encrypted_fields_per_customer', value: fields, unit: 'fields' },
    { name: 'privacy.record_size_ratio', value: round(size(encrypted) / size(records), 2), unit: 'ratio' },
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const { name, value, unit } of await benchPrivacy()) console.log(`${name}\t${value}\t${unit}`);
}
