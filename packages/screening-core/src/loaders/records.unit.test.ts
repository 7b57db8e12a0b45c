import { ListFormatError } from '../errors';
import { loadAdverseMedia } from './adverse-media';
import { loadInternalList } from './records';

const AT = '2026-01-01T00:00:00.000Z';

describe('INTERNAL_LIST import', () => {
  it('reads CSV with a header and |-separated aliases', () => {
    const csv =
      'id,name,aliases,entityType,birthDate,country\nI-1,Jane Roe,J. Roe|Janet Roe,INDIVIDUAL,1980-02-03,Estonia\nI-2,Acme Widgets OU,,ORGANIZATION,,EE\n';
    const s = loadInternalList(Buffer.from(csv), AT);
    expect(s.list).toBe('INTERNAL_LIST');
    expect(s.entries[0]).toEqual({
      list: 'INTERNAL_LIST',
      source: 'INTERNAL',
      id: 'I-1',
      entityType: 'INDIVIDUAL',
      names: ['Jane Roe', 'J. Roe', 'Janet Roe'],
      birthDates: ['1980-02-03'],
      countries: ['EE'],
    });
    expect(s.entries[1]!.names).toEqual(['Acme Widgets OU']);
  });

  it('reads JSON lines', () => {
    const jsonl = '{"id":"I-9","name":"John Doe","aliases":["Johnny Doe"],"entityType":"INDIVIDUAL"}\n\n';
    const s = loadInternalList(Buffer.from(jsonl), AT);
    expect(s.entries.map((e) => e.names)).toEqual([['John Doe', 'Johnny Doe']]);
  });

  it('rejects records without a name, with an unknown entity type or a duplicate id', () => {
    expect(() => loadInternalList(Buffer.from('{"id":"1","entityType":"INDIVIDUAL"}'), AT)).toThrow(
      ListFormatError,
    );
    expect(() => loadInternalList(Buffer.from('{"id":"1","name":"X","entityType":"PERSON"}'), AT)).toThrow(
      /entityType/,
    );
    const dup =
      '{"id":"1","name":"X","entityType":"INDIVIDUAL"}\n{"id":"1","name":"Y","entityType":"INDIVIDUAL"}';
    expect(() => loadInternalList(Buffer.from(dup), AT)).toThrow(/duplicate/);
  });

  it("says where a file is malformed, never what it holds (the error reaches the service's log)", () => {
    const messageOf = (text: string) => {
      try {
        loadInternalList(Buffer.from(text), AT);
      } catch (err) {
        expect(err).toBeInstanceOf(ListFormatError);
        return (err as Error).message;
      }
      throw new Error('loaded');
    };
    // csv-parse quotes the field value, JSON.parse a piece of the input: both held a name.
    const csv = messageOf('id,name,entityType\n1,Jan "Johnny" Kowalski,INDIVIDUAL\n');
    expect(csv).toMatch(/invalid CSV: INVALID_OPENING_QUOTE at line 2/);
    expect(csv).not.toMatch(/Jan|Johnny|Kowalski/);
    const json = messageOf('[{"id":"1","name":Jan Kowalski}]');
    expect(json).toMatch(/invalid JSON/);
    expect(json).not.toMatch(/Jan|Kowalski/);
  });
});

describe('ADVERSE_MEDIA demo set', () => {
  it('loads behind the same record format and is marked as demo data', () => {
    const s = loadAdverseMedia(AT);
    expect(s.list).toBe('ADVERSE_MEDIA');
    expect(s.source).toBe('ADVERSE_MEDIA_DEMO');
    expect(s.entryCount).toBeGreaterThanOrEqual(10);
    expect(s.entries.every((e) => e.remarks?.startsWith('DEMO:'))).toBe(true);
  });
});
