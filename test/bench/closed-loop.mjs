#!/usr/bin/env node
// The closed loop alone, trees alternating (issue #15): one `npm run bench pipeline` per tree cannot separate
// two trees closer than about ±30 % here (the same code read 114 and 177 customers/s end to end in two runs:
// docs/performance.md, "The twenty-third stop's run"), because the broker and the services warm up over a
// run and the machine drifts. This runs the pipeline's single-import phase on one tree at a time, in a fresh
// namespace each, in the order before, after, after, before, before, after, ... (every pair in both orders),
// and reports each run and the mean per tree. Not a test: nothing here passes or fails on speed.
//   BENCH_BASELINE=<commit> npm run bench closed-loop      (after `npm run build`, with the local stack up)
// BENCH_ROUNDS (3: pairs), BENCH_CLOSED_WARMUP_SECONDS (30), BENCH_SINGLE_SECONDS (20), BENCH_SINGLE_CLIENTS (32).
import { performance } from 'node:perf_hooks';
import { round } from './stats.mjs';
import { token, waitUntil, inServiceNamespace } from './stack.mjs';
import { DONE_TYPES, closedLoop, endToEnd, evaluateCustomer, withCpu } from './pipeline.mjs';
import { brokerCompileSnapshot, brokerCompilingShare, ioSnapshot } from './cpu.mjs';
import { post } from './http-client.mjs';

const SERVICES = ['customer', 'projector', 'evaluation', 'screening', 'callback', 'ingress'];

/** The order of `rounds` pairs of two labels: a b, b a, a b, ... */
export function alternating(rounds, a = 'before', b = 'after') {
  return Array.from({ length: rounds }, (_, i) => (i % 2 === 0 ? [a, b] : [b, a])).flat();
}

/**
 * One closed-loop run of `root`'s services in a namespace of their own: warm-up (every callback awaited),
 * then `clients` clients posting EVALUATE imports with SANCTIONS and PEP for `seconds`, every callback
 * awaited (`serviceEnv[service]`: a service's own settings). Returns accepted/s, end to end/s (accepted to the
 * last callback), the cores per process, what the store (FerretDB) wrote and spent per customer, and the
 * share of the broker's CPU its JIT compiler took meanwhile (above a few per cent: a cold broker).
 */
export async function closedLoopRun({ label, index, root, serviceEnv = {} }) {
  const warmup = Number(process.env.BENCH_CLOSED_WARMUP_SECONDS ?? 30);
  const seconds = Number(process.env.BENCH_SINGLE_SECONDS ?? 20);
  const clients = Number(process.env.BENCH_SINGLE_CLIENTS ?? 32);
  const NS = `cl-${label}-${index}-${Date.now().toString(36)}`.slice(0, 40);
  const tok = await token();
  return inServiceNamespace(
    { root, namespace: NS, services: SERVICES, eventTypes: DONE_TYPES, serviceEnv },
    async ({ recv, base }) => {
      const e2e = endToEnd(recv);
      let next = 0;
      const send = async (accepted) => {
        const body = evaluateCustomer(NS, next++);
        const r = await post(base, tok, '/core-ws-rest/customer', body);
        if (r.status === 200) accepted.set(body.communicationNumber, r.at);
      };
      const allCalledBack = (accepted, what) =>
        waitUntil(async () => [...accepted.keys()].every((c) => e2e.doneAt(c) !== undefined), 300000, what);
      const warm = new Map();
      await closedLoop(clients, warmup, () => send(warm));
      await allCalledBack(warm, 'warm-up callbacks');
      await new Promise((r) => setTimeout(r, 5000));
      const accepted = new Map();
      const t0 = performance.now();
      const io0 = ioSnapshot();
      const jit0 = brokerCompileSnapshot();
      const [took, cpu] = await withCpu(() => closedLoop(clients, seconds, () => send(accepted)));
      await allCalledBack(accepted, 'callbacks');
      // The store's work per customer, from the first request to the last callback: bytes it wrote (for
      // FerretDB on SQLite, its WAL and checkpoints) and its CPU. Steadier than the rates from run to run.
      const io1 = ioSnapshot();
      const brokerCompiling = brokerCompilingShare(jit0, brokerCompileSnapshot());
      const store = (key, scale) =>
        io0.has('ferretdb') && io1.has('ferretdb')
          ? round(((io1.get('ferretdb')[key] - io0.get('ferretdb')[key]) * scale) / accepted.size, 2)
          : undefined;
      const last = Math.max(...[...accepted.keys()].map((c) => e2e.doneAt(c)));
      return {
        label,
        index,
        acceptedPerSec: round(accepted.size / took, 1),
        endToEndPerSec: round(accepted.size / ((last - t0) / 1000), 1),
        storeKBPerCustomer: store('bytes', 1 / 1024),
        storeCpuMsPerCustomer: store('cpu', 1000),
        cpu: cpu.breakdown,
        brokerCompiling,
      };
    },
  );
}
