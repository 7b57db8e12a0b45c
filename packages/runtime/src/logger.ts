import pino, { type Logger } from 'pino';
import { workerIndex } from './workers';

export type { Logger };

/**
 * Personal data never reaches the logs: these fields are censored wherever they appear at the top of a
 * log line or one or two levels below it (array indices count as a level), as a safety net behind the
 * rule that payloads are not logged at all. `name` is pino's own field at the top level; deeper down it
 * may be a person's name. Credentials (`authorization`, `token`) likewise.
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
const CENSORED_AT_ANY_LEVEL = new Set([...PERSONAL_FIELDS, 'authorization', 'token']);
const CENSOR = '[redacted]';
/** How deep below a line's top the fields are looked for: the top level is 1. */
const DEPTH = 3;

function censored(key: string, level: number): boolean {
  return CENSORED_AT_ANY_LEVEL.has(key) || (key === 'name' && level > 1);
}

/** Objects whose JSON is their own fields: plain objects, arrays and errors (not Dates, Buffers, ObjectIds). */
function walkable(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== 'object') return false;
  if (Array.isArray(v)) return true;
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null || (v instanceof Error && !('toJSON' in v));
}

/**
 * `obj` with the censored fields at `level` (its own keys) and below replaced by `[redacted]`; the object
 * itself when nothing is censored, copies only along the paths to what is. Why not pino's `redact`
 * option: pino 10 does it with @pinojs/redact, which took 35-76 µs per line with these 42 paths (26 of
 * them wildcards) against 5-8 µs for the line itself, about 5 % of the ingress's CPU per single import
 * for its audit line alone (docs/performance.md, "The twenty-first stop's run"). This walk costs about
 * a microsecond per line and censors the same fields at the same depths (logger.unit.test.ts).
 */
export function redactLogFields<T>(obj: T, level = 1): T {
  if (!walkable(obj)) return obj;
  const isArray = Array.isArray(obj);
  let out: Record<string, unknown> | unknown[] | undefined;
  for (const key of Object.keys(obj)) {
    const value = (obj as Record<string, unknown>)[key];
    let next = value;
    if (!isArray && value !== undefined && censored(key, level)) next = CENSOR;
    // The top level's `err` is an Error the serializer turns into fields first (then censored below).
    else if (level < DEPTH && !(level === 1 && key === 'err')) next = redactLogFields(value, level + 1);
    if (next !== value) {
      out ??= isArray ? [...(obj as unknown[])] : { ...(obj as Record<string, unknown>) };
      (out as Record<string, unknown>)[key] = next;
    }
  }
  return (out ?? obj) as T;
}

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
  const worker = workerIndex();
  const logger = pino(
    {
      name: service,
      level,
      // A worker of a pool (INGRESS_WORKERS) says which one; a single process logs as before.
      base: worker === undefined ? { service } : { service, worker },
      formatters: { log: (line) => redactLogFields(line) },
      // An error's fields sit one level below the line's top (pino's error object is not a plain one).
      serializers: { err: (err: unknown) => redactLogFields({ ...(serializeError(err) as object) }, 2) },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  );
  // pino applies no formatter to a child's bindings; a child is created from its parent's prototype, so
  // this wrapper censors the bindings of children and grandchildren alike.
  const child = logger.child as unknown as (
    this: Logger,
    bindings: pino.Bindings,
    options?: pino.ChildLoggerOptions,
  ) => Logger;
  logger.child = function (this: Logger, bindings: pino.Bindings, options?: pino.ChildLoggerOptions) {
    return child.call(this, redactLogFields(bindings), options);
  } as unknown as Logger['child'];
  return logger;
}
