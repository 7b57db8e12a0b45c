import path from 'node:path';
import { resolveSharedDataDir } from './demo-lists';
import { loadSenzingJsonLines } from './senzing';

const file = path.join(resolveSharedDataDir(process.env), 'lists', 'us_congress_senzing.json');

describe('Senzing JSON lines PEP loader', () => {
  const snapshot = loadSenzingJsonLines(file, '2026-01-01T00:00:00.000Z');

  it('reads the 1,317 PEP persons', () => {
    expect(snapshot.entryCount).toBe(1317);
    expect(snapshot.list).toBe('PEP');
    expect(snapshot.entries.every((e) => e.entityType === 'INDIVIDUAL')).toBe(true);
  });

  it('keeps name, birth year and nationality', () => {
    const e = snapshot.entries.find((x) => x.id === 'NK-AQ4HymsADSK2D63MkyTqfC')!;
    expect(e.names).toEqual(['Jennifer L. McClellan']);
    expect(e.birthDates).toEqual(['1972']);
    expect(e.countries).toEqual(['US']);
  });

  it('keeps only records with the requested risk topic', () => {
    const line = (id: string, topic: string) =>
      JSON.stringify({
        RECORD_ID: id,
        RECORD_TYPE: 'PERSON',
        NAMES: [{ NAME_TYPE: 'PRIMARY', NAME_FULL: 'A B' }],
        RISKS: [{ TOPIC: topic }],
      });
    const input = Buffer.from(`${line('1', 'role.pep')}\n${line('2', 'sanction')}\n`);
    expect(loadSenzingJsonLines(input, 'x').entries.map((e) => e.id)).toEqual(['1']);
    expect(loadSenzingJsonLines(input, 'x', { topic: null }).entryCount).toBe(2);
  });
});
