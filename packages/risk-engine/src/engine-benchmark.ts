import { loadBundledMatrices } from './bundled-matrices';
import { evaluateRisk } from './evaluate-risk';
import type { RiskContext, RiskSubject } from './risk-subject';

export interface BenchmarkMeasurement {
  name: string;
  value: number;
  unit: string;
}

// mulberry32: a seeded generator keeps the benchmark population identical between runs.
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const COUNTRIES = ['LT', 'DE', 'FR', 'GB', 'US', 'LTU', 'DEU', 'AE', 'NG', 'IR', 'VN', 'PA', 'CH', 'XX'];
const ACTIVITIES = ['RETAIL', 'IT_SERVICES', 'CASINO', 'CRYPTO', 'REAL_ESTATE', 'MONEY_SERVICE', 'OTHER'];
const SERVICES = [
  'PAYMENT_ACCOUNT',
  'SAVINGS',
  'INTERNATIONAL_TRANSFERS',
  'CRYPTO_EXCHANGE',
  'PRIVATE_BANKING',
];
const CHANNELS = ['FACE_TO_FACE', 'NON_FACE_TO_FACE', 'INTRODUCER', 'ONLINE'];

function generatedCustomers(count: number, seed: number): RiskSubject[] {
  const random = seededRandom(seed);
  const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)]!;
  const chance = (p: number): boolean => random() < p;
  const customers: RiskSubject[] = [];
  for (let i = 0; i < count; i += 1) {
    const organization = chance(0.4);
    const base: RiskSubject = {
      customerExtId: `bench-${i}`,
      isPEP: chance(0.03),
      isSanctioned: chance(0.005),
      isInAdverseMedia: chance(0.05),
      doesCashDominate: chance(0.1),
      listActivity: [{ activityType: pick(ACTIVITIES) }],
      listOrderedService: [{ serviceType: pick(SERVICES) }, { serviceType: pick(SERVICES) }],
      listIntroductionSource: [{ introductionSource: pick(CHANNELS) }],
      listPaymentCountry: [{ country: pick(COUNTRIES) }, { country: pick(COUNTRIES) }],
      listDeclaredTurnover: [{ from: 0, to: Math.floor(random() * 2_000_000) }],
      ...(chance(0.02) ? { listPurpose: pick(['BLACK', 'WHITE']) } : {}),
    };
    customers.push(
      organization
        ? {
            ...base,
            entityType: 'ORGANIZATION',
            title: `Company ${i}`,
            registrationCountry: pick(COUNTRIES),
            legalForm: pick(['PRIVATE_LIMITED_COMPANY', 'TRUST', 'FOUNDATION', 'PUBLIC_LIMITED_COMPANY']),
            establishmentDate: `20${String(Math.floor(random() * 25)).padStart(2, '0')}-03-15`,
            hasMultiLayerStructure: chance(0.15),
            isListed: chance(0.1),
            isRegulated: chance(0.2),
            listRelatedEntity: [
              {
                entityType: 'INDIVIDUAL',
                relationType: 'DIRECTOR',
                firstName: 'A',
                lastName: `D${i}`,
                country: pick(COUNTRIES),
                isPEP: chance(0.05),
              },
              {
                entityType: 'INDIVIDUAL',
                relationType: 'OWNER',
                firstName: 'B',
                lastName: `O${i}`,
                share: Math.floor(random() * 100),
                country: pick(COUNTRIES),
              },
            ],
          }
        : {
            ...base,
            entityType: 'INDIVIDUAL',
            firstName: 'Person',
            lastName: `${i}`,
            citizenshipCountry: pick(COUNTRIES),
            permanentResidenceCountry: pick(COUNTRIES),
            isFamilyPEP: chance(0.03),
            listSourceOfWealth: [{ code: String(1 + Math.floor(random() * 8)) }],
          },
    );
  }
  return customers;
}

/**
 * Evaluates about 20,000 generated customers against the bundled DEMO matrices and reports throughput.
 * It measures wall time, so it belongs to benchmark runs, never to tests.
 */
export function runEngineBenchmark(count = 20_000): BenchmarkMeasurement[] {
  const matrices = loadBundledMatrices();
  const persons = matrices.find((matrix) => matrix.entityTypes.includes('INDIVIDUAL'))!;
  const organizations = matrices.find((matrix) => matrix.entityTypes.includes('ORGANIZATION'))!;
  const customers = generatedCustomers(count, 20250613);
  const context: RiskContext = { today: '2025-06-13', screening: { SANCTIONS: { matched: false } } };
  let highOrAbove = 0;
  const started = performance.now();
  for (const customer of customers) {
    const matrix = customer.entityType === 'ORGANIZATION' ? organizations : persons;
    const assessment = evaluateRisk(customer, matrix, context);
    if (assessment.level === 'HIGH' || assessment.level === 'EXTREME') highOrAbove += 1;
  }
  const seconds = (performance.now() - started) / 1000;
  return [
    { name: 'risk.engine.evaluations_per_sec', value: Math.round(count / seconds), unit: 'eval/s' },
    {
      name: 'risk.engine.mean_latency_us',
      value: Math.round(((seconds * 1e6) / count) * 100) / 100,
      unit: 'us',
    },
    {
      name: 'risk.engine.high_or_extreme_share',
      value: Math.round((highOrAbove / count) * 10000) / 100,
      unit: '%',
    },
  ];
}
