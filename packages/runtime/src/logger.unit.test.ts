import { Writable } from 'node:stream';
import { createLogger } from './logger';

/** A logger writing to memory: what would reach the log, as text. */
function capture(): { logger: ReturnType<typeof createLogger>; text: () => string } {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  return { logger: createLogger('test', 'info', sink), text: () => lines.join('') };
}

/** The error JSON.parse throws for `text`. */
function syntaxError(text: string): unknown {
  try {
    JSON.parse(text);
  } catch (e) {
    return e;
  }
  throw new Error('parsed');
}

describe('logger', () => {
  it('drops the documents a MongoDB bulk-write error carries, keeping how many failed and why', () => {
    const { logger, text } = capture();
    // The driver's shape: every failed operation of an insertMany, with its whole document in `op`.
    const err = Object.assign(new Error('E11000 duplicate key error collection: crs.screenings'), {
      code: 11000,
      writeErrors: [
        { index: 0, code: 11000, op: { _id: 'e1', hits: [{ matchedName: 'PUTIN, Vladimir' }] } },
        { index: 1, code: 2, op: { _id: 'e2', firstName: 'Jan', nationalCode: '85010112345' } },
      ],
      result: { insertedIds: { 0: 'e1' } },
      errorResponse: { writeErrors: [{ op: { lastName: 'Kowalski' } }] },
    });
    logger.error({ err }, 'handler failed; retrying');
    const line = JSON.parse(text()) as { err: Record<string, unknown> };
    expect(text()).not.toMatch(/PUTIN|Jan|85010112345|Kowalski/);
    expect(line.err).toMatchObject({ code: 11000, writeErrorCount: 2, writeErrorCodes: [11000, 2] });
    expect(line.err.message).toMatch(/E11000/);
  });

  it("withholds a JSON syntax error's message, which quotes the input", () => {
    const { logger, text } = capture();
    logger.warn({ err: syntaxError('{"firstName":Jan Kowalski}') }, 'undecodable message skipped');
    expect(text()).not.toMatch(/Jan|Kowalski/);
    expect((JSON.parse(text()) as { err: { message: string } }).err.message).toMatch(/invalid syntax/);
  });

  it("withholds a syntax error's message wrapped as the cause of another error", () => {
    const { logger, text } = capture();
    const cause = syntaxError('{"file": https://svc:s3cr3tKey@lists.example/sdn.csv}');
    logger.error({ err: new Error('lists config unreadable', { cause }) }, 'refresh failed');
    expect(text()).not.toMatch(/s3cr3tKey|svc:/);
    expect((JSON.parse(text()) as { err: { message: string } }).err.message).toMatch(
      /^lists config unreadable: invalid syntax/,
    );
  });

  it('redacts personal fields and the authorization header', () => {
    const { logger, text } = capture();
    logger.info({
      customer: { firstName: 'Jan', birthDate: '1985-01-01' },
      headers: { authorization: 'Bearer x' },
    });
    expect(text()).not.toMatch(/Jan|1985|Bearer/);
  });

  it('censors personal fields at the top and one or two levels below it, array indices counting as a level', () => {
    const { logger, text } = capture();
    logger.info({
      nationalCode: '85010112345',
      customer: { lastName: 'Kowalski', name: 'Jan Kowalski' },
      batch: { items: { taxpayerNumber: 'PL123' } },
      customers: [{ birthDate: '1985-01-01' }],
      req: { headers: { authorization: 'Bearer abc' } },
      token: 'eyJ',
    });
    expect(text()).not.toMatch(/85010112345|Kowalski|PL123|1985|Bearer|eyJ/);
    const line = JSON.parse(text()) as Record<string, Record<string, unknown>>;
    expect(line.customer).toEqual({ lastName: '[redacted]', name: '[redacted]' });
    expect(line.customers).toEqual([{ birthDate: '[redacted]' }]);
    expect(line.nationalCode).toBe('[redacted]');
  });

  it('keeps what is not personal: the service name, other fields, dates, and fields deeper than two levels down', () => {
    const { logger, text } = capture();
    logger.info({
      route: '/core-ws-rest/customer',
      status: 200,
      at: new Date(0),
      a: { b: { c: { firstName: 'deep' } } },
    });
    const line = JSON.parse(text()) as Record<string, unknown>;
    expect(line).toMatchObject({
      name: 'test',
      service: 'test',
      route: '/core-ws-rest/customer',
      status: 200,
    });
    expect(line.at).toBe('1970-01-01T00:00:00.000Z');
    // As before (pino's *.*.field paths): the net reaches two levels below the top, no further.
    expect(line.a).toEqual({ b: { c: { firstName: 'deep' } } });
  });

  it("censors the fields of a logged error and a child logger's bindings, and never changes the caller's object", () => {
    const { logger, text } = capture();
    const logged = { customer: { firstName: 'Jan', id: 'c-1' } };
    const err = Object.assign(new Error('rejected'), { customer: { lastName: 'Kowalski' } });
    logger.child({ subject: { nationalCode: '85010112345' } }).warn({ ...logged, err }, 'rejected');
    expect(text()).not.toMatch(/Jan|Kowalski|85010112345/);
    const line = JSON.parse(text()) as { customer: unknown; err: { message: string } };
    expect(line.customer).toEqual({ firstName: '[redacted]', id: 'c-1' });
    expect(line.err.message).toBe('rejected');
    expect(logged.customer.firstName).toBe('Jan');
  });
});
