import fc from 'fast-check';
import { toJsonValue } from './json-value';

const roundTrip = (value: unknown): unknown => JSON.parse(JSON.stringify(value)) as unknown;

describe('toJsonValue: the JSON round trip without the text (decision 0075)', () => {
  it('gives what JSON.parse(JSON.stringify(value)) gives, for any value JSON can write', () => {
    fc.assert(
      fc.property(
        fc.anything({
          withBoxedValues: true,
          withDate: true,
          withMap: true,
          withSet: true,
          withNullPrototype: true,
          withSparseArray: true,
          withTypedArray: true,
          withObjectString: true,
        }),
        (value) => {
          expect(toJsonValue({ value })).toStrictEqual(roundTrip({ value }));
        },
      ),
      { seed: 20261128, numRuns: 2000 },
    );
  });

  it('follows JSON on the values an explanation can carry by mistake', () => {
    const input = {
      score: Number.NaN,
      weight: Infinity,
      zero: -0,
      missing: undefined,
      fn: () => 1,
      list: [undefined, Number.NaN, () => 1, Symbol('s'), 2, , 3], // eslint-disable-line no-sparse-arrays
      when: new Date('2026-11-28T12:00:00.000Z'),
      invalid: new Date('nope'),
      boxed: [new Number(1), new String('a'), new Boolean(false)],
      custom: { toJSON: (key: string) => `custom at ${key}` },
      nested: { inner: { map: new Map([[1, 2]]), set: new Set([1]) } },
      ['__proto__']: { polluted: true },
    };
    const out = toJsonValue(input);
    expect(out).toStrictEqual(roundTrip(input));
    expect(Object.keys(out)).toContain('__proto__');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    // The input is not changed.
    expect(input.list).toHaveLength(7);
  });

  it('throws as JSON does on a BigInt or a cycle', () => {
    expect(() => toJsonValue({ n: 1n })).toThrow(TypeError);
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = { back: cyclic };
    expect(() => toJsonValue(cyclic)).toThrow(TypeError);
    // The same object twice, not in a cycle, is written twice (as JSON does).
    const shared = { x: 1 };
    expect(toJsonValue({ a: shared, b: [shared] })).toStrictEqual({ a: { x: 1 }, b: [{ x: 1 }] });
  });
});
