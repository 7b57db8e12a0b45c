#!/usr/bin/env node
// The screening service's start on a long customer log: its directory (whom to re-screen, last hits, the
// customers marked BLACK) is folded from the whole customer event log at every start, before it screens
// anything. This times that fold with the service's own pieces (CustomerDirectory, customerEventProjector,
// directoryReading, CustomerPrivacy with a cold key cache, StreamReader), alternating between ways
// of reading the log: `directory`, only the types the directory folds (DIRECTORY_EVENT_TYPES, decision
// 0068); `serial`, those types less the records of customers without a list purpose, by their header
// (directorySkip, decision 0073), one partition at a time; `skip`, the same with the partitions' batches
// folded at once (the service's reading, decision 0078); `all`, every event type decoded (as before 0068),
// on request.
// Not a test: nothing here passes or fails on speed.
//
//   node test/bench/screening-restart.mjs        (after `npm run build`, with the local stack up)
//
// SRESTART_CUSTOMERS (20000): EVALUATE customers with SANCTIONS and PEP screening, imported one request
// each (32 clients) through the whole pipeline (customer, evaluation, screening, ingress) in a namespace of their own;
// SRESTART_ROUNDS (2): rounds of folds, one per variant, the order reversed every other round;
// SRESTART_VARIANTS (directory,serial,skip): which of all, directory, serial, skip; SRESTART_UPDATES (0): IMPORT updates
// per customer after its import (a longer-lived book: each a CustomerUpdated that carries the record).
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import path from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { MongoClient } from 'mongodb';
import { inServiceNamespace, stackEnv, token, waitForQuietTopic } from './stack.mjs';
import { evaluateCustomer } from './pipeline.mjs';
import { post } from './http-client.mjs';
import { round } from './stats.mjs';

const require = createRequire(import.meta.url);
const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');
const { setUpMessaging, StreamReader } = require(path.join(ROOT, 'packages/messaging/dist/index.js'));
const { createLogger } = require(path.join(ROOT, 'packages/runtime/dist/index.js'));
const { ownerDbName } = require(path.join(ROOT, 'packages/store/dist/index.js'));
const { CustomerPrivacy } = require(path.join(ROOT, 'packages/privacy/dist/index.js'));
const { loadScreeningConfig } = require(path.join(ROOT, 'services/screening/dist/config.js'));
const { CustomerDirectory } = require(
  path.join(ROOT, 'services/screening/dist/domain/customer-directory.js'),
);
const projector = require(path.join(ROOT, 'services/screening/dist/handlers/customer-event-projector.js'));
const launcher = require(path.join(ROOT, 'deploy/local/services.cjs'));

const CUSTOMERS = Number(process.env.SRESTART_CUSTOMERS ?? 20000);
const ROUNDS = Number(process.env.SRESTART_ROUNDS ?? 2);
const UPDATES = Number(process.env.SRESTART_UPDATES ?? 0);
const VARIANTS = (process.env.SRESTART_VARIANTS ?? 'directory,serial,skip').split(',');
const VARIANT_TEXT = {
  all: 'every event type decoded',
  directory: 'directory types only',
  serial: 'directory types, records without a list purpose skipped, one partition at a time',
  skip: 'directory types, records without a list purpose skipped, partitions at once',
};
const SERVICES = ['customer', 'evaluation', 'screening', 'ingress'];
const NS = `srestart-${Date.now().toString(36)}`;
const logger = createLogger('screening-restart-bench', 'error');

/**
 * Imports the customers one request each (the batch endpoint takes IMPORT customers only, without
 * screening), 32 requests at a time.
 */
async function importCustomers(base) {
  const tok = await token();
  let next = 0;
  const bodyOf = (n) => {
    const body = evaluateCustomer(NS, n % CUSTOMERS);
    const pass = Math.floor(n / CUSTOMERS);
    if (pass === 0) return body;
    // An update of a field screening does not read: the record changes, the screened names do not.
    const { initializeScreeningProcesses: _s, ...rest } = body;
    return {
      ...rest,
      communicationNumber: `${body.communicationNumber}-u${pass}`,
      action: 'UPDATE',
      sourceOfRiskLevel: 'IMPORT',
      riskLevel: 'LOW',
      activityDescription: `Software engineering (update ${pass})`,
    };
  };
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      while (next < CUSTOMERS * (1 + UPDATES)) {
        const body = bodyOf(next++);
        for (;;) {
          const r = await post(base, tok, '/core-ws-rest/customer', body);
          if (r.status === 200) break;
          if (r.status !== 503 && r.status !== 429)
            throw new Error(`import answered ${r.status}: ${r.text.slice(0, 300)}`);
          await new Promise((res) => setTimeout(res, 500));
        }
      }
    }),
  );
  return CUSTOMERS;
}

/** One fold of the whole log into a fresh directory, as the screening service does at start. */
async function fold(messaging, config, mongo, variant) {
  const directory = new CustomerDirectory();
  const privacy = CustomerPrivacy.fromConfig(config, mongo.db(ownerDbName(config, 'keys')), true);
  const deps = { directory, privacy: () => privacy };
  let handed = 0;
  // The service's own reading (decision 0073); `directory` drops its skip, `all` its types too.
  const { skip, types, ...reading } = projector.directoryReading(deps);
  const reader = new StreamReader({
    kafka: messaging.kafka,
    serde: messaging.serde,
    logger,
    groupPrefix: `${NS}.bench-directory`,
    topic: messaging.topics.customerEvents,
    ...reading,
    ...(variant === 'all' ? {} : { types }),
    ...(variant === 'skip' || variant === 'serial' ? { skip } : {}),
    // Every variant but `skip` (the service's reading) one partition at a time, as before decision 0078.
    ...(variant === 'skip' ? {} : { partitionsConcurrently: 1 }),
    onMessage: async (m) => {
      handed++;
      await reading.onMessage(m);
    },
  });
  globalThis.gc?.();
  const cpu = process.cpuUsage();
  const started = performance.now();
  await reader.start();
  await reader.waitUntilCaughtUp();
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  await reader.stop();
  return {
    seconds,
    handed,
    screened: directory.screened.size,
    cpuSeconds: (used.user + used.system) / 1e6,
  };
}

const result = { customers: CUSTOMERS, updates: UPDATES, rounds: ROUNDS };
await inServiceNamespace(
  { root: ROOT, namespace: NS, services: SERVICES, eventTypes: [] },
  async ({ base }) => {
    const env = await launcher.baseEnv({ ...launcher.namespaceSettings(NS).env, ...stackEnv() });
    const config = loadScreeningConfig(env);
    const kafka = new Kafka({ brokers: env.KAFKA_BROKERS.split(','), logLevel: logLevel.NOTHING });
    const topic = `${NS}.crs.customer.events.v1`;

    let t = performance.now();
    result.accepted = await importCustomers(base);
    result.events = await waitForQuietTopic(kafka, topic, 15000);
    console.log(
      `imported ${result.accepted} customers; the customer log holds ${result.events} events ` +
        `(${round((performance.now() - t) / 1000, 1)} s, quiet for 15 s)`,
    );
    // The machine quiet for the timing: the namespace's services stop (the log and the keys stay).
    for (const s of [...SERVICES].reverse()) await launcher.stopService(s, { namespace: NS });

    const messaging = await setUpMessaging(config, 'screening-restart-bench', logger);
    const mongo = await new MongoClient(env.MONGODB_URI).connect();
    try {
      const order = Array.from({ length: ROUNDS }, (_, i) =>
        i % 2 === 0 ? VARIANTS : [...VARIANTS].reverse(),
      ).flat();
      for (const label of order) {
        const r = await fold(messaging, config, mongo, label);
        console.log(
          `fold, ${VARIANT_TEXT[label]}: ${round(r.seconds, 2)} s ` +
            `(${Math.round(result.events / r.seconds)} events/s, ${r.handed} handed out, ${r.screened} screened ` +
            `customers, ${round(r.cpuSeconds, 1)} s of CPU in this process)`,
        );
        (result[label] ??= []).push({
          ...r,
          seconds: round(r.seconds, 2),
          cpuSeconds: round(r.cpuSeconds, 1),
        });
      }
    } finally {
      await mongo.close();
    }
  },
);
const mean = (runs) => runs.reduce((s, r) => s + r.seconds, 0) / runs.length;
for (const label of VARIANTS) {
  result[`meanSeconds_${label}`] = round(mean(result[label]), 2);
  result[`secondsPerMillionCustomers_${label}`] = round((mean(result[label]) / CUSTOMERS) * 1e6, 0);
}
console.log(JSON.stringify(result));
process.exit(0);
