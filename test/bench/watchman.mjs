// Our screening and Moov Watchman side by side over HTTP (issue #16): the perturbation suite's cases drawn
// from the OFAC SDN and UN lists (the lists both systems load from the same files), recall per kind at
// several thresholds, the alert rate on a sample of the global negatives, and queries/s over HTTP.
//
//   npm run build && bash deploy/local/watchman.sh up && npm run bench:watchman [-- options]
//
// Options: --ours <url of a screening search> (default: a screening service of our own, started in the
// namespace "watchman-cmp" on the local stack and stopped afterwards), --watchman <base url>
// (default http://127.0.0.1:18084), --negatives <n> (default 3000), --concurrency <n> (default 4).
// Writes reports/watchman-comparison.{json,md}. Not part of `npm test`: it needs the stack and Watchman.
// No names are logged; the report holds counts and figures only.
import { createRequire } from 'node:module';
import { writeFileSync, mkdirSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import http from 'node:http';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { URLSearchParams } from 'node:url';

const require = createRequire(import.meta.url);
const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const core = require(path.join(ROOT, 'packages/screening-core/dist/index.js'));
const { generatePerturbations, loadTransliterators, PERTURBATION_KINDS, PERTURBATION_SEED } = require(
  path.join(ROOT, 'packages/screening-core/dist/eval/perturbations.js'),
);
const { readPersons } = require(path.join(ROOT, 'packages/screening-core/dist/eval/datasets.js'));

const { values: opts } = parseArgs({
  options: {
    ours: { type: 'string' },
    watchman: { type: 'string', default: process.env.WATCHMAN_URL ?? 'http://127.0.0.1:18084' },
    negatives: { type: 'string', default: '3000' },
    concurrency: { type: 'string', default: '4' },
    namespace: { type: 'string', default: 'watchman-cmp' },
  },
});
const CONCURRENCY = Number(opts.concurrency);
// Watchman scores a name-only query at most about 0.81 (its coverage and "name-only" penalties: an exact
// name scores 0.81225), so the grid goes well below our default.
const THRESHOLDS = [
  0.5, 0.55, 0.6, 0.65, 0.7, 0.72, 0.74, 0.76, 0.78, 0.8, 0.82, 0.84, 0.85, 0.86, 0.88, 0.9, 0.95,
];
/** Watchman's entity types and list names for ours. */
const WATCHMAN_TYPE = { INDIVIDUAL: 'person', ORGANIZATION: 'business' };
const WATCHMAN_LIST = { OFAC_SDN: 'us_ofac', UN: 'un_csl' };
const watchmanId = (source, id) => (source === 'UN' ? `UN-${id}` : id);

const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });

function getJson(url, headers = {}) {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent, headers, timeout: 30000 }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        if (res.statusCode !== 200) reject(new Error(`HTTP ${res.statusCode} from ${new URL(url).pathname}`));
        else resolve(JSON.parse(body));
      });
    });
    req.on('error', reject);
    req.on('timeout', () => req.destroy(new Error('timeout')));
  });
}

/** Runs `fn` over `items` with CONCURRENCY in flight; returns results in order and the elapsed seconds. */
async function pool(items, fn) {
  const out = new Array(items.length);
  let next = 0;
  const t = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i]);
      }
    }),
  );
  return { out, seconds: (performance.now() - t) / 1000 };
}

async function startOurs() {
  const launcher = require(path.join(ROOT, 'deploy/local/services.cjs'));
  const auth = require(path.join(ROOT, 'packages/auth/dist/index.js'));
  const { readFileSync } = await import('node:fs');
  const keys = await launcher.ensureKeys();
  const privateJwk = JSON.parse(
    readFileSync(path.join(path.dirname(keys.jwksFile), 'signing-key.private.jwk.json'), 'utf8'),
  );
  const token = await auth.issueToken({
    privateJwk,
    issuer: 'http://127.0.0.1:8080/local-issuer',
    audience: 'crs-api',
    subject: 'watchman-comparison',
    scopes: ['screening:search'],
    businessUnits: ['DEMO'],
    expiresInSec: 3600,
  });
  let started = false;
  let url = opts.ours;
  if (!url) {
    await launcher.startService('screening', { namespace: opts.namespace, env: { LOG_LEVEL: 'warn' } });
    started = true;
    url = `http://127.0.0.1:${launcher.portOf('screening', opts.namespace)}/api/screening/search`;
  }
  return {
    url,
    headers: { authorization: `Bearer ${token}` },
    stop: async () => {
      if (started) await launcher.stopService('screening', { namespace: opts.namespace });
    },
  };
}

/** Own-entry score (0 if absent) and best sanctions score of one query, ours. */
async function askOurs(ours, name, entityType, own) {
  const q = new URLSearchParams({ name, threshold: '0.5', limit: '100', lists: 'SANCTIONS' });
  if (entityType) q.set('entityType', entityType);
  const { hits } = await getJson(`${ours.url}?${q}`, ours.headers);
  const lists = hits.filter((h) => h.source in WATCHMAN_LIST);
  return {
    own: own ? (lists.find((h) => h.source === own.source && h.entryId === own.entryId)?.score ?? 0) : 0,
    best: lists[0]?.score ?? 0,
  };
}

async function askWatchman(name, entityType, own) {
  const q = new URLSearchParams({ name, type: WATCHMAN_TYPE[entityType], limit: '100', minMatch: '0.5' });
  const { entities } = await getJson(`${opts.watchman}/v2/search?${q}`);
  const list = entities ?? [];
  const ownHit = own
    ? list.find(
        (e) =>
          e.sourceList === WATCHMAN_LIST[own.source] && e.sourceID === watchmanId(own.source, own.entryId),
      )
    : undefined;
  return { own: ownHit?.match ?? 0, best: list.reduce((m, e) => Math.max(m, e.match ?? 0), 0) };
}

function recallTable(cases, scores) {
  const rows = [];
  for (const kind of [...PERTURBATION_KINDS, 'all']) {
    const idx = cases.map((c, i) => i).filter((i) => kind === 'all' || cases[i].kind === kind);
    if (idx.length === 0) continue;
    const row = { kind, cases: idx.length };
    for (const t of THRESHOLDS) row[t] = idx.filter((i) => scores[i].own >= t).length / idx.length;
    rows.push(row);
  }
  return rows;
}

const pct = (x) => `${(x * 100).toFixed(1)} %`;

async function main() {
  const dataDir = core.resolveSharedDataDir(process.env);
  const snapshots = core.loadAllDemoLists(dataDir, '1970-01-01T00:00:00.000Z');
  const cases = generatePerturbations(snapshots, loadTransliterators(dataDir)).filter(
    (c) => c.source in WATCHMAN_LIST,
  );
  const negatives = readPersons(dataDir, 'negatives_global.csv').slice(0, Number(opts.negatives));
  console.log(`${cases.length} perturbation cases (OFAC SDN and UN), ${negatives.length} negatives`);

  const ours = await startOurs();
  const result = {};
  try {
    const systems = {
      ours: (name, type, own) => askOurs(ours, name, type, own),
      watchman: (name, type, own) => askWatchman(name, type, own),
    };
    for (const [system, ask] of Object.entries(systems)) {
      // Warm-up (connections, caches), not measured.
      await pool(cases.slice(0, 50), (c) => ask(c.query, c.entityType, c));
      const positives = await pool(cases, (c) => ask(c.query, c.entityType, c));
      const negs = await pool(negatives, (r) => ask(r.full_name, 'INDIVIDUAL', undefined));
      const requests = cases.length + negatives.length;
      result[system] = {
        recall: recallTable(cases, positives.out),
        negativeAlertRate: Object.fromEntries(
          THRESHOLDS.map((t) => [t, negs.out.filter((s) => s.best >= t).length / negatives.length]),
        ),
        queriesPerSecond: Math.round(requests / (positives.seconds + negs.seconds)),
        positivesPerSecond: Math.round(cases.length / positives.seconds),
        negativesPerSecond: Math.round(negatives.length / negs.seconds),
      };
      console.log(
        `${system}: ${result[system].queriesPerSecond} queries/s over HTTP (${CONCURRENCY} in flight)`,
      );
    }
    if (!opts.ours) {
      // Our untyped search too (Watchman requires a type).
      const untyped = await pool(cases, (c) => askOurs(ours, c.query, undefined, c));
      result.oursUntyped = { recall: recallTable(cases, untyped.out) };
    }
  } finally {
    await ours.stop();
  }

  // Comparable thresholds: ours at its default (0.86); Watchman at the lowest threshold of the grid whose
  // negative alert rate on the same sample is no higher than ours at 0.86.
  const ourRate = result.ours.negativeAlertRate[0.86];
  const watchmanAt = THRESHOLDS.find((t) => result.watchman.negativeAlertRate[t] <= ourRate) ?? 0.95;
  // And Watchman's best recall at any threshold of the grid (whatever its alert rate).
  const watchmanBest = THRESHOLDS.reduce(
    (best, t) => {
      const all = result.watchman.recall.find((r) => r.kind === 'all')[t];
      return all > best.recall ? { threshold: t, recall: all } : best;
    },
    { threshold: THRESHOLDS[0], recall: -1 },
  );
  const report = {
    generatedAt: new Date().toISOString(),
    seed: PERTURBATION_SEED,
    cases: cases.length,
    negatives: negatives.length,
    concurrency: CONCURRENCY,
    watchmanUrl: opts.watchman,
    oursUrl: opts.ours ?? `screening service, namespace ${opts.namespace}`,
    comparable: { ours: 0.86, watchman: watchmanAt },
    watchmanBest,
    ...result,
  };
  mkdirSync(path.join(ROOT, 'reports'), { recursive: true });
  writeFileSync(path.join(ROOT, 'reports/watchman-comparison.json'), JSON.stringify(report, null, 2) + '\n');
  const byKind = (sys, t) => Object.fromEntries(result[sys].recall.map((r) => [r.kind, r[t]]));
  const o = byKind('ours', 0.86);
  const w = byKind('watchman', watchmanAt);
  const w86 = byKind('watchman', 0.86);
  const u = result.oursUntyped ? byKind('oursUntyped', 0.86) : undefined;
  const md = [
    '# Our screening and Moov Watchman side by side',
    '',
    `Generated ${report.generatedAt} by \`npm run bench:watchman\` (test/bench/watchman.mjs). Same files for both: OFAC SDN (sdn.csv + alt.csv) and the UN consolidated list from the shared data; Watchman ${process.env.WATCHMAN_VERSION ?? 'v0.66.0'} built by \`deploy/local/watchman.sh install\` outside the repository (docs/screening.md says how), on loopback, default settings.`,
    '',
    `Queries: the perturbation suite (seed ${report.seed}) restricted to cases drawn from OFAC SDN and UN names (${report.cases}), each with its entry's type (Watchman requires one: person or business); negatives: the first ${report.negatives} of negatives_global.csv as persons, by name only like the perturbation queries (the evaluation's 0.08 % also uses their dates of birth and nationalities, which lower most of these scores). Recall = the own entry scores at least the threshold. Comparable thresholds: ours at its default 0.86; Watchman at ${watchmanAt}, the lowest threshold of ${THRESHOLDS.join(', ')} whose negative alert rate is at most ours (${pct(ourRate)}).`,
    '',
    `| Kind | Cases | Ours at 0.86 (typed) | Ours at 0.86 (untyped) | Watchman at ${watchmanAt} | Watchman at 0.86 |`,
    '|---|---|---|---|---|---|',
    ...result.ours.recall.map(
      (r) =>
        `| ${r.kind} | ${r.cases} | ${pct(o[r.kind])} | ${u ? pct(u[r.kind]) : ''} | ${pct(w[r.kind])} | ${pct(w86[r.kind])} |`,
    ),
    '',
    `Watchman's best overall recall at any threshold of the grid: ${pct(watchmanBest.recall)} at ${watchmanBest.threshold}.`,
    '',
    '| Threshold | Ours: negatives alerting | Watchman: negatives alerting | Ours: recall (all) | Watchman: recall (all) |',
    '|---|---|---|---|---|',
    ...THRESHOLDS.map(
      (t) =>
        `| ${t} | ${pct(result.ours.negativeAlertRate[t])} | ${pct(result.watchman.negativeAlertRate[t])} | ${pct(byKind('ours', t).all)} | ${pct(byKind('watchman', t).all)} |`,
    ),
    '',
    `| Queries/s over HTTP (${CONCURRENCY} in flight, keep-alive) | Ours | Watchman |`,
    '|---|---|---|',
    `| all requests | ${result.ours.queriesPerSecond} | ${result.watchman.queriesPerSecond} |`,
    `| perturbation queries | ${result.ours.positivesPerSecond} | ${result.watchman.positivesPerSecond} |`,
    `| negatives | ${result.ours.negativesPerSecond} | ${result.watchman.negativesPerSecond} |`,
    '',
  ].join('\n');
  writeFileSync(path.join(ROOT, 'reports/watchman-comparison.md'), md);
  console.log(md);
}

main().then(
  () => agent.destroy(),
  (err) => {
    agent.destroy();
    console.error(err);
    process.exit(1);
  },
);
