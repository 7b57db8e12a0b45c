import { mergeSet } from './customer-fold';

/** `$set` semantics of applying each `$set` in turn to a document (the reference for mergeSet). */
function applySet(doc: Record<string, unknown>, set: Record<string, unknown>): void {
  for (const [path, value] of Object.entries(set)) {
    const parts = path.split('.');
    let at = doc;
    for (const p of parts.slice(0, -1)) {
      if (typeof at[p] !== 'object' || at[p] === null) at[p] = {};
      at = at[p] as Record<string, unknown>;
    }
    at[parts[parts.length - 1]!] = structuredClone(value);
  }
}

describe('mergeSet', () => {
  const cases: Record<string, unknown>[][] = [
    [
      { a: 1, b: 2 },
      { b: 3, c: 4 },
    ],
    [{ 'screening.SANCTIONS': { m: true } }, { 'screening.PEP': { m: false } }],
    [{ 'screening.SANCTIONS': { m: true } }, { screening: { PEP: 1 } }],
    [{ screening: { PEP: 1 } }, { 'screening.SANCTIONS': { m: true } }, { 'screening.PEP': 2 }],
    [{ 'a.b.c': 1 }, { 'a.b': { d: 2 } }, { 'a.b.e': 3 }, { a: 5 }, { 'a.x': 6 }],
  ];
  it.each(cases.map((c) => [JSON.stringify(c), c]))(
    'one merged $set equals the $sets in turn: %s',
    (_, sets) => {
      const base = { _id: 'x', screening: { OLD: true }, a: { keep: 1 } };
      const inTurn = structuredClone(base) as Record<string, unknown>;
      for (const s of sets) applySet(inTurn, s);
      const merged: Record<string, unknown> = {};
      for (const s of sets) mergeSet(merged, s);
      const keys = Object.keys(merged);
      // One $set must not hold a path and its prefix.
      expect(keys.some((k) => keys.some((g) => k !== g && k.startsWith(`${g}.`)))).toBe(false);
      const once = structuredClone(base) as Record<string, unknown>;
      applySet(once, merged);
      expect(once).toEqual(inTurn);
    },
  );

  it('never shares objects with the effects it merges', () => {
    const value = { m: true };
    const merged: Record<string, unknown> = {};
    mergeSet(merged, { screening: value });
    mergeSet(merged, { 'screening.PEP': 1 });
    expect(value).toEqual({ m: true });
  });
});
