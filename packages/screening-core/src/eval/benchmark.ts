import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { loadAllDemoLists } from '../loaders/demo-lists';
import { loadJapaneseTokenizer } from '../matching/japanese-tokenizer';
import { createNameReader } from '../matching/readings';
import { buildIndex } from '../screening-index';
import { screen } from '../screen';
import type { ScreeningQuery } from '../screening-query';
import { readLines, readPersons } from './datasets';

export interface BenchmarkFigure {
  name: string;
  value: number;
  unit: string;
}

export interface BenchmarkOptions {
  dataDir: string;
  /** Number of timed screenings (default 5,000). */
  queries?: number;
  loadedAt?: string;
}

/**
 * Heap in use after a full collection when node runs with --expose-gc (`npm run bench` and
 * `npm run eval:screening` do): without it, garbage left by the previous step makes the differences
 * meaningless, even negative.
 */
function heapMb(withBuffers = false): number {
  (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  return Math.round(((m.heapUsed + (withBuffers ? m.arrayBuffers : 0)) / 1024 / 1024) * 10) / 10;
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

/**
 * Loads every list, builds the index and times person screenings on this (single) thread over
 * queries drawn from the negative (80 %) and positive (20 %) evaluation files.
 */
export async function runBenchmark(options: BenchmarkOptions): Promise<BenchmarkFigure[]> {
  const count = options.queries ?? 5000;
  const loadedAt = options.loadedAt ?? '1970-01-01T00:00:00.000Z';
  const heapBefore = heapMb();
  let t0 = performance.now();
  const snapshots = loadAllDemoLists(options.dataDir, loadedAt);
  const loadMs = performance.now() - t0;
  const heapAfterLoad = heapMb();
  // The dictionary lives mostly in array buffers, outside the JS heap: counted with them.
  const memoryBeforeJapanese = heapMb(true);
  t0 = performance.now();
  const japanese = await loadJapaneseTokenizer();
  const japaneseMs = performance.now() - t0;
  const japaneseMb = heapMb(true) - memoryBeforeJapanese;
  const heapAfterJapanese = heapMb();
  t0 = performance.now();
  const index = buildIndex(snapshots, { reader: createNameReader(japanese) });
  const indexMs = performance.now() - t0;
  const heapAfterIndex = heapMb();

  const negatives = readPersons(options.dataDir, 'negatives_global.csv');
  const positives = [
    ...readPersons(options.dataDir, 'positives_un_treated.csv'),
    ...readPersons(options.dataDir, 'positives_us_congress_untreated.csv'),
  ];
  const queries: ScreeningQuery[] = [];
  for (let i = 0; i < count; i += 1) {
    const row =
      i % 5 === 4 ? positives[(i * 7) % positives.length]! : negatives[(i * 13) % negatives.length]!;
    const q: ScreeningQuery = { name: row.full_name, entityType: 'INDIVIDUAL' };
    if (row.date_of_birth) q.birthDate = row.date_of_birth;
    if (row.nationality) q.countries = [row.nationality];
    queries.push(q);
  }
  for (const q of queries.slice(0, 200)) screen(index, q); // warm-up: JIT and the query token cache
  const latencies: number[] = [];
  // CPU time of each screening as well: on shared cores the wall-clock tail mostly measures waiting for
  // a core (a query preempted once waits a whole time slice); CPU time is the matcher's own cost.
  const cpu: number[] = [];
  let hits = 0;
  const start = performance.now();
  for (const q of queries) {
    const c = process.cpuUsage();
    const t = performance.now();
    hits += screen(index, q).length;
    latencies.push(performance.now() - t);
    const used = process.cpuUsage(c);
    cpu.push((used.user + used.system) / 1000);
  }
  const totalMs = performance.now() - start;
  // Names in Chinese characters or Hangul are screened once more per reading (Korean, Japanese).
  const cjk = readLines(path.join(options.dataDir, 'matching', 'watchman', 'cross_script_pairs.csv'))
    .map((line) => line.split(',')[0] ?? '')
    .filter((name) => index.reader(name).length > 0);
  const cjkCpu: number[] = [];
  for (let i = 0; i < 1000 && cjk.length > 0; i += 1) {
    const c = process.cpuUsage();
    screen(index, { name: cjk[i % cjk.length]!, entityType: 'INDIVIDUAL' });
    const used = process.cpuUsage(c);
    cjkCpu.push((used.user + used.system) / 1000);
  }
  cjkCpu.sort((a, b) => a - b);
  latencies.sort((a, b) => a - b);
  cpu.sort((a, b) => a - b);
  const r = (n: number, d = 2) => Math.round(n * 10 ** d) / 10 ** d;
  return [
    { name: 'lists.load', value: r(loadMs, 0), unit: 'ms' },
    { name: 'lists.entries', value: snapshots.reduce((a, s) => a + s.entryCount, 0), unit: 'entries' },
    { name: 'lists.heap', value: r(heapAfterLoad - heapBefore, 1), unit: 'MB' },
    { name: 'japanese_dictionary.load', value: r(japaneseMs, 0), unit: 'ms' },
    { name: 'japanese_dictionary.memory', value: r(japaneseMb, 1), unit: 'MB (heap and buffers)' },
    { name: 'index.build', value: r(indexMs, 0), unit: 'ms' },
    { name: 'index.names', value: index.names.length, unit: 'names' },
    { name: 'index.heap', value: r(heapAfterIndex - heapAfterJapanese, 1), unit: 'MB' },
    { name: 'screening.throughput', value: r((queries.length / totalMs) * 1000, 0), unit: 'screenings/s' },
    { name: 'screening.p50', value: r(percentile(latencies, 50), 3), unit: 'ms' },
    { name: 'screening.p99', value: r(percentile(latencies, 99), 3), unit: 'ms' },
    { name: 'screening.cpu_p50', value: r(percentile(cpu, 50), 3), unit: 'ms CPU' },
    { name: 'screening.cpu_p99', value: r(percentile(cpu, 99), 3), unit: 'ms CPU' },
    { name: 'screening.queries', value: queries.length, unit: 'queries' },
    { name: 'screening.han_hangul_cpu_p50', value: r(percentile(cjkCpu, 50), 3), unit: 'ms CPU' },
    { name: 'screening.han_hangul_cpu_p99', value: r(percentile(cjkCpu, 99), 3), unit: 'ms CPU' },
    { name: 'screening.hits', value: hits, unit: 'hits' },
  ];
}
