#!/usr/bin/env node
// Latency at fixed offered rates (issue #15's "accept-to-callback p99 under 1 s"): an open load of EVALUATE
// imports with SANCTIONS and PEP screening at each rate, on a namespace that first holds `preload`
// batch-imported customers (a store that is not empty), accept-to-callback p50/p99 per rate and the cores
// each process used. The pipeline bench's offered phase runs at half of its closed-loop end-to-end rate,
// which moves with that figure; this one holds the rates still, so two trees compare at the same load.
// Not a test: nothing here passes or fails on speed.
//   npm run bench offered      (after `npm run build`, with the local stack up)
// BENCH_OFFERED_RATES (default 90,120,140 customers/s), BENCH_OFFERED_SECONDS (60), BENCH_PRELOAD (40000),
// BENCH_SERVICE_ENV (a JSON object: service name -> settings of that service only);
// with BENCH_BASELINE=<commit> every rate runs on that commit's services first ("before"), then on this
// tree's ("after"): one namespace per tree and rate.
import { performance } from 'node:perf_hooks';
import path from 'node:path';
import { round, summarize } from './stats.mjs';
import { token, waitUntil, inServiceNamespace } from './stack.mjs';
import { DONE_TYPES, endToEnd, evaluateCustomer, withCpu } from './pipeline.mjs';
import { post } from './http-client.mjs';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const SERVICES = ['customer', 'projector', 'evaluation', 'screening', 'callback', 'ingress'];

/** One tree at one rate: a namespace of its own, preloaded, then the open load; figures named `offered_<rate>.*.<label>`. */
export async function benchOffered({ label, rate, root = ROOT, log = console.log, figures = [] }) {
  const seconds = Number(process.env.BENCH_OFFERED_SECONDS ?? 60);
  const preload = Number(process.env.BENCH_PRELOAD ?? 40000);
  const NS = `of-${label}-${rate}-${Date.now().toString(36)}`.slice(0, 40);
  const push = (name, value, unit) => {
    const f = { name: `offered_${rate}.${name}.${label}`, value: round(value, 2), unit };
    figures.push(f);
    log(`  [${label}] ${rate}/s ${name}: ${f.value} ${unit}`);
  };
  // BENCH_SERVICE_ENV='{"projector":{"KAFKA_FETCH_MAX_WAIT_MS":"300"}}': settings for one service only.
  const serviceEnv = JSON.parse(process.env.BENCH_SERVICE_ENV ?? '{}');
  const tok = await token();
  await inServiceNamespace(
    { root, namespace: NS, services: SERVICES, eventTypes: DONE_TYPES, serviceEnv },
    async ({ recv, base }) => offeredLoad({ NS, recv, base, tok, label, rate, seconds, preload, log, push }),
  );
  return figures;
}

/** The open load of one tree at one rate, in its namespace (`benchOffered`). */
async function offeredLoad({ NS, recv, base, tok, label, rate, seconds, preload, log, push }) {
  const { doneAt, has } = endToEnd(recv);
  let next = 0;
  const evaluated = () => evaluateCustomer(NS, next++);
  /** An IMPORT customer with a given level, as a batch import sends it (the pipeline bench's batches). */
  const imported = () => {
    const { sourceOfRiskLevel: _s, initializeScreeningProcesses: _i, ...c } = evaluated();
    return { ...c, riskLevel: 'LOW' };
  };
  // Warm-up: every stage has joined its group and seen a customer.
  const warm = [];
  for (let i = 0; i < 40; i++) {
    const b = evaluated();
    warm.push(b.communicationNumber);
    await post(base, tok, '/core-ws-rest/customer', b);
  }
  await waitUntil(async () => warm.every((c) => doneAt(c) !== undefined), 120000, 'warm-up callbacks');
  if (preload > 0) {
    // Batches of 1,000 IMPORT customers from 4 clients; done when each one's assessment was called back.
    const ids = [];
    const t = performance.now();
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (ids.length < preload) {
          const customers = Array.from({ length: Math.min(1000, preload - ids.length) }, () => {
            const c = imported();
            ids.push(c.communicationNumber);
            return c;
          });
          const r = await post(base, tok, '/core-ws-rest/batch-customers', { customers });
          if (r.status !== 200) throw new Error(`preload: batch answered ${r.status}`);
        }
      }),
    );
    let last = 0;
    await waitUntil(
      async () => {
        const n = ids.filter((c) => has(c, 'com.crs.risk-assessment.completed')).length;
        if (n - last >= 10000 || n === ids.length) log(`  [${label}] preload: ${n} of ${ids.length} done`);
        if (n - last >= 10000) last = n;
        return n === ids.length;
      },
      900000,
      'preload',
    );
    log(`  [${label}] preloaded ${ids.length} customers in ${round((performance.now() - t) / 1000)} s`);
    // Let the stages settle (deferred commits, the callback service's queue round).
    await new Promise((r) => setTimeout(r, 15000));
  }
  const sent = new Map();
  const failed = [];
  const [, cpu] = await withCpu(async () => {
    const inflight = [];
    const t0 = performance.now();
    for (let i = 0; performance.now() - t0 < seconds * 1000; i++) {
      const wait = t0 + (i * 1000) / rate - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const b = evaluated();
      inflight.push(
        post(base, tok, '/core-ws-rest/customer', b)
          .then((r) => {
            if (r.status === 200) sent.set(b.communicationNumber, r.at);
            else failed.push(r.status);
          })
          .catch((err) => failed.push(err.message)),
      );
    }
    await Promise.all(inflight);
  });
  await waitUntil(async () => [...sent.keys()].every((c) => doneAt(c) !== undefined), 300000, 'callbacks');
  const lat = summarize([...sent].map(([c, t]) => doneAt(c) - t));
  push('accepted_per_sec', sent.size / seconds, 'req/s');
  if (failed.length > 0) push('failed', failed.length, `requests (first: ${failed[0]})`);
  push('accept_to_callback_p50', lat.p50, 'ms');
  push('accept_to_callback_p99', lat.p99, 'ms');
  push('cpu', cpu.total, `cores (${cpu.breakdown})`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const rate = Number(process.env.BENCH_OFFERED_RATES?.split(',')[0] ?? 90);
  await benchOffered({ label: 'after', rate });
}
