/* eslint-disable no-console -- CLI entry: printing the figures is its job. */
import { writeFileSync } from 'node:fs';
import { loadAllDemoLists, resolveSharedDataDir } from '../loaders/demo-lists';
import { loadJapaneseTokenizer } from '../matching/japanese-tokenizer';
import { createNameReader } from '../matching/readings';
import { buildIndex } from '../screening-index';
import { screen } from '../screen';
import { DEFAULT_THRESHOLD, type ScreeningQuery } from '../screening-query';
import { readPersons } from './datasets';
import { generatePerturbations, RULE_CHANGED_KINDS } from './perturbations';
import { loadTransliterators } from './transliteration';

/**
 * The perturbation suite alone, quickly (no negatives, no benchmark): recall per kind at the default
 * threshold, typed and untyped, and with `--misses <file>` every miss (query, list name, own score) as
 * JSON lines, for working on the matcher. `node packages/screening-core/dist/eval/perturb.js`.
 * With `--negatives`, also the alerts among the 50,000 global negatives as `npm run eval:screening`
 * counts them (Japanese readings loaded, as there), listed in the misses file too.
 * The misses file holds list names: write it outside the repository.
 */
async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const missesAt = args.indexOf('--misses');
  const missesFile = missesAt >= 0 ? args[missesAt + 1] : undefined;
  const threshold = Number(process.env.THRESHOLD ?? DEFAULT_THRESHOLD);
  const dataDir = resolveSharedDataDir(process.env);
  const snapshots = loadAllDemoLists(dataDir, '1970-01-01T00:00:00.000Z');
  const negatives = args.includes('--negatives');
  const reader = negatives ? createNameReader(await loadJapaneseTokenizer()) : undefined;
  const index = buildIndex(snapshots, reader ? { reader } : {});
  const t = loadTransliterators(dataDir);
  const suites = {
    current: generatePerturbations(snapshots, t),
    firstRules: generatePerturbations(snapshots, t, { kinds: RULE_CHANGED_KINDS, firstRules: true }),
  };
  const misses: string[] = [];
  for (const [suite, cases] of Object.entries(suites)) {
    const rows = new Map<string, { cases: number; typed: number; untyped: number }>();
    for (const c of cases) {
      const own = (typed: boolean): number =>
        screen(index, typed ? { name: c.query, entityType: c.entityType } : { name: c.query }, {
          threshold: 0.5,
          limit: 1000,
        }).find((h) => h.source === c.source && h.entryId === c.entryId)?.score ?? 0;
      const typed = own(true);
      const untyped = own(false);
      const row = rows.get(c.kind) ?? { cases: 0, typed: 0, untyped: 0 };
      row.cases += 1;
      if (typed >= threshold) row.typed += 1;
      if (untyped >= threshold) row.untyped += 1;
      rows.set(c.kind, row);
      if (typed < threshold || untyped < threshold)
        misses.push(
          JSON.stringify({ suite, kind: c.kind, query: c.query, original: c.original, typed, untyped }),
        );
    }
    const all = [...rows.values()].reduce(
      (a, r) => ({ cases: a.cases + r.cases, typed: a.typed + r.typed, untyped: a.untyped + r.untyped }),
      { cases: 0, typed: 0, untyped: 0 },
    );
    console.log(`suite ${suite} (threshold ${threshold})`);
    console.table(
      [...rows.entries(), ['all', all] as const].map(([kind, r]) => ({
        kind,
        cases: r.cases,
        typed: (r.typed / r.cases).toFixed(4),
        untyped: (r.untyped / r.cases).toFixed(4),
      })),
    );
  }
  if (negatives) {
    let alerts = 0;
    for (const row of readPersons(dataDir, 'negatives_global.csv')) {
      const q: ScreeningQuery = { name: row.full_name, entityType: 'INDIVIDUAL' };
      if (row.date_of_birth) q.birthDate = row.date_of_birth;
      if (row.nationality) q.countries = [row.nationality];
      const top = screen(index, q, { threshold: 0.5, limit: 5 })[0];
      if (top && top.score >= threshold) {
        alerts += 1;
        misses.push(
          JSON.stringify({
            suite: 'negatives',
            query: row.full_name,
            matched: top.matchedName,
            score: top.score,
          }),
        );
      }
    }
    console.log(`negatives alerting: ${alerts}`);
  }
  if (missesFile) writeFileSync(missesFile, misses.join('\n') + '\n');
}

void main();
