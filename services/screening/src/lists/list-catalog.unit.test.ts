import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createLogger, createMetricsRegistry } from '@crs/runtime';
import { ListCatalog } from './list-catalog';

/** The refresh path against real files (no servers): a corrupt source keeps its previous snapshot serving. */
describe('ListCatalog refresh', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'crs-lists-'));
  const listFile = path.join(dir, 'internal.json');
  const configFile = path.join(dir, 'lists.json');
  const records = (names: string[]) =>
    JSON.stringify(names.map((name, i) => ({ id: `I-${i + 1}`, name, entityType: 'INDIVIDUAL' })));
  let now = Date.parse('2026-01-01T00:00:00Z');
  const metrics = createMetricsRegistry('screening-test');
  const catalog = new ListCatalog({
    configFile,
    sharedDataDir: dir,
    logger: createLogger('test', 'silent'),
    metrics,
    clock: () => new Date(now),
  });

  beforeAll(() => {
    writeFileSync(listFile, records(['Ann Example', 'Bob Example']));
    writeFileSync(
      configFile,
      JSON.stringify({
        sources: [{ format: 'RECORDS', list: 'INTERNAL_LIST', source: 'INTERNAL', file: 'internal.json' }],
      }),
    );
  });

  it('loads, keeps serving through a corrupt file and an unreadable config, and reports new content with its diff', async () => {
    const [first] = await catalog.loadInitial();
    expect(first!.next).toMatchObject({ list: 'INTERNAL_LIST', source: 'INTERNAL', entryCount: 2 });
    const version = first!.next.version;
    expect(catalog.entryHash('INTERNAL', 'I-1')).toMatch(/^[0-9a-f]{64}$/);

    expect(await catalog.refresh()).toEqual([]);

    writeFileSync(listFile, '[{"id": "I-1", "name": ');
    now += 60_000;
    expect(await catalog.refresh()).toEqual([]);
    expect(catalog.current().map((s) => s.version)).toEqual([version]);
    expect(await catalog.failureCount()).toBe(1);
    const scraped = await metrics.getSingleMetricAsString('screening_list_snapshot_age_seconds');
    expect(scraped).toContain(
      'screening_list_snapshot_age_seconds{list="INTERNAL_LIST",source="INTERNAL",service="screening-test"} 60',
    );

    writeFileSync(configFile, 'not json');
    expect(await catalog.refresh()).toEqual([]);
    expect(await catalog.failureCount()).toBe(2);

    writeFileSync(
      configFile,
      JSON.stringify({
        sources: [{ format: 'RECORDS', list: 'INTERNAL_LIST', source: 'INTERNAL', file: 'internal.json' }],
      }),
    );
    writeFileSync(listFile, records(['Ann Example', 'Robert Example', 'Carl New']));
    const [change] = await catalog.refresh();
    expect(change!.previous!.version).toBe(version);
    expect(change!.diff).toEqual({ added: ['I-3'], changed: ['I-2'], removed: [] });
    expect(catalog.current()[0]!.entryCount).toBe(3);
  });
});
