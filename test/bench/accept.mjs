#!/usr/bin/env node
// The accept path alone, plain and encrypted side by side in one run (issues #15 and #18): only the
// ingress runs (no consumer), so the figure is what the ingress, Kafka and the store give the batch and
// single endpoints on this machine. Not a test: nothing here passes or fails on speed.
//   node test/bench/accept.mjs            (after `npm run build`, with the local stack up)
// `npm run bench accept` (test/bench/run.mjs) runs it and writes the figures into the reports; with
// BENCH_BASELINE=<commit> it first measures that commit's ingress, encrypted ("before").
// BENCH_ACCEPT_SECONDS (default 10) per phase, BENCH_BATCH_SIZE (1,000), BENCH_BATCH_CLIENTS (4),
// BENCH_SINGLE_CLIENTS (32), BENCH_ACCEPT_MODES (plain,encrypted), BENCH_ACCEPT_PHASES (batch,single), BENCH_ACCEPT_PROFILE=1 writes a CPU
// profile of each ingress into .local/profiles/. Also `npm run bench accept`.
import { createRequire } from 'node:module';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { round, summarize } from './stats.mjs';
import { stackEnv, token, dropNamespaceDbs, dropNamespaceTopics, benchPartitions } from './stack.mjs';
import { closedLoop, importCustomer, withCpu } from './pipeline.mjs';
import { post } from './http-client.mjs';

const require = createRequire(import.meta.url);
const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const { MongoClient } = require(require.resolve('mongodb', { paths: [path.join(ROOT, 'packages/store')] }));
const num = (name, fallback) => Number(process.env[name] ?? fallback);

/** One mode: a namespace of its own, the ingress alone, batches then singles. */
export async function benchAccept({ mode, root = ROOT, env: extraEnv, log = console.log, figures = [] }) {
  const seconds = num('BENCH_ACCEPT_SECONDS', 10);
  const batchSize = num('BENCH_BATCH_SIZE', 1000);
  const launcher = require(path.join(root, 'deploy/local/services.cjs'));
  const NS = `ac-${mode}-${Date.now().toString(36)}`;
  const ns = launcher.namespaceSettings(NS);
  const mongo = await new MongoClient(stackEnv().MONGODB_URI).connect();
  const env = { TOPIC_PARTITIONS: String(benchPartitions()), LOG_LEVEL: 'warn', ...extraEnv };
  if (process.env.BENCH_ACCEPT_PROFILE === '1') {
    const dir = path.join(ROOT, '.local/profiles');
    mkdirSync(dir, { recursive: true });
    env.NODE_OPTIONS = `--require ${path.join(ROOT, 'test/bench/support/cpu-profile.cjs')}`;
    env.CRS_CPU_PROFILE = path.join(dir, `ingress-${mode}-${Date.now()}.cpuprofile`);
  }
  const push = (name, value, unit) => {
    const f = { name: `accept.${name}.${mode}`, value: round(value, 2), unit };
    figures.push(f);
    log(`  [${mode}] ${name}: ${f.value} ${unit}`);
  };
  const base = `http://127.0.0.1:${launcher.portOf('ingress', NS)}`;
  const tok = await token();
  let next = 0;
  const customer = () => importCustomer(NS, next++);
  try {
    await launcher.startService('ingress', { env, namespace: NS });
    for (let i = 0; i < 3; i++)
      await post(base, tok, '/core-ws-rest/batch-customers', {
        customers: Array.from({ length: 100 }, customer),
      });
    const phases = (process.env.BENCH_ACCEPT_PHASES ?? 'batch,single').split(',');
    if (phases.includes('batch')) await batchPhase();
    if (phases.includes('single')) await singlePhase();
  } finally {
    await launcher.stopService('ingress', { namespace: NS }).catch(() => undefined);
    await dropNamespaceDbs(mongo, ns.env.MONGODB_DB).catch(() => undefined);
    await mongo.close();
    await dropNamespaceTopics(NS).catch(() => undefined);
  }
  return figures;

  async function batchPhase() {
    let accepted = 0;
    const lat = [];
    const [took, cpu] = await withCpu(() =>
      closedLoop(num('BENCH_BATCH_CLIENTS', 4), seconds, async () => {
        const customers = Array.from({ length: batchSize }, customer);
        const r = await post(base, tok, '/core-ws-rest/batch-customers', { customers });
        lat.push(r.ms);
        if (r.status === 200)
          accepted += JSON.parse(r.text).results.filter((x) => x.resultType === 'REQUEST_ACCEPTED').length;
      }),
    );
    push('batch_import_alone.customers_per_sec', accepted / took, `customers/s (batches of ${batchSize})`);
    push('batch_import_alone.request_latency_p99', summarize(lat).p99, 'ms');
    push('batch_import_alone.cpu', cpu.total, `cores (${cpu.breakdown})`);
  }

  async function singlePhase() {
    let ok = 0;
    const slat = [];
    const [stook, scpu] = await withCpu(() =>
      closedLoop(num('BENCH_SINGLE_CLIENTS', 32), seconds, async () => {
        const r = await post(base, tok, '/core-ws-rest/customer', customer());
        slat.push(r.ms);
        if (r.status === 200) ok += 1;
      }),
    );
    const s = summarize(slat);
    push('single_import_alone.accepted_per_sec', ok / stook, 'req/s');
    push('single_import_alone.latency_p99', s.p99, 'ms');
    push('single_import_alone.cpu', scpu.total, `cores (${scpu.breakdown})`);
    if (process.env.BENCH_ACCEPT_METRICS === '1') {
      const text = await (await fetch(`${base}/metrics`)).text();
      for (const line of text.split('\n').filter((l) => l.startsWith('store_commands_total')))
        log(`  ${line} per request ${round(Number(line.split(' ').pop()) / ok, 3)}`);
    }
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const figures = [];
  const modes = (process.env.BENCH_ACCEPT_MODES ?? 'plain,encrypted').split(',');
  for (const mode of modes)
    await benchAccept({ mode, env: mode === 'plain' ? { PRIVACY_KEK_FILE: '' } : {}, figures });
  if (modes.includes('plain') && modes.includes('encrypted'))
    for (const f of figures.filter((x) => x.name.endsWith('.plain'))) {
      const enc = figures.find((x) => x.name === f.name.replace(/\.plain$/, '.encrypted'));
      if (enc)
        console.log(`  ratio ${f.name.replace(/^accept\.|\.plain$/g, '')}: ${round(enc.value / f.value, 2)}`);
    }
  process.exit(0);
}
