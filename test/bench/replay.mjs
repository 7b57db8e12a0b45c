#!/usr/bin/env node
// The replay alone (issue #15's "replay at 20,000 events/s"): a customer log written by the pipeline's own
// decider (batch imports through the ingress, in a namespace of its own), then the projector's replay CLI
// (services/projector/dist/cli/replay.js) rebuilding every read model from it, several times, and with a
// baseline tree alternating with this one (before, after, after, before, ...) on the same log. Quicker than
// the replay phase of `npm run bench pipeline` and comparable between trees. Not a test: nothing here passes
// or fails on speed.
//   node test/bench/replay.mjs          (after `npm run build`, with the local stack up)
//   BENCH_BASELINE=<commit> npm run bench replay   (test/bench/run.mjs: checks out and builds the baseline)
// REPLAY_CUSTOMERS (30000, in batches of 1,000: three events each), REPLAY_ROUNDS (2: runs per tree),
// REPLAY_BASELINE (a built checkout to alternate with; run.mjs sets it from BENCH_BASELINE);
// REPLAY_BEFORE_BIN (another FerretDB build to alternate with instead, this tree replaying on both: FerretDB
// restarted before each run, decision 0076); BENCH_BASELINE_ENV (a JSON object, as for `npm run bench pipeline`:
// settings of the "before" runs only; without a baseline tree, this tree replays on both sides, e.g. the store's
// TCP address before and its socket after). The last line is the result as JSON.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import path from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import {
  benchPartitions,
  inServiceNamespace,
  stackEnv,
  token,
  useFerretdbBuild,
  waitForQuietTopic,
} from './stack.mjs';
import { post } from './http-client.mjs';
import { importCustomer, withCpu } from './pipeline.mjs';
import { round } from './stats.mjs';

const run = promisify(execFile);
const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const CUSTOMERS = Number(process.env.REPLAY_CUSTOMERS ?? 30000);
const ROUNDS = Number(process.env.REPLAY_ROUNDS ?? 2);
const BASELINE = process.env.REPLAY_BASELINE;
const BEFORE_BIN = process.env.REPLAY_BEFORE_BIN;
const NS = `replay-${Date.now().toString(36)}`;

/** Imports the customers in batches of 1,000, 2 requests at a time. */
async function importCustomers(base) {
  const tok = await token();
  const batches = Math.ceil(CUSTOMERS / 1000);
  let next = 0;
  const worker = async () => {
    for (let b = next++; b < batches; b = next++) {
      const customers = Array.from({ length: Math.min(1000, CUSTOMERS - b * 1000) }, (_, i) =>
        importCustomer(NS, b * 1000 + i),
      );
      await post(base, tok, '/core-ws-rest/batch-customers', { customers });
    }
  };
  await Promise.all([worker(), worker()]);
}

const result = await inServiceNamespace(
  { root: ROOT, namespace: NS, services: ['customer', 'ingress'] },
  async ({ launcher, base }) => {
    const ns = launcher.namespaceSettings(NS);
    await importCustomers(base);
    const kafka = new Kafka({ brokers: stackEnv().KAFKA_BROKERS.split(','), logLevel: logLevel.NOTHING });
    const records = await waitForQuietTopic(kafka, `${ns.env.TOPIC_PREFIX}crs.customer.events.v1`, 5000);
    await launcher.stopService('customer', { namespace: NS });
    console.log(`log: ${CUSTOMERS} customers, ${records} records (events and transaction markers)`);
    const trees = BASELINE
      ? { before: BASELINE, after: ROOT }
      : BEFORE_BIN || process.env.BENCH_BASELINE_ENV
        ? { before: ROOT, after: ROOT }
        : { after: ROOT };
    const labels = Object.keys(trees);
    const order = Array.from({ length: ROUNDS }, (_, i) =>
      i % 2 === 0 ? labels : [...labels].reverse(),
    ).flat();
    const runs = [];
    for (const [index, label] of order.entries()) {
      const store = BEFORE_BIN
        ? path.basename(await useFerretdbBuild(ROOT, label === 'before' ? BEFORE_BIN : undefined))
        : undefined;
      const [{ stdout, stderr }, cpu] = await withCpu(() =>
        run(process.execPath, [path.join(trees[label], 'services/projector/dist/cli/replay.js')], {
          env: {
            ...process.env,
            ...stackEnv(),
            ...(label === 'before' ? JSON.parse(process.env.BENCH_BASELINE_ENV ?? '{}') : {}),
            ...ns.env,
            TOPIC_PARTITIONS: String(benchPartitions()),
            TOPIC_REPLICATION_FACTOR: '1',
            LOG_LEVEL: 'info',
          },
          maxBuffer: 256 * 1024 * 1024,
        }),
      );
      const done = `${stdout}${stderr}`
        .split('\n')
        .filter((x) => x.includes('replay done'))
        .map((x) => JSON.parse(x))[0];
      if (!done) throw new Error(`the replay of ${label} printed no 'replay done' line`);
      const r = {
        label,
        ...(store ? { store } : {}),
        events: done.events,
        seconds: done.seconds,
        eventsPerSec: round(done.events / done.seconds, 0),
        phases: done.phases,
        cores: cpu.breakdown,
      };
      runs.push(r);
      console.log(
        `  [${index + 1}/${order.length} ${label}${store ? ` (${store})` : ''}] ${r.events} events in ${r.seconds} s: ${r.eventsPerSec} events/s; phases ${JSON.stringify(r.phases)}; cores ${r.cores}`,
      );
    }
    if (BEFORE_BIN) await useFerretdbBuild(ROOT, undefined);
    return { customers: CUSTOMERS, records, runs };
  },
);
console.log(JSON.stringify(result));
process.exit(0);
