// In-process benchmarks: validation vs raw ajv, the risk engine, the screening index.
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import path from 'node:path';
import { round } from './stats.mjs';

const require = createRequire(import.meta.url);
const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');

function sampleCustomer(i) {
  return {
    communicationNumber: `BENCH-${i}`,
    requester: 'bench',
    businessUnit: 'DEMO',
    action: 'CREATE',
    sourceOfRiskLevel: 'IMPORT',
    riskLevel: 'LOW',
    customerStatus: 'ACTIVE',
    riskManagementCategory: 'IND',
    entityType: 'INDIVIDUAL',
    customerExtId: `B-${i}`,
    firstName: 'Ann',
    lastName: `Example${i}`,
    birthDate: '1980-01-31',
    citizenshipCountry: 'LT',
    nationalCode: `${38001010000 + i}`,
    isPEP: false,
    activityDescription: 'Software engineering',
    listAddress: [
      {
        addressType: 'RESIDENTIAL',
        city: 'Vilnius',
        country: 'LT',
        streetAddress: 'Main 1',
        zipCode: '01100',
      },
    ],
    listContact: [{ contactType: 'EMAIL', contactDetails: `a${i}@example.com`, useForCommunication: true }],
    listIncomeSource: [{ incomeSourceType: 'BONUSES', incomePercentage: 20 }],
    listDeclaredTurnover: [
      { from: 0, to: 5000, turnoverRange: 'MONTHLY', turnoverType: 'AVERAGE_MONTHLY_INCOME_AMOUNT' },
    ],
  };
}

export function benchValidation(n = 1000, rounds = 20) {
  const contracts = require(path.join(ROOT, 'packages/contracts/dist/index.js'));
  const validators = contracts.createValidators();
  const records = Array.from({ length: n }, (_, i) => sampleCustomer(i));
  const raw = validators.byModule['http/customer-batch-item.v1'];
  // Warm up both paths before measuring.
  for (const r of records) {
    validators.validateCustomer(r, 'batch');
    raw(r);
  }
  let t0 = performance.now();
  for (let k = 0; k < rounds; k++)
    for (const r of records)
      if (!validators.validateCustomer(r, 'batch').ok) throw new Error('invalid sample');
  const ours = (n * rounds) / ((performance.now() - t0) / 1000);
  t0 = performance.now();
  for (let k = 0; k < rounds; k++)
    for (const r of records) if (!raw(r)) throw new Error('invalid sample (raw)');
  const ajv = (n * rounds) / ((performance.now() - t0) / 1000);
  return [
    { name: 'validation.batch.customers_per_sec', value: round(ours, 0), unit: 'customers/s' },
    { name: 'validation.raw_ajv.customers_per_sec', value: round(ajv, 0), unit: 'customers/s' },
    { name: 'validation.ratio_to_raw_ajv', value: round(ours / ajv, 3), unit: 'ratio' },
  ];
}

export function benchRiskEngine() {
  const engine = require(path.join(ROOT, 'packages/risk-engine/dist/index.js'));
  return engine.runEngineBenchmark(20000);
}

export function benchScreening(dataDir) {
  const bench = require(path.join(ROOT, 'packages/screening-core/dist/eval/benchmark.js'));
  return bench.runBenchmark({ dataDir, queries: 5000 });
}

export { sampleCustomer };
