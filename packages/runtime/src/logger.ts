import pino, { type Logger } from 'pino';

export type { Logger };

/**
 * Personal data never reaches the logs: these paths are censored wherever they appear one or two
 * levels deep, as a safety net behind the rule that payloads are not logged at all.
 */
const PERSONAL_FIELDS = [
  'firstName',
  'lastName',
  'title',
  'tradingName',
  'nationalCode',
  'birthDate',
  'placeOfBirth',
  'contactDetails',
  'streetAddress',
  'addressDetails',
  'taxpayerNumber',
  'documentNumber',
];
const REDACT_PATHS = [
  'req.headers.authorization',
  'headers.authorization',
  'authorization',
  'token',
  ...PERSONAL_FIELDS,
  ...PERSONAL_FIELDS.map((f) => `*.${f}`),
  ...PERSONAL_FIELDS.map((f) => `*.*.${f}`),
  // `name` is pino's own field at the top level; deeper down it may be a person's name.
  '*.name',
  '*.*.name',
];

/**
 * Fields of driver errors that carry whole documents or replies: the MongoDB driver puts every failed
 * operation of a bulk write in `writeErrors[i].op` (a customer, a screening with names), and the server's
 * reply in `errorResponse` / `result`. Too deep for the redaction paths, so they are dropped from any
 * logged error; the count and codes of the write errors are kept.
 */
const ERROR_PAYLOAD_FIELDS = [
  'writeErrors',
  'op',
  'result',
  'errorResponse',
  'writeConcernError',
  'errInfo',
  'keyValue',
  'insertedIds',
  'raw',
  'field',
];

/**
 * pino's error serializer, without the payload fields above; a SyntaxError (JSON.parse of a message or a
 * file) loses its message too, which quotes the input ("Unexpected token J, ...\"name\":Jan Kow...").
 */
export function serializeError(err: unknown): unknown {
  if (!(err instanceof Error)) return err;
  const out = pino.stdSerializers.err(err) as unknown as Record<string, unknown>;
  const writeErrors = (err as { writeErrors?: unknown }).writeErrors;
  for (const field of ERROR_PAYLOAD_FIELDS) delete out[field];
  if (Array.isArray(writeErrors)) {
    out.writeErrorCount = writeErrors.length;
    out.writeErrorCodes = [...new Set(writeErrors.map((w: { code?: unknown }) => w?.code))];
  }
  // pino appends the messages and stacks of the causes: a SyntaxError anywhere in the chain is withheld.
  const chain: unknown[] = [];
  for (let e: unknown = err; e instanceof Error && chain.length < 10; e = (e as { cause?: unknown }).cause)
    chain.push(e);
  if (chain.some((e) => e instanceof SyntaxError)) {
    const position = chain
      .filter((e): e is SyntaxError => e instanceof SyntaxError)
      .map((e) => /position (\d+)/.exec(e.message)?.[1])
      .find((p) => p !== undefined);
    const withheld = `invalid syntax${position === undefined ? '' : ` near position ${position}`} (the parser's message quotes its input)`;
    out.message = err instanceof SyntaxError ? withheld : `${err.message}: ${withheld}`;
    // The frames of the outermost error only, without any message line.
    out.stack = (err.stack ?? '')
      .split('\n')
      .filter((line) => /^\s+at /.test(line))
      .join('\n');
    delete out.cause;
  }
  return out;
}

export function createLogger(service: string, level = 'info', destination?: pino.DestinationStream): Logger {
  return pino(
    {
      name: service,
      level,
      base: { service },
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      serializers: { err: serializeError },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  );
}
