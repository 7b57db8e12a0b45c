// How fast this machine is right now, apart from the code under test: a fixed single-thread workload (the
// bench's customer records through JSON.stringify, JSON.parse and a SHA-256 of the text) in a child process of
// its own, timed while the pipeline's stages are idle. `npm run bench pipeline` reads it at the start and the
// end of each side, so a run whose sides ran on a machine of different speed (a neighbour on the same host,
// throttling) says so in its own figures: twice a side read 28-44 % under its history with nothing changed
// in its code (docs/performance.md, the forty-third stop's run), and nothing in the run told why.
// `node test/bench/machine-speed.mjs` prints one reading.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { sampleCustomer } from './in-process.mjs';

const RECORDS = 2000;
const ROUNDS = 10;

/** The workload, in this process: rounds per second, the best of `ROUNDS` (the least disturbed). */
function workload() {
  const records = Array.from({ length: RECORDS }, (_, i) => sampleCustomer(i));
  let best = Infinity;
  let sink = 0;
  for (let round = 0; round < ROUNDS + 2; round++) {
    const t0 = performance.now();
    for (const record of records) {
      const text = JSON.stringify(record);
      sink += JSON.parse(text).customerExtId.length;
      sink += createHash('sha256').update(text).digest()[0];
    }
    const ms = performance.now() - t0;
    // The first two rounds warm the compiler up and are not counted.
    if (round >= 2) best = Math.min(best, ms);
  }
  if (sink < 0) console.error(sink);
  return 1000 / best;
}

/** One reading in a fresh child process: rounds per second (a round: 2,000 records). */
export function machineSpeed() {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [fileURLToPath(import.meta.url), '--child'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('exit', (code) => {
      const value = Number(out.trim());
      if (code === 0 && Number.isFinite(value)) resolve(value);
      else reject(new Error(`machine-speed probe failed (exit ${code}): ${out.trim()}`));
    });
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv[2] === '--child') process.stdout.write(`${workload()}\n`);
  else
    console.log(`machine speed: ${(await machineSpeed()).toFixed(2)} rounds/s (a round: ${RECORDS} records)`);
}
