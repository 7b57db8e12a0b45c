import { produceSlices, type EncodedMessage } from './produce-slices';

const msg = (key: string, bytes: number): EncodedMessage => ({
  key,
  value: Buffer.alloc(bytes),
  headers: { type: 'T' },
});

describe('produceSlices', () => {
  it('keeps everything in one call while it fits', () => {
    const slices = produceSlices(new Map([['a', [msg('1', 100), msg('2', 100)]]]), 10_000);
    expect(slices).toHaveLength(1);
    expect(slices[0]![0]!.messages.map((m) => m.key)).toEqual(['1', '2']);
  });

  it('splits by bytes, in order, with no call above the bound', () => {
    const messages = Array.from({ length: 10 }, (_, i) => msg(String(i), 1000));
    const slices = produceSlices(new Map([['a', messages]]), 3500);
    expect(slices.map((s) => s[0]!.messages.map((m) => m.key))).toEqual([
      ['0', '1', '2'],
      ['3', '4', '5'],
      ['6', '7', '8'],
      ['9'],
    ]);
  });

  it('sends a message larger than the bound alone', () => {
    const slices = produceSlices(
      new Map([['a', [msg('small', 10), msg('big', 5000), msg('after', 10)]]]),
      1000,
    );
    expect(slices.map((s) => s[0]!.messages.map((m) => m.key))).toEqual([['small'], ['big'], ['after']]);
  });

  it('keeps topics apart within a call and the order of each topic across calls', () => {
    const slices = produceSlices(
      new Map([
        ['a', [msg('a1', 1000), msg('a2', 1000)]],
        ['b', [msg('b1', 1000), msg('b2', 1000)]],
      ]),
      2500,
    );
    expect(slices.map((s) => s.map((t) => `${t.topic}:${t.messages.map((m) => m.key).join(',')}`))).toEqual([
      ['a:a1,a2'],
      ['b:b1,b2'],
    ]);
  });

  it('returns no call for no messages', () => {
    expect(produceSlices(new Map())).toEqual([]);
  });
});
