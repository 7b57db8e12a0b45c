import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ListFormatError } from '../errors';
import { loadOfacConsolidated, loadOfacSdn, loadOfacSdnWithStats, parseOfacRemarks } from './ofac';
import { resolveSharedDataDir } from './demo-lists';

const lists = path.join(resolveSharedDataDir(process.env), 'lists');
const AT = '2026-01-01T00:00:00.000Z';

describe('OFAC SDN loader on the published files', () => {
  const { snapshot, stats } = loadOfacSdnWithStats(
    { primary: path.join(lists, 'sdn.csv'), alt: path.join(lists, 'alt.csv') },
    AT,
  );

  it('reads every SDN entry with its type', () => {
    expect(snapshot.entryCount).toBe(14965);
    const byType = (t: string) => snapshot.entries.filter((e) => e.entityType === t).length;
    expect(byType('INDIVIDUAL')).toBe(6854);
    expect(byType('ORGANIZATION')).toBe(6884);
    expect(byType('VESSEL')).toBe(851);
    expect(byType('AIRCRAFT')).toBe(376);
  });

  it('joins the aliases of known entries and ignores those of entries newer than sdn.csv', () => {
    expect(stats).toEqual({ aliasRows: 19486, aliasRowsJoined: 18018, aliasRowsIgnored: 1468 });
    const bnc = snapshot.entries.find((e) => e.id === '306')!;
    expect(bnc.names).toEqual(['BANCO NACIONAL DE CUBA', 'NATIONAL BANK OF CUBA']);
  });

  it('treats -0- as null and strips the trailing Ctrl-Z', () => {
    expect(snapshot.entries.some((e) => e.names.some((n) => n.includes('-0-') || n.includes('\x1a')))).toBe(
      false,
    );
    expect(snapshot.entries.every((e) => e.remarks !== '-0-' && e.programs?.includes('-0-') !== true)).toBe(
      true,
    );
    expect(snapshot.entries.find((e) => e.id === '36')!.remarks).toBeUndefined();
  });

  it('gives the same version for a path and the same bytes, and a different one when an input changes', () => {
    const fromBuffers = loadOfacSdn(
      { primary: readFileSync(path.join(lists, 'sdn.csv')), alt: readFileSync(path.join(lists, 'alt.csv')) },
      AT,
    );
    expect(fromBuffers.version).toBe(snapshot.version);
    const withoutAlt = loadOfacSdn({ primary: path.join(lists, 'sdn.csv') }, AT);
    expect(withoutAlt.version).not.toBe(snapshot.version);
  });
});

describe('OFAC consolidated loader', () => {
  it('reads the 442 non-SDN entries and joins all their aliases', () => {
    const cons = loadOfacConsolidated(
      { primary: path.join(lists, 'cons_prim.csv'), alt: path.join(lists, 'cons_alt.csv') },
      AT,
    );
    expect(cons.entryCount).toBe(442);
    expect(cons.entries.filter((e) => e.entityType === 'INDIVIDUAL')).toHaveLength(79);
    expect(cons.entries.reduce((n, e) => n + e.names.length - 1, 0)).toBeGreaterThan(1000);
    expect(cons.source).toBe('OFAC_CONS');
  });
});

describe('OFAC remarks', () => {
  it('extracts dates of birth, nationality and identifiers', () => {
    const parsed = parseOfacRemarks(
      'DOB 07 Oct 1952; alt. DOB 1961 to 1963; POB Leningrad; nationality Russia; Passport 123456789 (Russia); IMO 9187629; Legal Entity Number 253400JT3MQWNDKMJE44.',
    );
    expect(parsed.birthDates).toEqual(['1952-10-07', '1961', '1963', '1962']);
    expect(parsed.countries).toEqual(['RU']);
    expect(parsed.identifiers).toEqual([
      { type: 'PASSPORT', value: '123456789' },
      { type: 'IMO', value: '9187629' },
      { type: 'LEI', value: '253400JT3MQWNDKMJE44' },
    ]);
  });
});

describe('malformed input', () => {
  it('is rejected with a ListFormatError', () => {
    expect(() => loadOfacSdn({ primary: Buffer.from('not,an,ofac\r\nfile\r\n') }, AT)).toThrow(
      ListFormatError,
    );
    expect(() => loadOfacSdn({ primary: path.join(lists, 'does-not-exist.csv') }, AT)).toThrow(
      ListFormatError,
    );
  });

  it('names the bad row by its number, not its content (sanctioned names stay out of the log)', () => {
    const good = `36,"AEROCARIBBEAN AIRLINES",-0- ,"CUBA"${',-0- '.repeat(8)}\r\n`;
    const file = `${good}"PUTIN, Vladimir",x\r\n`;
    expect(() => loadOfacSdn({ primary: Buffer.from(file) }, AT)).toThrow(/unexpected row 2: 2 columns/);
    expect(() => loadOfacSdn({ primary: Buffer.from(file) }, AT)).not.toThrow(/PUTIN|Vladimir/);
  });
});
