#!/usr/bin/env node
// Two builds of the embedded FerretDB alternating on one data directory (decision 0076): the store's raw
// limits (test/bench/limits/store.mjs) and one closed-loop run (test/bench/closed-loop.mjs) with each, in
// the order before, after, after, before, ... The `after` build is the one this tree's patches build (the
// stack's default); `before` is another binary, such as the cached build of an earlier patch set. Our
// patches keep FerretDB's data format, so both builds serve the same data. FerretDB is restarted before each
// run (`STACK_FERRETDB_BIN`), and left on the `after` build. Not a test: nothing here passes or fails on speed.
//   STORE_BEFORE_BIN=~/.cache/crs-stack/ferretdb-1.24.0-p<hash> node test/bench/store-build.mjs
//                                            (after `npm run build`, with the local stack up)
// STORE_ROUNDS (1: pairs), STORE_LIMIT_SECONDS (4: per pattern); the closed loop's BENCH_* settings apply.
// The last line is the result as JSON (`npm run bench store-build` writes the means into the reports).
import path from 'node:path';
import { alternating, closedLoopRun } from './closed-loop.mjs';
import { storeLimits } from './limits/store.mjs';
import { stackEnv, useFerretdbBuild } from './stack.mjs';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const BEFORE = process.env.STORE_BEFORE_BIN;
if (!BEFORE) throw new Error('set STORE_BEFORE_BIN to the FerretDB binary to compare with');
const ROUNDS = Number(process.env.STORE_ROUNDS ?? 1);
const LIMIT_SECONDS = Number(process.env.STORE_LIMIT_SECONDS ?? 4);

const runs = [];
try {
  for (const [index, label] of alternating(ROUNDS).entries()) {
    const binary = await useFerretdbBuild(ROOT, label === 'before' ? BEFORE : undefined);
    const limits = await storeLimits({ uri: stackEnv().MONGODB_URI, seconds: LIMIT_SECONDS });
    const loop = await closedLoopRun({ label, index, root: ROOT });
    // One flat record per run: the raw limits' figures beside the closed loop's.
    const r = { ...loop, label, binary: path.basename(binary), ...limits };
    runs.push(r);
    console.log(
      `[${index + 1}/${ROUNDS * 2} ${label}: ${r.binary}] raw limits ${JSON.stringify(limits)}; closed loop ` +
        `accepted ${loop.acceptedPerSec}/s, end to end ${loop.endToEndPerSec}/s, FerretDB ` +
        `${loop.storeCpuMsPerCustomer} ms of CPU and ${loop.storeKBPerCustomer} KB written per customer`,
    );
  }
} finally {
  await useFerretdbBuild(ROOT, undefined);
}
console.log(JSON.stringify({ rounds: ROUNDS, runs }));
process.exit(0);
