#!/usr/bin/env node
// Prints the fault suite's summary from the per-scenario results (test/fault/support/results.ts) and
// exits non-zero on any loss, doubling, failed check or scenario that did not report.
//   node test/fault/summary.cjs <results-dir> <mode> [expected scenario names...]
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const [dir, mode, ...expected] = process.argv.slice(2);
const results = fs.existsSync(dir)
  ? fs
      .readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .map((f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')))
  : [];
const order = (name) => (expected.indexOf(name) === -1 ? 99 : expected.indexOf(name));
results.sort((a, b) => order(a.scenario) - order(b.scenario));

const sum = (f) => results.reduce((n, r) => n + f(r), 0);
const pad = (s, n) => String(s).padEnd(n);
const lines = [];
lines.push(`fault suite summary (${mode})`);
// Older result files (before screening and operations were checked) count as zero there.
for (const r of results) {
  r.screening ??= { customers: 0, results: 0, hits: 0, missing: 0, doubled: 0, wrong: 0 };
  r.operations ??= { sent: 0, archived: 0, httpRequests: 0, statuses: {}, lost: 0, doubled: 0, documents: 0 };
}
lines.push(
  `${pad('scenario', 18)}${pad('result', 7)}${pad('reqs', 6)}${pad('http', 7)}${pad('200', 6)}${pad('503', 6)}${pad('faults', 8)}${pad('lost', 6)}${pad('doubled', 9)}` +
    `${pad('callbacks', 11)}${pad('redeliv.', 10)}${pad('screened', 10)}${pad('hits', 6)}${pad('ops', 5)}${pad('archived', 10)}${pad('docs=replay', 13)}seconds`,
);
for (const r of results) {
  lines.push(
    pad(r.scenario, 18) +
      pad(r.passed ? 'PASS' : 'FAIL', 7) +
      pad(r.requests, 6) +
      pad(r.httpRequests, 7) +
      pad(r.statuses['200'] ?? 0, 6) +
      pad(r.statuses['503'] ?? 0, 6) +
      pad(r.faults.length, 8) +
      pad(r.lost, 6) +
      pad(r.doubled, 9) +
      pad(r.callbacks.distinct, 11) +
      pad(r.callbacks.redeliveredAfterCrashWindow, 10) +
      pad(r.screening.results, 10) +
      pad(r.screening.hits, 6) +
      pad(r.operations.sent, 5) +
      pad(r.operations.archived, 10) +
      pad(
        `${r.projectionDocuments}${r.projectionDifferences ? ` (${r.projectionDifferences} diff)` : ''}`,
        13,
      ) +
      r.seconds,
  );
}
const missing = expected.filter((name) => !results.some((r) => r.scenario === name));
lines.push(
  `cases ${results.length}, requests ${sum((r) => r.requests)} (${sum((r) => r.httpRequests)} HTTP), accepted ${sum((r) => r.accepted)}, ` +
    `503 ${sum((r) => r.statuses['503'] ?? 0)}, faults injected ${sum((r) => r.faults.length)}, ` +
    `lost ${sum((r) => r.lost)}, doubled ${sum((r) => r.doubled)}, callbacks redelivered in the crash window ${sum((r) => r.callbacks.redeliveredAfterCrashWindow)}`,
);
lines.push(
  `screening: ${sum((r) => r.screening.customers)} customers, ${sum((r) => r.screening.results)} results (one per requested list), ` +
    `known hits found ${sum((r) => r.screening.hits)}, missing ${sum((r) => r.screening.missing)}, doubled ${sum((r) => r.screening.doubled)}, wrong ${sum((r) => r.screening.wrong)}; ` +
    `operations: ${sum((r) => r.operations.sent)} sent (each twice), archived ${sum((r) => r.operations.archived)} (${sum((r) => r.operations.httpRequests)} HTTP), ` +
    `lost ${sum((r) => r.operations.lost)}, doubled ${sum((r) => r.operations.doubled)}, ${sum((r) => r.operations.documents)} documents equal to the log`,
);
for (const r of results) {
  if (r.faults.length) lines.push(`  ${r.scenario} faults: ${r.faults.join('; ')}`);
  if (r.projectionCounts)
    lines.push(
      `  ${r.scenario} replayed: ${Object.entries(r.projectionCounts)
        .map(([n, c]) => `${n} ${c}`)
        .join(', ')}`,
    );
  for (const p of r.problems) lines.push(`  ${r.scenario} PROBLEM: ${p}`);
}
for (const name of missing) lines.push(`  ${name}: no result (the scenario did not run to its end)`);
process.stdout.write(`${lines.join('\n')}\n`);
const failed =
  missing.length > 0 ||
  results.some(
    (r) =>
      !r.passed ||
      r.lost > 0 ||
      r.doubled > 0 ||
      r.screening.wrong > 0 ||
      r.operations.lost > 0 ||
      r.operations.doubled > 0,
  );
process.stdout.write(
  failed
    ? 'FAIL\n'
    : 'PASS: nothing acknowledged was lost, nothing happened twice, screening results are right, projections equal the replay\n',
);
process.exit(failed ? 1 : 0);
