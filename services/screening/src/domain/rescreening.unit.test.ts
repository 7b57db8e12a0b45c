import type { ScreeningHitData } from '@crs/contracts';
import { chunks, mergeRescreenedHits } from './rescreening';
import { sameMatches } from './suppression';

const hit = (source: string, entryId: string, score = 0.9): ScreeningHitData => ({
  list: 'SANCTIONS',
  source,
  entryId,
  matchedName: 'x',
  score,
  subject: 'CUSTOMER',
});

describe('ongoing screening', () => {
  it('drops hits on removed and changed entries of the refreshed source, adds fresh ones, keeps other sources', () => {
    const previous = [hit('UN', '1'), hit('UN', '2'), hit('UN', '3'), hit('OFAC_SDN', '2')];
    const merged = mergeRescreenedHits(previous, 'UN', { changed: ['2'], removed: ['3'] }, [
      hit('UN', '2', 0.95),
      hit('UN', '9', 0.88),
    ]);
    expect(merged.map((h) => `${h.source}:${h.entryId}:${h.score}`)).toEqual([
      'UN:2:0.95',
      'OFAC_SDN:2:0.9',
      'UN:1:0.9',
      'UN:9:0.88',
    ]);
    expect(sameMatches(previous, merged)).toBe(false);
  });

  it('a snapshot that changes nothing for the customer leaves the same matches (no result is emitted)', () => {
    const previous = [hit('UN', '1')];
    expect(sameMatches(previous, mergeRescreenedHits(previous, 'UN', { changed: [], removed: [] }, []))).toBe(
      true,
    );
    expect(
      sameMatches(
        previous,
        mergeRescreenedHits(previous, 'UN', { changed: ['1'], removed: [] }, [hit('UN', '1', 0.99)]),
      ),
    ).toBe(true);
  });

  it('works in bounded chunks', () => {
    expect(chunks([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
  });
});
