import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
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

/** A catalog of the config file `configFile` (its folder as the shared data), silent, now. */
function catalogOf(configFile: string, metricsName: string): ListCatalog {
  return new ListCatalog({
    configFile,
    sharedDataDir: path.dirname(configFile),
    logger: createLogger('test', 'silent'),
    metrics: createMetricsRegistry(metricsName),
    clock: () => new Date(),
  });
}

describe('ListCatalog over HTTP', () => {
  it('sends the credentials of a list URL as basic authentication', async () => {
    const server = createServer((req, res) => {
      const expected = `Basic ${Buffer.from('reader:s3cret').toString('base64')}`;
      if (req.headers.authorization !== expected) {
        res.writeHead(401).end();
        return;
      }
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify([{ id: 'I-1', name: 'Ann Example', entityType: 'INDIVIDUAL' }]));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const dir = mkdtempSync(path.join(tmpdir(), 'crs-lists-'));
      const configFile = path.join(dir, 'lists.json');
      const file = `http://reader:s3cret@127.0.0.1:${port}/internal.json`;
      writeFileSync(
        configFile,
        JSON.stringify({ sources: [{ format: 'RECORDS', list: 'INTERNAL_LIST', source: 'INTERNAL', file }] }),
      );
      const catalog = catalogOf(configFile, 'screening-test-http');
      const [loaded] = await catalog.loadInitial();
      expect(loaded!.next).toMatchObject({ list: 'INTERNAL_LIST', entryCount: 1 });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('ListCatalog errors', () => {
  it('never says the credentials or query of a list URL (a publisher key may be in them)', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'crs-lists-'));
    const configFile = path.join(dir, 'lists.json');
    // Port 9 (discard) on loopback: nothing listens, the read fails at once.
    const url = 'http://reader:s3cret@127.0.0.1:9/lists/internal.json?apikey=XYZ123';
    writeFileSync(
      configFile,
      JSON.stringify({
        sources: [{ format: 'RECORDS', list: 'INTERNAL_LIST', source: 'INTERNAL', file: url }],
      }),
    );
    const catalog = catalogOf(configFile, 'screening-test-errors');
    const err = (await catalog.loadInitial().catch((e: unknown) => e)) as Error;
    expect(err.message).toContain('http://127.0.0.1:9/lists/internal.json?…');
    expect(err.message).not.toMatch(/s3cret|reader|XYZ123/);

    // A config that is not JSON: the parser would quote the text around the error, here the key.
    writeFileSync(configFile, '{"sources": [{"format": "RECORDS", "file": https://svc:s3cr3tKey@x/y.json}]}');
    const broken = (await catalog.loadInitial().catch((e: unknown) => e)) as Error;
    expect(broken.message).toMatch(/lists config is not JSON: SyntaxError/);
    expect(broken.message).not.toMatch(/s3cr3tKey|svc/);
  });
});
