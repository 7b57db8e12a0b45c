import type { ListEntry } from '../model';
import { diffSnapshots, entryContentHash, makeSnapshot } from './snapshot';

const entry = (id: string, names: string[], extra: Partial<ListEntry> = {}): ListEntry => ({
  list: 'SANCTIONS',
  source: 'TEST',
  id,
  entityType: 'INDIVIDUAL',
  names,
  ...extra,
});

describe('diffSnapshots', () => {
  it('reports added, changed and removed entry ids', () => {
    const prev = makeSnapshot(
      'SANCTIONS',
      'TEST',
      [Buffer.from('v1')],
      [entry('1', ['A B']), entry('2', ['C D']), entry('3', ['E F'])],
      't1',
    );
    const next = makeSnapshot(
      'SANCTIONS',
      'TEST',
      [Buffer.from('v2')],
      [entry('1', ['A B']), entry('2', ['C D', 'C. Dee']), entry('4', ['G H'])],
      't2',
    );
    expect(diffSnapshots(prev, next)).toEqual({ added: ['4'], changed: ['2'], removed: ['3'] });
    expect(prev.version).not.toBe(next.version);
  });

  it('sees no change when only the key order differs', () => {
    const a = entry('1', ['A B'], { birthDates: ['1970'], countries: ['US'] });
    const b: ListEntry = {
      countries: ['US'],
      birthDates: ['1970'],
      names: ['A B'],
      entityType: 'INDIVIDUAL',
      id: '1',
      source: 'TEST',
      list: 'SANCTIONS',
    };
    expect(entryContentHash(a)).toBe(entryContentHash(b));
    expect(
      diffSnapshots(
        makeSnapshot('SANCTIONS', 'TEST', [], [a], 't'),
        makeSnapshot('SANCTIONS', 'TEST', [], [b], 't'),
      ),
    ).toEqual({
      added: [],
      changed: [],
      removed: [],
    });
  });
});
