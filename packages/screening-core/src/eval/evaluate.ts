import path from 'node:path';
import { loadAllDemoLists } from '../loaders/demo-lists';
import { foldName } from '../matching/normalize';
import { KOREAN_READER, type NameReader } from '../matching/readings';
import type { ListEntry, ListSnapshot } from '../model';
import { buildIndex, type ScreeningIndex } from '../screening-index';
import { scoreEntry } from '../score';
import { screen } from '../screen';
import { DEFAULT_THRESHOLD, type ScreeningQuery } from '../screening-query';
import { readCsv, readLines, readPersons, type PersonRow } from './datasets';
import {
  generatePerturbations,
  PERTURBATION_KINDS,
  PERTURBATION_SEED,
  RULE_CHANGED_KINDS,
  type PerturbationCase,
} from './perturbations';
import { loadTransliterators } from './transliteration';

/** Thresholds of the precision/recall sweep. */
export const SWEEP_THRESHOLDS = [0.8, 0.82, 0.84, 0.85, 0.86, 0.88, 0.9, 0.92, 0.95] as const;
const FLOOR = Math.min(...SWEEP_THRESHOLDS);

export interface SweepPoint {
  threshold: number;
  unTreatedRecall: number;
  pepRecall: number;
  negativeAlertRate: number;
  precision: number;
  recall: number;
  f1: number;
}

export interface EvaluationReport {
  threshold: number;
  unTreatedRecall: number;
  unTreatedAnyUnHitRecall: number;
  unUntreatedRecall: number;
  unRowsJoined: number;
  unRows: number;
  pepRecall: number;
  pepAnyHitRecall: number;
  pepRowsJoined: number;
  pepRows: number;
  negativeAlertRate: number;
  negativeAlerts: number;
  negativeRows: number;
  negativeAlertsByList: Record<string, number>;
  negativeUsPepAlertRate: number;
  negativeUsRows: number;
  ofacWithin10Share: number;
  ofacMeanAbsDiff: number;
  ofacRows: number;
  crossScriptPassMinScore: number;
  crossScriptPassThreshold: number;
  crossScriptRows: number;
  crossScriptDetails: Array<{ query: string; expected: string; minScore: number; score: number }>;
  putinPairMatchShare: number;
  putinNamesMatchingCanonical: number;
  putinNames: number;
  sweep: SweepPoint[];
  perturbations: PerturbationReport;
  falseNegativeExamples: Array<{ set: string; query: string; expected: string; bestScore: number }>;
  falsePositiveExamples: Array<{ query: string; matchedName: string; source: string; score: number }>;
}

export interface PerturbationReport {
  seed: number;
  cases: number;
  /** Own entry found at the threshold, the query with the entry's type and without a type. */
  recallTyped: number;
  recallUntyped: number;
  byKind: KindRecall[];
  /**
   * The kinds whose rules changed ({@link RULE_CHANGED_KINDS}) under the suite's first rules (typos in
   * any word of 3+ letters, both of two in one word; every name for middle names and initials), kept to
   * compare with (perturbations.ts says why the rules changed).
   */
  firstRules?: KindRecall[];
  /** Up to 5 misses per kind (searched without a type), with the best score of the own entry. */
  missExamples: Array<{ kind: string; query: string; original: string; score: number }>;
}

export interface KindRecall {
  kind: string;
  cases: number;
  recallTyped: number;
  recallUntyped: number;
}

/** The generated perturbation suite (eval/perturbations.ts) against every list. */
export function evaluatePerturbations(
  index: ScreeningIndex,
  cases: readonly PerturbationCase[],
  threshold: number,
): PerturbationReport {
  const own = (c: PerturbationCase, typed: boolean): number => {
    const q: ScreeningQuery = typed ? { name: c.query, entityType: c.entityType } : { name: c.query };
    const hits = screen(index, q, { threshold: FLOOR, limit: 1000 });
    return hits.find((h) => h.source === c.source && h.entryId === c.entryId)?.score ?? 0;
  };
  const outcomes = cases.map((c) => ({ c, typed: own(c, true), untyped: own(c, false) }));
  const recall = (list: typeof outcomes, key: 'typed' | 'untyped') =>
    share(list.filter((o) => o[key] >= threshold).length, list.length);
  const missExamples: PerturbationReport['missExamples'] = [];
  for (const kind of PERTURBATION_KINDS) {
    for (const o of outcomes.filter((x) => x.c.kind === kind && x.untyped < threshold).slice(0, 5))
      missExamples.push({ kind, query: o.c.query, original: o.c.original, score: o.untyped });
  }
  return {
    seed: PERTURBATION_SEED,
    cases: cases.length,
    recallTyped: recall(outcomes, 'typed'),
    recallUntyped: recall(outcomes, 'untyped'),
    byKind: PERTURBATION_KINDS.map((kind) => {
      const of = outcomes.filter((o) => o.c.kind === kind);
      return {
        kind,
        cases: of.length,
        recallTyped: recall(of, 'typed'),
        recallUntyped: recall(of, 'untyped'),
      };
    }),
    missExamples,
  };
}

function queryOf(row: PersonRow): ScreeningQuery {
  const q: ScreeningQuery = { name: row.full_name, entityType: 'INDIVIDUAL' };
  if (row.date_of_birth) q.birthDate = row.date_of_birth;
  if (row.nationality) q.countries = [row.nationality];
  return q;
}

/** Entries of `snapshot` carrying a name that folds to the same words as `name`. */
function joinByName(
  entries: readonly ListEntry[],
  byName: Map<string, ListEntry[]>,
  row: PersonRow,
): ListEntry[] {
  const found = byName.get(foldName(row.full_name)) ?? [];
  if (found.length <= 1 || !row.date_of_birth) return found;
  const year = row.date_of_birth.slice(0, 4);
  const sameYear = found.filter((e) => e.birthDates?.some((d) => d.startsWith(year)));
  return sameYear.length > 0 ? sameYear : found;
}

function nameMap(entries: readonly ListEntry[]): Map<string, ListEntry[]> {
  const map = new Map<string, ListEntry[]>();
  for (const e of entries) {
    for (const n of e.names) {
      const k = foldName(n);
      const bucket = map.get(k) ?? [];
      if (!bucket.includes(e)) bucket.push(e);
      map.set(k, bucket);
    }
  }
  return map;
}

interface PositiveOutcome {
  joined: boolean;
  /** Best score of the expected entry (0 if below the floor or not found). */
  expectedScore: number;
  /** Best score of any hit. */
  anyScore: number;
  query: string;
  expected: string;
}

function positives(
  index: ScreeningIndex,
  entries: readonly ListEntry[],
  queryRows: PersonRow[],
  joinRows: PersonRow[],
): PositiveOutcome[] {
  const byName = nameMap(entries);
  return queryRows.map((row, i) => {
    const expected = joinByName(entries, byName, joinRows[i]!);
    const ids = new Set(expected.map((e) => e.id));
    const hits = screen(index, queryOf(row), { threshold: FLOOR, limit: 1000 });
    const own = hits.filter((h) => ids.has(h.entryId));
    return {
      joined: expected.length > 0,
      expectedScore: own[0]?.score ?? 0,
      anyScore: hits[0]?.score ?? 0,
      query: row.full_name,
      expected: expected[0]?.names[0] ?? '',
    };
  });
}

function share(n: number, d: number): number {
  return d === 0 ? 0 : Math.round((n / d) * 10000) / 10000;
}

function single(snapshots: ListSnapshot[], source: string): ListSnapshot {
  const s = snapshots.find((x) => x.source === source);
  if (!s) throw new Error(`no ${source} snapshot`);
  return s;
}

/**
 * Runs every labeled set in `<dataDir>/matching` against the lists in `<dataDir>/lists`, reading Han and
 * Hangul names with `reader` (pass one with a Japanese dictionary to measure what the service does).
 */
export function runEvaluation(
  dataDir: string,
  reader: NameReader = KOREAN_READER,
  threshold = DEFAULT_THRESHOLD,
): EvaluationReport {
  const snapshots = loadAllDemoLists(dataDir, '1970-01-01T00:00:00.000Z');
  const all = buildIndex(snapshots, { reader });
  const un = single(snapshots, 'UN');
  const pep = single(snapshots, 'US_CONGRESS_PEP');
  const unIndex = buildIndex([un], { reader });
  const pepIndex = buildIndex([pep], { reader });

  const untreated = readPersons(dataDir, 'positives_un_untreated.csv');
  const treated = readPersons(dataDir, 'positives_un_treated.csv');
  const unTreated = positives(unIndex, un.entries, treated, untreated);
  const unUntreated = positives(unIndex, un.entries, untreated, untreated);
  const pepRows = readPersons(dataDir, 'positives_us_congress_untreated.csv');
  const pepOut = positives(pepIndex, pep.entries, pepRows, pepRows);

  const negatives = readPersons(dataDir, 'negatives_global.csv');
  const negBest: number[] = [];
  const negativeAlertsByList: Record<string, number> = {};
  const falsePositiveExamples: EvaluationReport['falsePositiveExamples'] = [];
  for (const row of negatives) {
    const hits = screen(all, queryOf(row), { threshold: FLOOR, limit: 5 });
    negBest.push(hits[0]?.score ?? 0);
    const top = hits[0];
    if (top && top.score >= threshold) {
      negativeAlertsByList[top.source] = (negativeAlertsByList[top.source] ?? 0) + 1;
      if (falsePositiveExamples.length < 25) {
        falsePositiveExamples.push({
          query: row.full_name,
          matchedName: top.matchedName,
          source: top.source,
          score: top.score,
        });
      }
    }
  }
  const negativesUs = readPersons(dataDir, 'negatives_us.csv');
  const usAlerts = negativesUs.filter(
    (row) => screen(pepIndex, queryOf(row), { threshold, limit: 1 }).length > 0,
  ).length;

  const ofacRows = readCsv<{ query_name: string; result_name: string; ofac_score: string }>(
    path.join(dataDir, 'matching', 'nomenklatura', 'ofac_fixtures.csv'),
  );
  const pairScore = (a: string, b: string): number =>
    scoreEntry(
      { name: a },
      { list: 'SANCTIONS', source: 'EVAL', id: 'x', entityType: 'INDIVIDUAL', names: [b] },
      reader,
    )?.score ?? 0;
  const ofacDiffs = ofacRows.map((r) =>
    Math.abs(pairScore(r.query_name, r.result_name) * 100 - Number(r.ofac_score)),
  );

  const crossLines = readLines(path.join(dataDir, 'matching', 'watchman', 'cross_script_pairs.csv'));
  const crossScriptDetails = crossLines.map((line) => {
    const [query = '', expected = '', minScore = '0'] = line.split(',');
    return { query, expected, minScore: Number(minScore), score: pairScore(query, expected) };
  });

  const putin = readLines(path.join(dataDir, 'matching', 'nomenklatura', 'putin_names.txt'));
  let putinPairs = 0;
  let putinMatches = 0;
  for (let i = 0; i < putin.length; i += 1) {
    for (let j = i + 1; j < putin.length; j += 1) {
      putinPairs += 1;
      if (pairScore(putin[i]!, putin[j]!) >= threshold) putinMatches += 1;
    }
  }
  const putinNamesMatchingCanonical = putin.filter(
    (n) => pairScore(n, 'Vladimir Vladimirovich Putin') >= threshold,
  ).length;

  const transliterators = loadTransliterators(dataDir);
  const perturbations = evaluatePerturbations(
    all,
    generatePerturbations(snapshots, transliterators),
    threshold,
  );
  perturbations.firstRules = evaluatePerturbations(
    all,
    generatePerturbations(snapshots, transliterators, { kinds: RULE_CHANGED_KINDS, firstRules: true }),
    threshold,
  ).byKind.filter((k) => k.cases > 0);

  const unJoined = unTreated.filter((o) => o.joined);
  const pepJoined = pepOut.filter((o) => o.joined);
  const sweep: SweepPoint[] = [...new Set([...SWEEP_THRESHOLDS, threshold])]
    .sort((a, b) => a - b)
    .map((t) => {
      const tpUn = unJoined.filter((o) => o.expectedScore >= t).length;
      const tpPep = pepJoined.filter((o) => o.expectedScore >= t).length;
      const fp = negBest.filter((s) => s >= t).length;
      const tp = tpUn + tpPep;
      const positivesTotal = unJoined.length + pepJoined.length;
      const precision = share(tp, tp + fp);
      const recall = share(tp, positivesTotal);
      return {
        threshold: t,
        unTreatedRecall: share(tpUn, unJoined.length),
        pepRecall: share(tpPep, pepJoined.length),
        negativeAlertRate: share(fp, negBest.length),
        precision,
        recall,
        f1:
          precision + recall === 0
            ? 0
            : Math.round(((2 * precision * recall) / (precision + recall)) * 10000) / 10000,
      };
    });
  const at = sweep.find((p) => p.threshold === threshold)!;
  const falseNegativeExamples = [
    ...unTreated
      .filter((o) => o.joined && o.expectedScore < threshold)
      .map((o) => ({ set: 'un_treated', query: o.query, expected: o.expected, bestScore: o.expectedScore })),
    ...pepOut
      .filter((o) => o.joined && o.expectedScore < threshold)
      .map((o) => ({ set: 'us_congress', query: o.query, expected: o.expected, bestScore: o.expectedScore })),
  ].slice(0, 40);

  return {
    threshold,
    unTreatedRecall: at.unTreatedRecall,
    unTreatedAnyUnHitRecall: share(unTreated.filter((o) => o.anyScore >= threshold).length, unTreated.length),
    unUntreatedRecall: share(
      unUntreated.filter((o) => o.joined && o.expectedScore >= threshold).length,
      unJoined.length,
    ),
    unRowsJoined: unJoined.length,
    unRows: unTreated.length,
    pepRecall: at.pepRecall,
    pepAnyHitRecall: share(pepOut.filter((o) => o.anyScore >= threshold).length, pepOut.length),
    pepRowsJoined: pepJoined.length,
    pepRows: pepOut.length,
    negativeAlertRate: at.negativeAlertRate,
    negativeAlerts: negBest.filter((s) => s >= threshold).length,
    negativeRows: negBest.length,
    negativeAlertsByList,
    negativeUsPepAlertRate: share(usAlerts, negativesUs.length),
    negativeUsRows: negativesUs.length,
    ofacWithin10Share: share(ofacDiffs.filter((d) => d <= 10).length, ofacDiffs.length),
    ofacMeanAbsDiff: Math.round((ofacDiffs.reduce((a, b) => a + b, 0) / ofacDiffs.length) * 10) / 10,
    ofacRows: ofacRows.length,
    crossScriptPassMinScore: crossScriptDetails.filter((d) => d.score >= d.minScore).length,
    crossScriptPassThreshold: crossScriptDetails.filter((d) => d.score >= threshold).length,
    crossScriptRows: crossScriptDetails.length,
    crossScriptDetails,
    putinPairMatchShare: share(putinMatches, putinPairs),
    putinNamesMatchingCanonical,
    putinNames: putin.length,
    sweep,
    perturbations,
    falseNegativeExamples,
    falsePositiveExamples,
  };
}
