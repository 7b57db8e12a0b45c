import { MessageSerde } from './serde';

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

  it('accepts a backward-compatible evolution and refuses an incompatible one', async () => {
    await serde.register(subject, 'Probe', v1);
    const v2 = { ...v1, properties: { ...v1.properties, b: { type: 'integer' } } };
    await expect(serde.register(subject, 'Probe', v2)).resolves.toEqual(expect.any(Number));
    const broken = { ...v1, properties: { a: { type: 'integer' } } };
    await expect(serde.register(subject, 'Probe', broken)).rejects.toThrow(/ncompatible/);
  });
});
