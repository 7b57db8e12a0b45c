#!/usr/bin/env node
// `npm run bench`: every benchmark of the project in one go. Prints the figures and writes
// reports/bench.json (a list of { name, value, unit }) and docs/benchmarks.md. Not a test: nothing
// here passes or fails on speed. BENCH_SIZES (default 1000) sets the local-stack sizes.
// `npm run bench screening`: the in-process screening benchmark alone (no stack, a minute), which
// replaces only the screening figures in both files. `BENCH_SIZES=10000 npm run bench stack`: the
// local-stack phases alone at those sizes, which replace (or add) only their sections.
// Personal-data encryption (docs/privacy.md, test/bench/privacy.mjs): every run measures the cipher in process
// and, with the stack, the key store. `npm run bench privacy`: those two and the whole pipeline twice in one
// run, every service in plaintext mode (label `plain`, PRIVACY_KEK_FILE '') and then encrypting (label
// `encrypted`), side by side with the ratio encrypted / plain; replaces only the privacy sections in both
// files. BENCH_BACKLOG=2000 (default 20,000) shortens the decider and projector phases for a quick run.
// `BENCH_BASELINE=<commit> npm run bench closed-loop`: the closed loop alone, the baseline's services and this
// tree's alternating (test/bench/closed-loop.mjs), for changes smaller than one pipeline run's spread;
// BENCH_SERVICE_ENV_AFTER='{"projector":{"PROJECTOR_FETCH_MIN_BYTES":"4194304"}}' gives the "after" runs
// settings of their own (with BENCH_BASELINE=HEAD: one tree, two settings).
// `npm run bench decider-restart` (RESTART_EVENTS, default here 1,000,000: the issue's restart target),
// `npm run bench screening-restart` (the screening directory's fold at start, decisions 0068 and 0073),
// `npm run bench index-cost` (what the communication-number index costs an insert, decision 0074),
// `npm run bench replay` (the replay alone on a batch-imported log; with BENCH_BASELINE, trees alternating),
// `STORE_BEFORE_BIN=<FerretDB binary> npm run bench store-build` (two FerretDB builds alternating, 0076) and
// `npm run bench callback-drain` (a callback backlog after a receiver outage, decisions 0071 and 0072): the
// standalone scripts of the same names, their figures written into their sections of both files.
import os from 'node:os';
import { mkdirSync, readFileSync, writeFileSync, existsSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { execFileSync, spawn } from 'node:child_process';
import { round } from './stats.mjs';
import { benchRiskEngine, benchScreening, benchValidation } from './in-process.mjs';
import { benchStack, benchPartitions } from './stack.mjs';
import { benchPipeline, measureLimits, ratioTo } from './pipeline.mjs';
import { benchPrivacy, benchKeyStore, localMongoUri } from './privacy.mjs';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const DATA = process.env.CRS_SHARED_DATA ?? path.resolve(ROOT, '../shared/data');
// Stack phases at 1k customers by default: on 2 cores with FerretDB v1 (SQLite) 10k takes about half an hour and
// 100k (a preload, then a sample, below) 46 minutes with BENCH_SAMPLE=5000, so both are opt-in:
// BENCH_SIZES=1000,10000,100000 npm run bench. The in-process figures grow to 100k on every run.
const sizes = (process.env.BENCH_SIZES ?? '1000').split(',').map(Number);
// Above BENCH_SAMPLE customers (default 10k), the store is first filled to the size and each phase then
// measures a sample of this many customers on top of it (test/bench/stack.mjs).
const sample = Number(process.env.BENCH_SAMPLE ?? 10000);
// The note above a local-stack table: when, with which command, and how the size was reached.
const stackNote = (size, command) =>
  `Measured ${new Date().toISOString()} with \`${command}\` on ${machine.cpus} cores (${machine.cpuModel}), ${machine.memoryGiB} GiB, Node ${machine.node}: ${
    size > sample
      ? `the store first filled to ${size} customers by batch imports through the whole pipeline (preload figures), then each phase measured on ${sample} customers on top of them`
      : `each phase measured on ${size} customers`
  }.`;
const sampleVar = (size) => (size > sample ? ` BENCH_SAMPLE=${sample}` : '');
const machine = {
  cpus: os.cpus().length,
  cpuModel: os.cpus()[0]?.model ?? 'unknown',
  memoryGiB: Math.round(os.totalmem() / 2 ** 30),
  node: process.version,
  platform: `${os.platform()} ${os.release()}`,
  date: new Date().toISOString(),
};

const machineText = `${machine.cpus} cores (${machine.cpuModel}), ${machine.memoryGiB} GiB, Node ${machine.node}`;
const loadNow = () => os.loadavg()[0].toFixed(1);
/** The BENCH_* settings of this run, as they go in front of the command in a note. */
const benchVars = () =>
  Object.entries(process.env)
    .filter(([k]) => k.startsWith('BENCH_'))
    .map(([k, v]) => `${k}=${v} `)
    .join('');
// The tree's commit, and whether its tracked files differ from it (a run before the commit says so).
const rev = (dir) => {
  try {
    const head = execFileSync('git', ['-C', dir, 'rev-parse', '--short', 'HEAD'], {
      encoding: 'utf8',
    }).trim();
    const changed = execFileSync('git', ['-C', dir, 'status', '--porcelain', '--untracked-files=no'], {
      encoding: 'utf8',
    }).trim();
    return changed ? `${head} with uncommitted changes` : head;
  } catch {
    return '?';
  }
};

const figures = [];
const add = (list, section) => {
  for (const f of list) figures.push({ ...f, section });
};
console.log(
  `machine: ${machine.cpus} cores (${machine.cpuModel}), ${machine.memoryGiB} GiB, Node ${machine.node}`,
);

// Screening latency depends on what else runs on the (shared) cores, so its section says how busy
// they were: the 1-minute load average when the measurement started and ended.
async function benchScreeningWithLoad() {
  const before = os.loadavg()[0];
  const list = await benchScreening(DATA);
  const note = `Screening measured ${machine.date} on ${machine.cpus} cores (${machine.cpuModel}), ${machine.memoryGiB} GiB, Node ${machine.node}; 1-minute load average ${before.toFixed(1)} at the start, ${os.loadavg()[0].toFixed(1)} at the end (other work on the same cores lengthens the tail). Alone: \`npm run bench screening\`.`;
  return { list, note };
}

const PRIVACY = 'Personal-data encryption';
const PRIVACY_STORE = 'Personal-data encryption: key store';
const PRIVACY_PIPELINE = 'Personal-data encryption: pipeline, plain and encrypted';

/** The cipher in process (test/bench/privacy.mjs), with the machine and its load like the screening section. */
async function benchPrivacyWithLoad() {
  const before = loadNow();
  const list = await benchPrivacy();
  const note = `Measured ${new Date().toISOString()} on ${machineText}, in process (no stack), the key in memory: the benchmark customer record, 2,000 distinct customers, 5 rounds; 1-minute load average ${before} at the start, ${loadNow()} at the end (other work on the same cores lowers the rates). With the key store and the pipeline in plain and encrypted mode: \`npm run bench privacy\`.`;
  return { list, note };
}

/** The key store on the local stack's store (test/bench/privacy.mjs); a failure leaves a figure saying so. */
async function measureKeyStore() {
  console.log('local stack: personal-data key store');
  const before = loadNow();
  let list;
  try {
    list = await benchKeyStore(await localMongoUri());
  } catch (err) {
    console.log(`  key store stopped early: ${err.message}`);
    list = [{ name: 'privacy.store.incomplete', value: 1, unit: `stopped early: ${err.message}` }];
  }
  const n = Number(process.env.BENCH_PRIVACY_CUSTOMERS ?? 10000);
  const note = `Measured ${new Date().toISOString()} on ${machineText}, against the local stack's store (FerretDB) in a scratch database dropped afterwards, ${n} new customers per phase: \`DataKeyStore.keysFor\` and \`CustomerPrivacy.encryptCustomers\` in batches of 500 (the ingress's one insertMany per group of requests), \`currentKey\` with the cache off (a findOne by _id and an unwrap: what a decrypting service pays per customer on a cache miss); 1-minute load average ${before} at the start, ${loadNow()} at the end.`;
  return { list, note };
}

/** The whole pipeline once per run [label, root, env] (test/bench/pipeline.mjs); a run that fails says so. */
async function runPipelines(runs, measured, limits) {
  const loads = [];
  for (const [label, root, env = {}, partitions = benchPartitions()] of runs) {
    console.log(
      `pipeline: ${label} (${root}, ${partitions} partitions${Object.keys(env).length ? `, env ${JSON.stringify(env)}` : ''})`,
    );
    const before = loadNow();
    measured.push({ name: `pipeline.partitions.${label}`, value: partitions, unit: 'partitions per topic' });
    try {
      await benchPipeline({ root, label, figures: measured, limits, env, partitions });
    } catch (err) {
      console.log(
        `  pipeline (${label}) stopped early: ${err.message}${err.cause ? ` (${err.cause.code ?? err.cause.message ?? err.cause})` : ''}`,
      );
      measured.push({
        name: `pipeline.incomplete.${label}`,
        value: 1,
        unit: `stopped early: ${err.message}`,
      });
    }
    loads.push(`${label} ${before} → ${loadNow()}`);
  }
  return loads;
}

/**
 * The limits as figures (`limit.<name>`, `limit.store.<op>`); given both readings, the unit names them.
 */
function limitFigures(limits, first, last) {
  const reading = (v) => (typeof v === 'number' ? Math.round(v) : 'none');
  const readings = (of) =>
    first
      ? ` (the higher of ${reading(of(first))} at the start and ${reading(of(last))} at the end of the run)`
      : '';
  const out = [];
  for (const [key, l] of Object.entries(limits)) {
    if (!l?.name) continue;
    const unit = `${l.unit}${readings((r) => r[key]?.value)}`;
    out.push({ name: `limit.${l.name}`, value: Math.round(l.value), unit });
  }
  for (const [k, v] of Object.entries(limits.storeAll ?? {})) {
    if (typeof v === 'number')
      out.push({
        name: `limit.store.${k}`,
        value: Math.round(v),
        unit: `ops/s${readings((r) => r.storeAll?.[k])}`,
      });
  }
  return out;
}

/** Per limit, the higher of two readings (one that failed in a reading is taken from the other). */
function higherLimits(a, b) {
  const out = {};
  for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
    if (key === 'storeAll') {
      const all = { ...(a.storeAll ?? {}) };
      for (const [k, v] of Object.entries(b.storeAll ?? {}))
        if (typeof v === 'number' && !(all[k] >= v)) all[k] = v;
      out.storeAll = all;
    } else if (!a[key] || (b[key] && b[key].value > a[key].value)) out[key] = b[key];
    else out[key] = a[key];
  }
  return out;
}

/**
 * The figures with every `pipeline.<name>.ratio_to_<limit>.<label>` computed again from its figure
 * (`pipeline.<name>.<label>`) and the limit of that name in `limits`.
 */
function ratiosTo(list, limits) {
  const byName = new Map(list.map((f) => [f.name, f]));
  const limitOf = new Map(
    Object.values(limits)
      .filter((l) => l?.name)
      .map((l) => [l.name, l]),
  );
  return list.map((f) => {
    const m = /^(pipeline\..+)\.ratio_to_([a-z_]+)\.([a-z]+)$/.exec(f.name);
    const base = m && byName.get(`${m[1]}.${m[3]}`);
    const limit = m && limitOf.get(m[2]);
    return base && limit ? { ...f, ...ratioTo(base.value, limit) } : f;
  });
}

/**
 * The figures of two labels of one run side by side (`pipeline.<name>.<a>` beside `pipeline.<name>.<b>`) with
 * the ratio b / a: console lines, markdown rows, and a `<name>.<b>_to_<a>` figure for each throughput or
 * latency. Ratios to a limit stay in the full list only.
 */
function sideBySide(list, a, b) {
  const base = (name, label) =>
    name.endsWith(`.${label}`) && !name.includes('.ratio_to_') ? name.slice(0, -label.length - 1) : undefined;
  const names = [];
  const of = { [a]: new Map(), [b]: new Map() };
  for (const f of list) {
    for (const label of [a, b]) {
      const n = base(f.name, label);
      if (n === undefined) continue;
      if (!names.includes(n)) names.push(n);
      of[label].set(n, f);
    }
  }
  const lines = [`${'figure'.padEnd(55)} ${a.padStart(12)} ${b.padStart(12)} ${`${b} / ${a}`.padStart(20)}`];
  const rows = [`| figure | ${a} | ${b} | ${b} / ${a} | unit |`, '|---|---:|---:|---:|---|'];
  const ratios = [];
  for (const n of names) {
    const x = of[a].get(n);
    const y = of[b].get(n);
    // No ratio of a difference (backlog growth) or of a zero.
    const ratio =
      typeof x?.value === 'number' && typeof y?.value === 'number' && x.value > 0 && y.value >= 0
        ? round(y.value / x.value, 3)
        : undefined;
    // Units that differ between the runs (the cores and store commands broken down) show both breakdowns.
    const head = (u) => u.split(' (')[0];
    const tail = (u) => (u.includes(' (') ? u.slice(u.indexOf(' (') + 2, -1) : '');
    const unit =
      !x || !y || x.unit === y.unit
        ? (x ?? y).unit
        : `${head(y.unit)} (${a}: ${tail(x.unit) || head(x.unit)}; ${b}: ${tail(y.unit) || head(y.unit)})`;
    const show = (v) => (v === undefined ? '—' : String(v));
    lines.push(
      `${n.padEnd(55)} ${show(x?.value).padStart(12)} ${show(y?.value).padStart(12)} ${show(ratio).padStart(20)} ${head((x ?? y).unit)}`,
    );
    rows.push(`| ${n} | ${show(x?.value)} | ${show(y?.value)} | ${show(ratio)} | ${unit} |`);
    if (ratio !== undefined && /per_sec|latency|_p50$|_p99$/.test(n))
      ratios.push({ name: `${n}.${b}_to_${a}`, value: ratio, unit: `ratio (${b} / ${a})` });
  }
  return { lines, rows, ratios };
}

/** Prints figures as aligned lines. */
const print = (list) => {
  for (const f of list) console.log(`${f.name.padEnd(55)} ${String(f.value).padStart(12)} ${f.unit}`);
};

const table = (list) => [
  '| figure | value | unit |',
  '|---|---:|---|',
  ...list.map((f) => `| ${f.name} | ${f.value} | ${f.unit} |`),
];

/**
 * Replaces (or adds) the given figures in reports/bench.json and their `## <section>` parts in
 * docs/benchmarks.md, keeping everything else of the last full run. A section's `rows` (markdown table
 * lines) replace its plain table of figures.
 */
function mergeIntoReports(list, sectionsWithNotes) {
  const jsonFile = path.join(ROOT, 'reports/bench.json');
  const previous = existsSync(jsonFile) ? JSON.parse(readFileSync(jsonFile, 'utf8')) : [];
  const fresh = new Map(list.map((f) => [f.name, f]));
  const merged = previous.map((f) => fresh.get(f.name) ?? f);
  for (const f of list) if (!previous.some((p) => p.name === f.name)) merged.push(f);
  mkdirSync(path.dirname(jsonFile), { recursive: true });
  writeFileSync(
    jsonFile,
    JSON.stringify(
      merged.map(({ name, value, unit }) => ({ name, value, unit })),
      null,
      2,
    ) + '\n',
  );
  const mdFile = path.join(ROOT, 'docs/benchmarks.md');
  let md = existsSync(mdFile) ? readFileSync(mdFile, 'utf8') : '# Benchmarks\n\n';
  for (const { section, note, figures: own, rows } of sectionsWithNotes) {
    const text = [`## ${section}`, '', ...(note ? [note, ''] : []), ...(rows ?? table(own)), ''].join('\n');
    const at = md.indexOf(`## ${section}\n`);
    const end = at < 0 ? -1 : md.indexOf('\n## ', at + 1);
    md = at < 0 ? `${md.trimEnd()}\n\n${text}` : md.slice(0, at) + text + (end < 0 ? '' : md.slice(end));
  }
  writeFileSync(mdFile, md);
}

/** The local-stack phases at one size; a phase that fails leaves the earlier figures and says so. */
async function measureStack(size) {
  console.log(`local stack: ${size} customers`);
  const measured = [];
  try {
    await benchStack({ size, sample, figures: measured });
  } catch (err) {
    console.log(`  local stack (${size}) stopped early: ${err.message}`);
    measured.push({ name: `stack.incomplete@${size}`, value: 1, unit: `stopped early: ${err.message}` });
  }
  return measured;
}

if (process.argv[2] === 'stack') {
  // `BENCH_SIZES=10000 npm run bench stack`: the local-stack phases alone at the given sizes; their
  // sections replace (or join) those of the last full run in both files.
  const sections = [];
  for (const size of sizes) {
    const measured = await measureStack(size);
    print(measured);
    sections.push({
      section: `local stack (${size})`,
      note: stackNote(size, `BENCH_SIZES=${size}${sampleVar(size)} npm run bench stack`),
      figures: measured,
    });
  }
  mergeIntoReports(
    sections.flatMap((s) => s.figures),
    sections,
  );
  console.log('updated the local-stack figures in reports/bench.json and docs/benchmarks.md');
  process.exit(0);
}

/**
 * BENCH_BASELINE names the "before" of a before-and-after run: a built checkout, or a git revision of
 * this repository, which is then checked out (git worktree) outside the repository, installed and built
 * once, and shares this checkout's local stack (.local).
 */
function baselineTree(value) {
  if (!value) return undefined;
  if (existsSync(path.join(value, 'deploy/local/services.cjs'))) return path.resolve(value);
  const sh = (cmd, args, cwd) => execFileSync(cmd, args, { cwd, stdio: ['ignore', 'inherit', 'inherit'] });
  const rev = execFileSync('git', ['-C', ROOT, 'rev-parse', '--short', value], { encoding: 'utf8' }).trim();
  const dir = path.join(
    process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'),
    'crs-bench',
    `baseline-${rev}`,
  );
  if (!existsSync(path.join(dir, '.built'))) {
    console.log(`baseline ${rev}: checking out, installing and building in ${dir}`);
    if (!existsSync(dir)) sh('git', ['-C', ROOT, 'worktree', 'add', '--detach', dir, rev]);
    // The pnpm that bootstrap.sh installed (package.json's packageManager), else one on the PATH.
    const want = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).packageManager.split(
      '@',
    )[1];
    const local = path.join(ROOT, `.tools/pnpm-${want}/node_modules/.bin/pnpm`);
    const pnpm = existsSync(local) ? local : 'pnpm';
    sh(pnpm, ['install', '--frozen-lockfile', '--silent'], dir);
    sh(pnpm, ['run', '-s', 'build'], dir);
    writeFileSync(path.join(dir, '.built'), rev);
  }
  if (!existsSync(path.join(dir, '.local'))) symlinkSync(path.join(ROOT, '.local'), path.join(dir, '.local'));
  return dir;
}

if (process.argv[2] === 'pipeline') {
  // `npm run bench pipeline`: the whole pipeline beside the raw limits of Kafka and the store, measured in
  // this run; with BENCH_BASELINE=<built checkout of an older commit>, that tree first (before and after).
  // The limits are read at the start and again at the end of the run, and each is the higher reading: a
  // ceiling read low (a broker or a machine just started: the first reading of the forty-fourth stop was half
  // the second) would flatter every ratio to it. The sides print their ratios to the first reading; the
  // report's ratios are to the higher one (`higherLimits`, `ratiosTo`).
  console.log('raw limits of this machine (Kafka, store), first reading');
  const firstLimits = await measureLimits();
  print(limitFigures(firstLimits));
  const baseline = baselineTree(process.env.BENCH_BASELINE);
  // A baseline checked out outside the repository has no ../shared beside it: both trees read this one's.
  process.env.CRS_SHARED_DATA ??= DATA;
  // The baseline runs as it was deployed: 6 partitions per topic before decision 0035 sized the local
  // stack's topics to the cores (BENCH_BASELINE_PARTITIONS to change it, e.g. to compare code alone).
  const baselinePartitions = Number(process.env.BENCH_BASELINE_PARTITIONS ?? 6);
  // BENCH_BASELINE_ENV (a JSON object): settings of the baseline's processes only, e.g. the store's TCP
  // address for a baseline from before decision 0082.
  const baselineEnv = JSON.parse(process.env.BENCH_BASELINE_ENV ?? '{}');
  const runs = baseline
    ? [
        ['before', path.resolve(baseline), baselineEnv, baselinePartitions],
        ['after', ROOT],
      ]
    : [['after', ROOT]];
  const sides = [];
  await runPipelines(runs, sides, firstLimits);
  console.log('raw limits of this machine (Kafka, store), second reading');
  const lastLimits = await measureLimits();
  print(limitFigures(lastLimits));
  const higher = higherLimits(firstLimits, lastLimits);
  const measured = [...limitFigures(higher, firstLimits, lastLimits), ...ratiosTo(sides, higher)];
  print(measured);
  if (baseline) for (const line of sideBySide(measured, 'before', 'after').lines) console.log(line);
  const note = `Measured ${new Date().toISOString()} with \`${baseline ? `BENCH_BASELINE=${process.env.BENCH_BASELINE} ` : ''}${baseline && process.env.BENCH_BASELINE_ENV ? `BENCH_BASELINE_ENV='${process.env.BENCH_BASELINE_ENV}' ` : ''}npm run bench pipeline\` on ${machine.cpus} cores (${machine.cpuModel}), ${machine.memoryGiB} GiB, Node ${machine.node}; ${baseline ? `before = ${rev(baseline)}, ` : ''}after = ${rev(ROOT)}. Limits measured in the same run on the same stack, at its start and at its end, the higher reading of each kept (test/bench/limits); a ratio is the stage's figure divided by the limit it is bound by.`;
  mergeIntoReports(measured, [{ section: 'pipeline (issue 15)', note, figures: measured }]);
  console.log('updated the pipeline figures in reports/bench.json and docs/benchmarks.md');
  process.exit(0);
}

if (process.argv[2] === 'privacy') {
  // `npm run bench privacy`: the cost of personal-data encryption (issue #18): the cipher in process, the key
  // store on the local stack, and the whole pipeline twice in one run, plain then encrypted, side by side.
  console.log('in-process: personal-data encryption');
  const inProcess = await benchPrivacyWithLoad();
  print(inProcess.list);
  const keyStore = await measureKeyStore();
  print(keyStore.list);
  const measured = [];
  const loads = await runPipelines(
    [
      ['plain', ROOT, { PRIVACY_KEK_FILE: '' }],
      ['encrypted', ROOT, {}],
    ],
    measured,
    {},
  );
  const compared = sideBySide(measured, 'plain', 'encrypted');
  print(measured);
  for (const line of compared.lines) console.log(line);
  const pipelineFigures = [...measured, ...compared.ratios];
  const note = `Measured ${new Date().toISOString()} with \`${benchVars()}npm run bench privacy\` on ${machineText}, at ${rev(ROOT)}: the phases of \`npm run bench pipeline\` (test/bench/pipeline.mjs, without the raw limits) run twice in one run on the same stack, each in a namespace of its own: \`plain\` with every service in plaintext mode (PRIVACY_KEK_FILE ''), then \`encrypted\` (the default: the ingress encrypts each customer record, evaluation, screening, callback and the read API decrypt). A ratio is encrypted / plain: above 1 for a rate means faster encrypted, for a latency slower. 1-minute load average (start → end) ${loads.join(', ')}; other work on the same cores moves both runs, so compare ratios within one run only.`;
  mergeIntoReports(
    [...inProcess.list, ...keyStore.list, ...pipelineFigures],
    [
      { section: PRIVACY, note: inProcess.note, figures: inProcess.list },
      { section: PRIVACY_STORE, note: keyStore.note, figures: keyStore.list },
      { section: PRIVACY_PIPELINE, note, figures: pipelineFigures, rows: compared.rows },
    ],
  );
  console.log('updated the personal-data encryption figures in reports/bench.json and docs/benchmarks.md');
  process.exit(0);
}

if (process.argv[2] === 'accept') {
  // `npm run bench accept`: the accept path alone (only the ingress runs), plain and encrypted side by side,
  // and with BENCH_BASELINE the baseline's ingress (encrypted) first: before and after in one run.
  const { benchAccept } = await import('./accept.mjs');
  const baseline = baselineTree(process.env.BENCH_BASELINE);
  process.env.CRS_SHARED_DATA ??= DATA;
  const measured = [];
  const before = loadNow();
  if (baseline) await benchAccept({ mode: 'before', root: baseline, env: {}, figures: measured });
  await benchAccept({ mode: 'plain', env: { PRIVACY_KEK_FILE: '' }, figures: measured });
  await benchAccept({ mode: 'encrypted', env: {}, figures: measured });
  const compared = sideBySide(measured, 'plain', 'encrypted');
  const change = baseline ? sideBySide(measured, 'before', 'encrypted') : undefined;
  for (const line of [...compared.lines, ...(change?.lines ?? [])]) console.log(line);
  const note = `Measured ${new Date().toISOString()} with \`${baseline ? `BENCH_BASELINE=${process.env.BENCH_BASELINE} ` : ''}npm run bench accept\` on ${machineText}, at ${rev(ROOT)}${baseline ? `; before = ${rev(baseline)}, encrypted` : ''}: only the ingress runs (no consumer), batches of ${process.env.BENCH_BATCH_SIZE ?? 1000} from ${process.env.BENCH_BATCH_CLIENTS ?? 4} clients, then single imports from ${process.env.BENCH_SINGLE_CLIENTS ?? 32} clients, ${process.env.BENCH_ACCEPT_SECONDS ?? 10} s each (test/bench/accept.mjs); \`plain\` in plaintext mode, \`encrypted\` the default. 1-minute load average ${before} → ${loadNow()}.`;
  const figures = [...measured, ...compared.ratios, ...(change?.ratios ?? [])];
  const rows = [...compared.rows, ...(change ? ['', ...change.rows] : [])];
  mergeIntoReports(figures, [{ section: 'accept path alone (issues 15 and 18)', note, figures, rows }]);
  console.log('updated the accept-path figures in reports/bench.json and docs/benchmarks.md');
  process.exit(0);
}

if (process.argv[2] === 'offered') {
  // `npm run bench offered`: accept-to-callback latency at fixed offered rates on a preloaded store
  // (test/bench/offered.mjs); with BENCH_BASELINE, each rate on the baseline's services first.
  const { benchOffered } = await import('./offered.mjs');
  const baseline = baselineTree(process.env.BENCH_BASELINE);
  process.env.CRS_SHARED_DATA ??= DATA;
  const rates = (process.env.BENCH_OFFERED_RATES ?? '90,120,140').split(',').map(Number);
  const measured = [];
  const before = loadNow();
  for (const rate of rates) {
    if (baseline) await benchOffered({ label: 'before', rate, root: baseline, figures: measured });
    await benchOffered({ label: 'after', rate, figures: measured });
  }
  const change = baseline ? sideBySide(measured, 'before', 'after') : undefined;
  for (const line of change?.lines ?? []) console.log(line);
  const note = `Measured ${new Date().toISOString()} with \`${baseline ? `BENCH_BASELINE=${process.env.BENCH_BASELINE} ` : ''}npm run bench offered\` on ${machineText}, at ${rev(ROOT)}${baseline ? `; before = ${rev(baseline)}` : ''}: an open load of EVALUATE imports (SANCTIONS and PEP) at ${rates.join(', ')} customers/s for ${process.env.BENCH_OFFERED_SECONDS ?? 60} s each, on a namespace preloaded with ${process.env.BENCH_PRELOAD ?? 40000} batch-imported customers (test/bench/offered.mjs); ${benchPartitions()} partitions per topic. 1-minute load average ${before} → ${loadNow()}.`;
  const figures = [...measured, ...(change?.ratios ?? [])];
  const rows = change ? change.rows : undefined;
  mergeIntoReports(figures, [
    { section: 'offered load at fixed rates (issue 15)', note, figures, ...(rows ? { rows } : {}) },
  ]);
  console.log('updated the offered-load figures in reports/bench.json and docs/benchmarks.md');
  process.exit(0);
}

/** Above this share of the broker's CPU in its JIT compiler, a closed-loop run's broker counts as cold. */
const COLD_BROKER_COMPILING = 0.2;
/** A share (0..1) as a whole per cent. */
const percent = (share) => `${Math.round(share * 100)} %`;

if (process.argv[2] === 'closed-loop') {
  // `BENCH_BASELINE=<commit> npm run bench closed-loop`: the closed loop alone, the two trees alternating
  // (test/bench/closed-loop.mjs); each run and the mean per tree. BENCH_SERVICE_ENV_AFTER (a JSON object:
  // service name -> settings) applies to the "after" runs only, so `BENCH_BASELINE=HEAD` compares settings.
  const { alternating, closedLoopRun } = await import('./closed-loop.mjs');
  const afterEnv = JSON.parse(process.env.BENCH_SERVICE_ENV_AFTER ?? '{}');
  const baseline = baselineTree(process.env.BENCH_BASELINE);
  if (!baseline) throw new Error('closed-loop compares two trees: set BENCH_BASELINE');
  process.env.CRS_SHARED_DATA ??= DATA;
  const roots = { before: baseline, after: ROOT };
  const order = alternating(Number(process.env.BENCH_ROUNDS ?? 3));
  const before = loadNow();
  const runs = [];
  for (const [index, label] of order.entries()) {
    const r = await closedLoopRun({
      label,
      index,
      root: roots[label],
      serviceEnv: label === 'after' ? afterEnv : {},
    });
    runs.push(r);
    console.log(
      `  [${index + 1}/${order.length} ${label}] accepted ${r.acceptedPerSec}/s, end to end ${r.endToEndPerSec}/s; store per customer ${r.storeKBPerCustomer ?? '-'} KB written, ${r.storeCpuMsPerCustomer ?? '-'} ms of CPU; cores: ${r.cpu}${r.brokerCompiling === undefined ? '' : `; broker compiling ${percent(r.brokerCompiling)} of its CPU`}`,
    );
  }
  // A broker that still compiles (its first minutes of load after a start, decision 0080) runs cold.
  const cold = runs
    .map((r, i) => (r.brokerCompiling > COLD_BROKER_COMPILING ? i + 1 : undefined))
    .filter((i) => i !== undefined)
    .join(', ');
  if (cold) console.log(`  the broker was still compiling in runs ${cold}: its figures there are cold`);
  const mean = (label, key, digits = 1) => {
    const of = runs.filter((r) => r.label === label).map((r) => r[key]);
    return of.some((v) => v === undefined)
      ? undefined
      : round(of.reduce((a, b) => a + b, 0) / of.length, digits);
  };
  const runsOf = (label, key) =>
    runs
      .filter((r) => r.label === label)
      .map((r) => r[key])
      .join(', ');
  const measured = [];
  for (const label of ['before', 'after']) {
    measured.push(
      {
        name: `closed_loop.accepted_per_sec.${label}`,
        value: mean(label, 'acceptedPerSec'),
        unit: 'req/s (mean)',
      },
      {
        name: `closed_loop.end_to_end_per_sec.${label}`,
        value: mean(label, 'endToEndPerSec'),
        unit: `customers/s (mean; runs ${runsOf(label, 'endToEndPerSec')})`,
      },
      // FerretDB's writes and CPU per customer, first request to last callback (absent on another store).
      ...(mean(label, 'storeKBPerCustomer') === undefined
        ? []
        : [
            {
              name: `closed_loop.store_kb_written_per_customer.${label}`,
              value: mean(label, 'storeKBPerCustomer'),
              unit: `KB (mean; runs ${runsOf(label, 'storeKBPerCustomer')})`,
            },
            {
              name: `closed_loop.store_cpu_ms_per_customer.${label}`,
              value: mean(label, 'storeCpuMsPerCustomer', 2),
              unit: `ms (mean; runs ${runsOf(label, 'storeCpuMsPerCustomer')})`,
            },
          ]),
    );
  }
  const change = sideBySide(measured, 'before', 'after');
  for (const line of change.lines) console.log(line);
  const note = `Measured ${new Date().toISOString()} with \`BENCH_BASELINE=${process.env.BENCH_BASELINE} npm run bench closed-loop\` on ${machineText}, at ${rev(ROOT)}; before = ${rev(baseline)}${Object.keys(afterEnv).length > 0 ? `; after with BENCH_SERVICE_ENV_AFTER=${JSON.stringify(afterEnv)}` : ''}: ${order.length} runs in the order ${order.join(', ')}, each in a fresh namespace (${process.env.BENCH_CLOSED_WARMUP_SECONDS ?? 30} s of warm-up, then ${process.env.BENCH_SINGLE_CLIENTS ?? 32} clients posting EVALUATE imports with SANCTIONS and PEP for ${process.env.BENCH_SINGLE_SECONDS ?? 20} s, every callback awaited; test/bench/closed-loop.mjs); ${benchPartitions()} partitions per topic. The broker's JIT compiler took ${runs.map((r) => (r.brokerCompiling === undefined ? '-' : percent(r.brokerCompiling))).join(', ')} of its CPU in the runs${cold ? ` (cold in runs ${cold}: warm the broker first, decision 0080)` : ''}. 1-minute load average ${before} → ${loadNow()}.`;
  const figures = [...measured, ...change.ratios];
  mergeIntoReports(figures, [
    { section: 'closed loop, trees alternating (issue 15)', note, figures, rows: change.rows },
  ]);
  console.log('updated the closed-loop figures in reports/bench.json and docs/benchmarks.md');
  process.exit(0);
}

/**
 * Runs one of the standalone bench scripts (test/bench/<name>.mjs) with its output shown as it comes, and
 * returns the JSON object of its last line that parses as one (each script ends with its result).
 */
async function runBenchScript(name, env = {}, nodeArgs = []) {
  const child = spawn(process.execPath, [...nodeArgs, path.join(ROOT, `test/bench/${name}.mjs`)], {
    cwd: ROOT,
    env: { ...process.env, CRS_SHARED_DATA: DATA, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let last;
  let buffered = '';
  child.stdout.on('data', (chunk) => {
    process.stdout.write(chunk);
    buffered += chunk;
    const lines = buffered.split('\n');
    buffered = lines.pop();
    for (const line of lines) {
      if (!line.startsWith('{')) continue;
      try {
        last = JSON.parse(line);
      } catch {
        // a line that only looks like JSON
      }
    }
  });
  const code = await new Promise((resolve) => child.on('close', resolve));
  if (code !== 0) throw new Error(`test/bench/${name}.mjs exited with ${code}`);
  if (!last) throw new Error(`test/bench/${name}.mjs printed no result`);
  return last;
}

const meanOf = (values) => (values.length ? values.reduce((a, b) => a + b, 0) / values.length : NaN);

if (process.argv[2] === 'decider-restart') {
  const events = process.env.RESTART_EVENTS ?? '1000000';
  const before = loadNow();
  const r = await runBenchScript('decider-restart', { RESTART_EVENTS: events });
  const figures = [
    { name: 'decider_restart.events', value: r.events, unit: `events (${r.customers} customers)` },
    { name: 'decider_restart.full_fold', value: round(r.restart_full_fold_s, 1), unit: 's (snapshots off)' },
    {
      name: 'decider_restart.from_snapshots',
      value: round(r.restart_from_snapshots_s, 1),
      unit: 's (issue 15: under 30 s over 1 million events)',
    },
    {
      name: 'decider_restart.snapshot_bootstrap',
      value: round(r.snapshot_bootstrap_s, 1),
      unit: 's (every state written once)',
    },
  ];
  for (const snapshots of ['off', 'on']) {
    const key = Object.keys(r).find(
      (k) => k.startsWith('drain_') && k.endsWith(`snapshots_${snapshots}_per_s`),
    );
    if (key)
      figures.push({
        name: `decider_restart.drain_snapshots_${snapshots}`,
        value: Math.round(meanOf(r[key])),
        unit: `commands/s (mean of ${r[key].join(', ')}; queued commands drained after a start)`,
      });
  }
  print(figures);
  const note = `Measured ${new Date().toISOString()} with \`RESTART_EVENTS=${events} npm run bench decider-restart\` on ${machineText}, at ${rev(ROOT)} (test/bench/decider-restart.mjs: synthetic customer events decided by the decider's own core written straight into a throw-away events topic, then the decider started in process: the full fold with snapshots off, then from its state snapshots, decision 0016). 1-minute load average ${before} → ${loadNow()}.`;
  mergeIntoReports(figures, [{ section: 'decider restart (issue 15)', note, figures }]);
  console.log('updated the decider-restart figures in reports/bench.json and docs/benchmarks.md');
  process.exit(0);
}

if (process.argv[2] === 'screening-restart') {
  const before = loadNow();
  const r = await runBenchScript('screening-restart', {}, ['--expose-gc']);
  const variants = Object.keys(r)
    .filter((k) => k.startsWith('meanSeconds_'))
    .map((k) => k.slice(12));
  const figures = [
    {
      name: 'screening_restart.log',
      value: r.events,
      unit: `events (${r.customers} screened customers${r.updates ? `, ${r.updates} updates each` : ''})`,
    },
  ];
  for (const v of variants)
    figures.push(
      {
        name: `screening_restart.fold.${v}`,
        value: r[`meanSeconds_${v}`],
        unit: `s (mean of ${r[v].map((x) => x.seconds).join(', ')}; ${r[v][0].handed} events handed out)`,
      },
      {
        name: `screening_restart.per_million_screened.${v}`,
        value: r[`secondsPerMillionCustomers_${v}`],
        unit: 's per million screened customers',
      },
    );
  print(figures);
  const note = `Measured ${new Date().toISOString()} with \`npm run bench screening-restart\` on ${machineText}, at ${rev(ROOT)} (test/bench/screening-restart.mjs: customers imported through the pipeline with SANCTIONS and PEP screening, then the screening directory folded from the whole customer log with the service's own pieces and a cold key cache, the variants alternating: \`directory\` reads the types the directory folds (decision 0068), \`serial\` also skips records of customers without a list purpose by their header (decision 0073), one partition at a time, \`skip\` the same with the partitions' batches folded at once (the service's reading, decision 0078), \`all\` decodes every event). 1-minute load average ${before} → ${loadNow()}.`;
  mergeIntoReports(figures, [{ section: 'screening directory at start (issue 15)', note, figures }]);
  console.log('updated the screening-restart figures in reports/bench.json and docs/benchmarks.md');
  process.exit(0);
}

if (process.argv[2] === 'replay') {
  // `npm run bench replay`: the replay alone on a log the pipeline's decider wrote (test/bench/replay.mjs);
  // with BENCH_BASELINE, that tree's replay alternating with this one's on the same log.
  const baseline = baselineTree(process.env.BENCH_BASELINE);
  const before = loadNow();
  const r = await runBenchScript('replay', baseline ? { REPLAY_BASELINE: baseline } : {});
  const labels = [...new Set(r.runs.map((x) => x.label))];
  const measured = labels.flatMap((label) => {
    const runs = r.runs.filter((x) => x.label === label);
    const mean = (f) => runs.reduce((a, x) => a + f(x), 0) / runs.length;
    return [
      {
        name: `replay_alone.events_per_sec.${label}`,
        value: round(
          mean((x) => x.eventsPerSec),
          0,
        ),
        unit: `events/s (mean; runs ${runs.map((x) => x.eventsPerSec).join(', ')}; ${runs[0].events} events)`,
      },
      {
        name: `replay_alone.log_phase_seconds.${label}`,
        value: round(
          mean((x) => x.phases.log),
          2,
        ),
        unit: `s (mean; runs ${runs.map((x) => x.phases.log).join(', ')}: reading and folding the log)`,
      },
    ];
  });
  // REPLAY_BEFORE_BIN (read by replay.mjs): this tree on two FerretDB builds instead of two trees.
  const builds =
    !baseline && process.env.REPLAY_BEFORE_BIN ? r.runs.find((x) => x.label === 'before')?.store : undefined;
  // Two sides whenever replay.mjs ran a "before" (a baseline tree, another FerretDB build, or this tree with
  // BENCH_BASELINE_ENV's settings before).
  const change = labels.includes('before') ? sideBySide(measured, 'before', 'after') : undefined;
  if (change) for (const line of change.lines) console.log(line);
  else print(measured);
  const note = `Measured ${new Date().toISOString()} with \`${baseline ? `BENCH_BASELINE=${process.env.BENCH_BASELINE} ` : ''}${builds ? `REPLAY_BEFORE_BIN=${builds} ` : ''}${change && process.env.BENCH_BASELINE_ENV ? `BENCH_BASELINE_ENV='${process.env.BENCH_BASELINE_ENV}' ` : ''}npm run bench replay\` on ${machineText}, at ${rev(ROOT)}${baseline ? `; before = ${rev(baseline)}` : ''}${builds ? `; before = FerretDB ${builds}, after = this tree's FerretDB build ${r.runs.find((x) => x.label === 'after')?.store}` : ''} (test/bench/replay.mjs: ${r.customers} customers batch-imported through the ingress and decided by the customer decider, then the projector's replay CLI over that log, ${r.runs.length} runs${baseline ? ', the trees alternating' : builds ? ', the FerretDB builds alternating on one data directory' : change ? ', this tree on both sides, the "before" runs with BENCH_BASELINE_ENV' : ''}); ${benchPartitions()} partitions per topic. 1-minute load average ${before} → ${loadNow()}.`;
  const figures = change ? [...measured, ...change.ratios] : measured;
  mergeIntoReports(figures, [
    { section: 'replay alone (issue 15)', note, figures, ...(change ? { rows: change.rows } : {}) },
  ]);
  console.log('updated the replay figures in reports/bench.json and docs/benchmarks.md');
  process.exit(0);
}

if (process.argv[2] === 'callback-drain') {
  const before = loadNow();
  const r = await runBenchScript('callback-drain');
  const figures = [];
  for (const label of [...new Set(r.results.map((x) => x.label))]) {
    const runs = r.results.filter((x) => x.label === label);
    figures.push({
      name: `callback_drain.delivered_per_sec.${label}`,
      value: Math.round(meanOf(runs.map((x) => x.perSecond))),
      unit: `deliveries/s (mean of ${runs.map((x) => x.perSecond).join(', ')}; build ${runs[0].build}, read-ahead ${runs[0].readAhead})`,
    });
  }
  figures.push(
    {
      name: 'callback_drain.sent_twice',
      value: r.results.reduce((n, x) => n + x.sentTwice, 0),
      unit: 'deliveries',
    },
    {
      name: 'callback_drain.out_of_order',
      value: r.results.reduce((n, x) => n + x.outOfOrder, 0),
      unit: 'deliveries',
    },
  );
  print(figures);
  const note = `Measured ${new Date().toISOString()} with \`npm run bench callback-drain\` on ${machineText}, at ${rev(ROOT)} (test/bench/callback-drain.mjs: ${r.entries} deliveries queued while ${r.endpoints} receiver(s) were down, then drained by the callback service's dispatcher for ${r.seconds} s per run against a local receiver that answers at once, the two sides alternating; \`before\` is ${process.env.BENCH_DRAIN_BEFORE_DIST ? `the build in ${process.env.BENCH_DRAIN_BEFORE_DIST}` : 'this build without read-ahead (decision 0071)'}). 1-minute load average ${before} → ${loadNow()}.`;
  mergeIntoReports(figures, [{ section: 'callback backlog drain (issue 15)', note, figures }]);
  console.log('updated the callback-drain figures in reports/bench.json and docs/benchmarks.md');
  process.exit(0);
}

if (process.argv[2] === 'store-build') {
  // `STORE_BEFORE_BIN=<FerretDB binary> npm run bench store-build`: two builds of the embedded FerretDB
  // alternating on one data directory (decision 0076), the raw limits and a closed-loop run with each.
  const before = loadNow();
  const r = await runBenchScript('store-build');
  const figures = [];
  for (const [key, unit] of [
    ['bulkUpsertPerSec', 'docs/s (raw bulk upsert by _id)'],
    ['insertManyPerSec', 'docs/s (raw insertMany)'],
    ['findByIdPerSec', 'finds/s (raw find by _id)'],
    ['storeCpuMsPerCustomer', "ms of FerretDB's CPU per customer (closed loop)"],
    ['endToEndPerSec', 'customers/s end to end (closed loop)'],
  ]) {
    for (const label of ['before', 'after']) {
      const runs = r.runs.filter((x) => x.label === label);
      const values = runs.map((x) => x[key]);
      figures.push({
        name: `store_build.${key}.${label}`,
        value: round(meanOf(values), 2),
        unit: `${unit}, mean of ${values.join(', ')}; ${runs[0].binary}`,
      });
    }
  }
  print(figures);
  const note = `Measured ${new Date().toISOString()} with \`STORE_BEFORE_BIN=${path.basename(process.env.STORE_BEFORE_BIN ?? '')} npm run bench store-build\` on ${machineText}, at ${rev(ROOT)} (test/bench/store-build.mjs: FerretDB restarted on each build in turn on one data directory, ${r.runs.length} runs in the order ${r.runs.map((x) => x.label).join(', ')}, the store's raw limits then one closed-loop run each; \`after\` is this tree's build). 1-minute load average ${before} → ${loadNow()}.`;
  mergeIntoReports(figures, [{ section: 'embedded store builds (issue 15)', note, figures }]);
  console.log('updated the store-build figures in reports/bench.json and docs/benchmarks.md');
  process.exit(0);
}

if (process.argv[2] === 'index-cost') {
  // `npm run bench index-cost`: what the communication-number index costs a delivery-log insert (0074).
  const before = loadNow();
  const r = await runBenchScript('index-cost');
  const figures = [];
  for (const numbers of ['ordered', 'random'])
    for (const variant of ['with', 'without']) {
      const runs = r.results.filter((x) => x.numbers === numbers && x.variant === variant);
      const of = (key) => runs.map((x) => x[key]);
      figures.push(
        {
          name: `index_cost.${numbers}.docs_per_sec.${variant}_index`,
          value: Math.round(meanOf(of('docsPerSec'))),
          unit: `docs/s (mean of ${of('docsPerSec').join(', ')})`,
        },
        ...(runs.every((x) => x.storeCpuUsPerDoc !== undefined)
          ? [
              {
                name: `index_cost.${numbers}.store_cpu_us_per_doc.${variant}_index`,
                value: Math.round(meanOf(of('storeCpuUsPerDoc'))),
                unit: `µs (mean of ${of('storeCpuUsPerDoc').join(', ')})`,
              },
              {
                name: `index_cost.${numbers}.store_kb_written_per_doc.${variant}_index`,
                value: round(meanOf(of('storeKBPerDoc')), 1),
                unit: `KB (mean of ${of('storeKBPerDoc').join(', ')})`,
              },
            ]
          : []),
      );
    }
  print(figures);
  const note = `Measured ${new Date().toISOString()} with \`npm run bench index-cost\` on ${machineText}, at ${rev(ROOT)} (test/bench/index-cost.mjs: ${r.docs} delivery-log-shaped documents per run, inserted ${r.batch} at a time into a collection with and without the \`{businessUnit, communicationNumber}\` index, ${r.rounds} alternating pairs for communication numbers in order and at random; the store's CPU and the bytes it wrote per document from /proc). 1-minute load average ${before} → ${loadNow()}.`;
  mergeIntoReports(figures, [{ section: 'index cost per insert (decision 0074)', note, figures }]);
  console.log('updated the index-cost figures in reports/bench.json and docs/benchmarks.md');
  process.exit(0);
}

if (process.argv[2] === 'screening') {
  if (!existsSync(DATA)) throw new Error(`no shared data at ${DATA}`);
  console.log('in-process: screening (all lists loaded)');
  const { list, note } = await benchScreeningWithLoad();
  print(list);
  // Replace the screening figures of the last full run, keep everything else.
  mergeIntoReports(list, [{ section: 'screening', note, figures: list }]);
  console.log('updated the screening figures in reports/bench.json and docs/benchmarks.md');
  process.exit(0);
}

console.log('in-process: validation');
add(benchValidation(), 'validation');
// Growth: the same figures over 10k and 100k distinct records (one pass each over the larger sets).
for (const n of [10000, 100000]) {
  add(
    benchValidation(n, Math.max(1, Math.round(20000 / n))).map((f) => ({ ...f, name: `${f.name}@${n}` })),
    'validation',
  );
}
console.log('in-process: risk engine');
add(benchRiskEngine(), 'risk engine');
const notes = new Map(); // section -> the note above its table
if (existsSync(DATA)) {
  console.log('in-process: screening (all lists loaded)');
  const { list, note } = await benchScreeningWithLoad();
  add(list, 'screening');
  notes.set('screening', note);
}
console.log('in-process: personal-data encryption');
{
  const { list, note } = await benchPrivacyWithLoad();
  add(list, PRIVACY);
  notes.set(PRIVACY, note);
}
if (!process.env.BENCH_SKIP_STACK) {
  const keyStore = await measureKeyStore();
  add(keyStore.list, PRIVACY_STORE);
  notes.set(PRIVACY_STORE, keyStore.note);
  for (const size of sizes) {
    add(await measureStack(size), `local stack (${size})`);
    notes.set(
      `local stack (${size})`,
      stackNote(size, `BENCH_SIZES=${sizes.join(',')}${sampleVar(size)} npm run bench`),
    );
  }
}
print(figures);

mkdirSync(path.join(ROOT, 'reports'), { recursive: true });
writeFileSync(
  path.join(ROOT, 'reports/bench.json'),
  JSON.stringify(
    figures.map(({ name, value, unit }) => ({ name, value, unit })),
    null,
    2,
  ) + '\n',
);
const sections = [...new Set(figures.map((f) => f.section))];
const md = [
  '# Benchmarks',
  '',
  'Written by `npm run bench` (test/bench/run.mjs); raw figures in `reports/bench.json`. Figures are measured, never asserted.',
  `Machine: ${machine.cpus} cores (${machine.cpuModel}), ${machine.memoryGiB} GiB memory, Node ${machine.node}, ${machine.platform}; run ${machine.date}.`,
  'The local stack is Kafka 3.9 (single KRaft node), Apicurio Registry 3.0.9 and FerretDB 1.24 on SQLite, all on the same 2 cores as the services and the load generator.',
  '',
  "Reading the local-stack figures: everything (Kafka, the registry, FerretDB, seven services and the load generator) shares 2 cores, so the figures are what the whole pipeline sustains together. FerretDB v1 on SQLite is built with a fix so that `_id` reads and writes use their index (decision 0009; before it, the projector managed 5-8 events/s); conditional filters still scan the collection (decision 0008). When imports arrive faster than callbacks are delivered (about 25-30/s, five small writes each), accept-to-callback grows with the size of the run. Accept-to-assessment and screened customers/s are read from the event log (broker timestamps). On MongoDB the same queries are served by indexes. The stack phases run at 1k customers by default; larger sizes are opt-in (`BENCH_SIZES=10000 npm run bench stack` measures one size alone and merges its table; 10k took 32 minutes on 2 cores). Above `BENCH_SAMPLE` customers (default 10k) the store is first filled to the size by batch imports through the whole pipeline, in a business unit without a callback endpoint (the `preload` figures), and each phase then measures the sample on top of it: `BENCH_SIZES=100000 BENCH_SAMPLE=5000 npm run bench stack` took 46 minutes; `*_share` figures say how much arrived within the bounded wait. The in-process figures (validation, risk engine, screening, personal-data encryption) are the service code alone; the key store of personal data is measured on the local stack's store, and `npm run bench privacy` adds the whole pipeline in plain and encrypted mode side by side in a section of its own.",
  '',
  ...sections.flatMap((s) => [
    `## ${s}`,
    '',
    ...(notes.has(s) ? [notes.get(s), ''] : []),
    ...table(figures.filter((f) => f.section === s)),
    '',
  ]),
].join('\n');
writeFileSync(path.join(ROOT, 'docs/benchmarks.md'), md);
console.log('wrote reports/bench.json and docs/benchmarks.md');
process.exit(0);
