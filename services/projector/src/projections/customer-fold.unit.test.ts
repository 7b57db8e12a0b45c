import { mergeSet, setPath, setPathOwned } from './customer-fold';

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
    [{ a: { k: 1 } }, { 'a.b': { d: 2 } }, { 'a.b.c': 3 }, { 'a.b.d': 4 }],
  ];
  it.each(cases.map((c) => [JSON.stringify(c), c]))(
    'one merged $set equals the $sets in turn: %s',
    (_, sets) => {
      const base = { _id: 'x', screening: { OLD: true }, a: { keep: 1 } };
      const inTurn = structuredClone(base) as Record<string, unknown>;
      for (const s of sets) applySet(inTurn, s);
      const merged: Record<string, unknown> = {};
      const owned = new WeakSet<object>();
      for (const s of sets) mergeSet(merged, s, owned);
      const keys = Object.keys(merged);
      // One $set must not hold a path and its prefix.
      expect(keys.some((k) => keys.some((g) => k !== g && k.startsWith(`${g}.`)))).toBe(false);
      const once = structuredClone(base) as Record<string, unknown>;
      applySet(once, merged);
      expect(once).toEqual(inTurn);
    },
  );

  it('never changes the effects it merges, however deep a later path writes', () => {
    const value = { m: true };
    const merged: Record<string, unknown> = {};
    const owned = new WeakSet<object>();
    mergeSet(merged, { screening: value }, owned);
    mergeSet(merged, { 'screening.PEP': 1 }, owned);
    expect(value).toEqual({ m: true });
    expect(merged).toEqual({ screening: { m: true, PEP: 1 } });
    // A value placed inside a copy, then written into by a deeper path.
    const outer = { keep: 1 };
    const inner = { d: 2 };
    const deep: Record<string, unknown> = {};
    mergeSet(deep, { a: outer }, owned);
    mergeSet(deep, { 'a.b': inner }, owned);
    mergeSet(deep, { 'a.b.c': 3 }, owned);
    expect(outer).toEqual({ keep: 1 });
    expect(inner).toEqual({ d: 2 });
    expect(deep).toEqual({ a: { keep: 1, b: { d: 2, c: 3 } } });
  });

  it('shares the values no later path writes into (no copy of a whole record per event)', () => {
    const record = { firstName: 'crs:sealed:0', listAddress: [{ country: 'PL' }] };
    const merged: Record<string, unknown> = {};
    const owned = new WeakSet<object>();
    mergeSet(merged, { customer: record, version: 1 }, owned);
    mergeSet(merged, { 'screening.SANCTIONS': { matched: false }, version: 2 }, owned);
    expect(merged.customer).toBe(record);
  });
});

describe('setPathOwned (the replay fold, decision 0075)', () => {
  it('writes like setPath, and never into an object it does not own', () => {
    const owned = new WeakSet<object>();
    const doc: Record<string, unknown> = { _id: 'x' };
    owned.add(doc);
    const screening = { SANCTIONS: { matched: false } };
    const record = { firstName: 'crs:sealed:0' };
    setPathOwned(doc, 'screening', screening, owned);
    setPathOwned(doc, 'customer', record, owned);
    setPathOwned(doc, 'screening.PEP', { matched: true }, owned);
    setPathOwned(doc, 'screening.SANCTIONS.matched', true, owned);
    setPathOwned(doc, 'a.b.c', 1, owned);
    expect(doc).toEqual({
      _id: 'x',
      screening: { SANCTIONS: { matched: true }, PEP: { matched: true } },
      customer: { firstName: 'crs:sealed:0' },
      a: { b: { c: 1 } },
    });
    // The effects' objects are as they were; what no path wrote into is shared, not copied.
    expect(screening).toEqual({ SANCTIONS: { matched: false } });
    expect(doc.customer).toBe(record);
    // The same writes through setPath on a deep copy give the same document.
    const reference: Record<string, unknown> = { _id: 'x' };
    for (const [path, value] of [
      ['screening', { SANCTIONS: { matched: false } }],
      ['customer', { firstName: 'crs:sealed:0' }],
      ['screening.PEP', { matched: true }],
      ['screening.SANCTIONS.matched', true],
      ['a.b.c', 1],
    ] as const)
      setPath(reference, path, structuredClone(value));
    expect(doc).toEqual(reference);
  });
});
