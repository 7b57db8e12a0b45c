import { MessageUndecodableError, parseWireFormat } from './serde';

const wire = (payload: string, magic = 0) =>
  Buffer.concat([Buffer.from([magic, 0, 0, 0, 7]), Buffer.from(payload, 'utf8')]);

describe('the Confluent wire format, read without the registry', () => {
  it('reads the JSON object after the magic byte and the schema id', () => {
    expect(parseWireFormat(wire('{"a":"ÿ","n":1}'))).toEqual({ a: 'ÿ', n: 1 });
  });

  it.each([
    ['empty', Buffer.alloc(0)],
    ['only the header', wire('')],
    ['another magic byte', wire('{"a":1}', 1)],
    ['plain JSON without the header', Buffer.from('{"a":1}')],
    ['cut-off JSON', wire('{"a":')],
    ['an array', wire('[1]')],
    ['a string', wire('"x"')],
    ['null', wire('null')],
  ])('refuses %s with MESSAGE_UNDECODABLE', (_what, buffer) => {
    expect(() => parseWireFormat(buffer)).toThrow(MessageUndecodableError);
    try {
      parseWireFormat(buffer);
    } catch (err) {
      expect((err as MessageUndecodableError).code).toBe('MESSAGE_UNDECODABLE');
    }
  });
});
