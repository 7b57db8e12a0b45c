import { SchemaRegistry } from '@kafkajs/confluent-schema-registry';
import { MessageInvalidError, MessageSerde } from './serde';

/** Against the real registry (Apicurio locally, via its Confluent-compatible API). */
describe('message serde with the schema registry', () => {
  const serde = new MessageSerde({
    SCHEMA_REGISTRY_URL: process.env.SCHEMA_REGISTRY_URL!,
    SCHEMA_REGISTRY_USERNAME: '',
    SCHEMA_REGISTRY_PASSWORD: '',
  });
  const subject = `crs.test.Probe${process.pid}${Date.now()}`;
  const v1 = {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    title: 'Probe',
    type: 'object',
    required: ['a'],
    properties: { a: { type: 'string' } },
    additionalProperties: false,
  };

  afterAll(async () => {
    await fetch(`${process.env.SCHEMA_REGISTRY_URL}/subjects/${subject}`, { method: 'DELETE' });
  });

  it('encodes in the Confluent wire format, validating; decodes it with or without the registry', async () => {
    const id = await serde.register(subject, 'Probe', v1);
    const buf = await serde.encode('Probe', { a: 'x' });
    expect(buf[0]).toBe(0);
    expect(buf.readInt32BE(1)).toBe(id);
    expect(await serde.decode(buf)).toEqual({ a: 'x' });
    expect(await serde.decodeValidated(buf)).toEqual({ a: 'x' });
    // Validation is the producer's job (decision 0013); a consumer still refuses what is not the wire format.
    const off = Buffer.concat([buf.subarray(0, 5), Buffer.from(JSON.stringify({ a: 1 }))]);
    expect(await serde.decode(off)).toEqual({ a: 1 });
    await expect(serde.decodeValidated(off)).rejects.toThrow();
    await expect(serde.decode(Buffer.from('{"a":"x"}'))).rejects.toMatchObject({
      code: 'MESSAGE_UNDECODABLE',
    });
    await expect(serde.encode('Probe', { a: 1 })).rejects.toThrow();
    await expect(serde.encode('Probe', { a: 'x', extra: true })).rejects.toThrow();
  });

  it('writes the bytes the registry client writes, in one buffer (decision 0085)', async () => {
    const id = await serde.register(subject, 'Probe', v1);
    const client = new SchemaRegistry({ host: process.env.SCHEMA_REGISTRY_URL!.replace(/\/$/, '') });
    // Multi-byte text (2, 3 and 4 bytes in UTF-8, a lone surrogate), escapes, long and empty strings.
    for (const a of [
      '',
      'x',
      'Šarūnas Øresund',
      '東京都',
      '😀 emoji',
      '\ud800 lone',
      '"q" \\ \n',
      'é'.repeat(5000),
    ]) {
      const ours = serde.encodeNow('Probe', { a });
      expect(ours.equals(await client.encode(id, { a }))).toBe(true);
      expect(await serde.decode(ours)).toEqual({ a: JSON.parse(JSON.stringify(a)) });
    }
  });

  it('refuses a payload its schema refuses with MESSAGE_INVALID and the paths, and an unregistered type', async () => {
    await serde.register(subject, 'Probe', v1);
    let caught: unknown;
    try {
      serde.encodeNow('Probe', { a: 1 });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(MessageInvalidError);
    expect(caught).toMatchObject({ code: 'MESSAGE_INVALID', type: 'Probe', paths: ['/a'] });
    // The value itself is not in the message (it may be personal data).
    expect(() => serde.encodeNow('Probe', { a: 'x', secret: 'Jane Doe' })).toThrow(/Probe .* at \//);
    expect(() => serde.encodeNow('Probe', { a: 'x', secret: 'Jane Doe' })).not.toThrow(/Jane/);
    expect(() => serde.encodeNow('Unknown', { a: 'x' })).toThrow(/no schema registered/);
  });

  it('accepts a backward-compatible evolution and refuses an incompatible one', async () => {
    await serde.register(subject, 'Probe', v1);
    const v2 = { ...v1, properties: { ...v1.properties, b: { type: 'integer' } } };
    await expect(serde.register(subject, 'Probe', v2)).resolves.toEqual(expect.any(Number));
    const broken = { ...v1, properties: { a: { type: 'integer' } } };
    await expect(serde.register(subject, 'Probe', broken)).rejects.toThrow(/ncompatible/);
  });
});
