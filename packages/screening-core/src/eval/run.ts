/* eslint-disable no-console -- CLI entry: printing the figures is its job. */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT, resolveSharedDataDir } from '../loaders/demo-lists';
import { loadJapaneseTokenizer } from '../matching/japanese-tokenizer';
import { createNameReader } from '../matching/readings';
import { runBenchmark, type BenchmarkFigure } from './benchmark';
import { runEvaluation, type EvaluationReport } from './evaluate';

const TARGETS = { unTreatedRecall: 0.98, pepRecall: 0.99, negativeAlertRate: 0.005 };

function pct(n: number): string {
  return `${(n * 100).toFixed(2)} %`;
}

function markdown(r: EvaluationReport, bench: BenchmarkFigure[], generatedAt: string): string {
  const ok = (b: boolean) => (b ? 'met' : '**missed**');
  const lines = [
    '# Screening evaluation',
    '',
    `Generated ${generatedAt} by \`npm run eval:screening\` (packages/screening-core/src/eval/run.ts). Threshold: **${r.threshold}**.`,
    '',
    '| Measure | Value | Target |',
    '|---|---|---|',
    `| UN treated positives: own UN entry found (recall) | ${pct(r.unTreatedRecall)} of ${r.unRowsJoined} joined rows | >= 98 % (${ok(r.unTreatedRecall >= TARGETS.unTreatedRecall)}) |`,
    `| UN treated positives: any UN hit | ${pct(r.unTreatedAnyUnHitRecall)} of ${r.unRows} | |`,
    `| UN untreated (exact) positives: own entry found | ${pct(r.unUntreatedRecall)} | |`,
    `| US Congress PEPs: own entry found (recall) | ${pct(r.pepRecall)} of ${r.pepRowsJoined} joined rows | >= 99 % (${ok(r.pepRecall >= TARGETS.pepRecall)}) |`,
    `| US Congress PEPs: any PEP hit | ${pct(r.pepAnyHitRecall)} of ${r.pepRows} | |`,
    `| Global negatives raising any alert (all lists) | ${pct(r.negativeAlertRate)} (${r.negativeAlerts} of ${r.negativeRows}) | <= 0.5 % (${ok(r.negativeAlertRate <= TARGETS.negativeAlertRate)}) |`,
    `| US negatives raising a PEP alert | ${pct(r.negativeUsPepAlertRate)} of ${r.negativeUsRows} | |`,
    `| OFAC parity fixtures within 10 points | ${pct(r.ofacWithin10Share)} of ${r.ofacRows} (mean abs. diff ${r.ofacMeanAbsDiff}) | |`,
    `| Cross-script pairs reaching their min score | ${r.crossScriptPassMinScore} of ${r.crossScriptRows} | |`,
    `| Cross-script pairs reaching the threshold | ${r.crossScriptPassThreshold} of ${r.crossScriptRows} | |`,
    `| Putin spellings: pairs matching each other | ${pct(r.putinPairMatchShare)} | |`,
    `| Putin spellings matching "Vladimir Vladimirovich Putin" | ${r.putinNamesMatchingCanonical} of ${r.putinNames} | |`,
    '',
    'Negative alerts by source: ' +
      (Object.entries(r.negativeAlertsByList)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ') || 'none'),
    '',
    '## Threshold sweep',
    '',
    'Positives: joined UN treated rows + joined US Congress rows; negatives: the 50,000 global persons (a negative counts once if it raises any alert).',
    '',
    '| Threshold | UN treated recall | PEP recall | Negative alert rate | Precision | Recall | F1 |',
    '|---|---|---|---|---|---|---|',
    ...r.sweep.map(
      (p) =>
        `| ${p.threshold} | ${pct(p.unTreatedRecall)} | ${pct(p.pepRecall)} | ${pct(p.negativeAlertRate)} | ${p.precision} | ${p.recall} | ${p.f1} |`,
    ),
    '',
    '## Perturbation suite (generated from the lists)',
    '',
    `${r.perturbations.cases} cases, seed ${r.perturbations.seed} (packages/screening-core/src/eval/perturbations.ts): list names (sanctions and PEP, Latin script) altered one way each; recall = the own entry scores at least the threshold among hits against ALL lists, queried with the entry's type and without a type.`,
    '',
    '| Kind | Cases | Recall with type | Recall without type |',
    '|---|---|---|---|',
    ...r.perturbations.byKind.map(
      (k) => `| ${k.kind} | ${k.cases} | ${pct(k.recallTyped)} | ${pct(k.recallUntyped)} |`,
    ),
    `| **all** | ${r.perturbations.cases} | ${pct(r.perturbations.recallTyped)} | ${pct(r.perturbations.recallUntyped)} |`,
    '',
    "Rules of the suite (perturbations.ts, the edits in name-edits.ts): typos go into words of 4+ letters, and a word takes both of two typos only with 8+ letters (TYPO_MIN_LETTERS, TWO_TYPOS_SAME_WORD_MIN_LETTERS): one typo in a three-letter word usually makes another name. Middle names dropped and initials are drawn from names without titles and particles (around them the generator kept a particle instead of the family name: `AL Khaled` for `AL ATHARI, Khaled`). The same kinds under the suite's first rules (typos in any word of 3+ letters, both may hit one word; every name), for comparison:",
    '',
    '| Kind (first rule) | Cases | Recall with type | Recall without type |',
    '|---|---|---|---|',
    ...(r.perturbations.firstRules ?? []).map(
      (k) => `| ${k.kind} | ${k.cases} | ${pct(k.recallTyped)} | ${pct(k.recallUntyped)} |`,
    ),
    '',
    'Misses (searched without a type, up to 5 per kind):',
    '',
    ...r.perturbations.missExamples.map(
      (m) => `- ${m.kind}: "${m.query}" for "${m.original}" (own entry ${m.score})`,
    ),
    '',
    '## Cross-script pairs',
    '',
    '| Query | Expected | Min score | Our score |',
    '|---|---|---|---|',
    ...r.crossScriptDetails.map((d) => `| ${d.query} | ${d.expected} | ${d.minScore} | ${d.score} |`),
    '',
    '## Benchmark (one core)',
    '',
    '| Figure | Value | Unit |',
    '|---|---|---|',
    ...bench.map((b) => `| ${b.name} | ${b.value} | ${b.unit} |`),
    '',
    '## Missed positives (first 40)',
    '',
    ...r.falseNegativeExamples.map(
      (f) => `- ${f.set}: "${f.query}" -> "${f.expected}" (best ${f.bestScore})`,
    ),
    '',
    '## False positives (first 25)',
    '',
    ...r.falsePositiveExamples.map((f) => `- "${f.query}" -> ${f.source} "${f.matchedName}" (${f.score})`),
    '',
  ];
  return lines.join('\n');
}

async function main(): Promise<void> {
  const args = new Set(process.argv.slice(2));
  const dataDir = resolveSharedDataDir(process.env);
  const generatedAt = new Date().toISOString();
  const report = runEvaluation(dataDir, createNameReader(await loadJapaneseTokenizer()));
  const bench = args.has('--no-bench') ? [] : await runBenchmark({ dataDir });
  const outDir = path.join(REPO_ROOT, 'reports');
  mkdirSync(outDir, { recursive: true });
  writeFileSync(
    path.join(outDir, 'screening-eval.json'),
    JSON.stringify({ generatedAt, ...report, benchmark: bench }, null, 2) + '\n',
  );
  writeFileSync(path.join(outDir, 'screening-eval.md'), markdown(report, bench, generatedAt));
  const {
    crossScriptDetails: _c,
    perturbations,
    sweep,
    falseNegativeExamples: _f,
    falsePositiveExamples: _p,
    ...summary
  } = report;
  console.log(JSON.stringify(summary, null, 2));
  console.table(sweep);
  console.table(perturbations.byKind);
  if (bench.length) console.table(bench);
  const met =
    report.unTreatedRecall >= TARGETS.unTreatedRecall &&
    report.pepRecall >= TARGETS.pepRecall &&
    report.negativeAlertRate <= TARGETS.negativeAlertRate;
  console.log(met ? 'All targets met.' : 'Some targets missed.');
}

void main();
