import type { ScreeningHitData } from '@crs/contracts';
import { DecisionBook, applySuppression, matchKeys, type ScreeningDecision } from './suppression';
import { screenedNameHash } from '../screened-name-hash';

const STREAM = 'DEMO:C-1';
const hit = (entryId: string, queryTokens = ['ann', 'example'], subject = 'CUSTOMER'): ScreeningHitData => ({
  list: 'SANCTIONS',
  source: 'OFAC_SDN',
  entryId,
  matchedName: 'EXAMPLE, Ann',
  score: 0.97,
  subject,
  explanation: { queryTokens },
});
const decision = (over: Partial<ScreeningDecision> = {}): ScreeningDecision => ({
  streamId: STREAM,
  list: 'SANCTIONS',
  source: 'OFAC_SDN',
  entryId: '100',
  decision: 'FALSE_POSITIVE',
  subject: 'CUSTOMER',
  entryHash: 'h1',
  screenedNameHash: screenedNameHash(['ann', 'example']),
  ...over,
});
const hashes = (h: string) => () => h;

describe('suppression of decided hits', () => {
  it('a FALSE_POSITIVE suppresses the same customer and entry only; suppressed hits are no match', () => {
    const book = new DecisionBook();
    book.record(decision());
    const out = applySuppression(STREAM, [hit('100'), hit('200')], book, hashes('h1'), screenedNameHash);
    expect(out.map((h) => h.suppressed)).toEqual([true, undefined]);
    expect(matchKeys(out)).toEqual(['CUSTOMER|OFAC_SDN|200']);
    expect(
      applySuppression('DEMO:C-2', [hit('100')], book, hashes('h1'), screenedNameHash)[0]!.suppressed,
    ).toBeUndefined();
  });

  it('ends when the list entry changes or the screened name changes (word order does not count)', () => {
    const book = new DecisionBook();
    book.record(decision());
    expect(
      applySuppression(STREAM, [hit('100')], book, hashes('h2'), screenedNameHash)[0]!.suppressed,
    ).toBeUndefined();
    expect(
      applySuppression(STREAM, [hit('100', ['anna', 'example'])], book, hashes('h1'), screenedNameHash)[0]!
        .suppressed,
    ).toBeUndefined();
    expect(
      applySuppression(STREAM, [hit('100', ['example', 'ann'])], book, hashes('h1'), screenedNameHash)[0]!
        .suppressed,
    ).toBe(true);
  });

  it('a later CONFIRMED replaces the FALSE_POSITIVE and a stale suppressed flag is recomputed', () => {
    const book = new DecisionBook();
    book.record(decision());
    book.record(decision({ decision: 'CONFIRMED' }));
    const out = applySuppression(
      STREAM,
      [{ ...hit('100'), suppressed: true }],
      book,
      hashes('h1'),
      screenedNameHash,
    );
    expect(out[0]).not.toHaveProperty('suppressed');
  });
});
