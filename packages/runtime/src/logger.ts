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

export function createLogger(service: string, level = 'info', destination?: pino.DestinationStream): Logger {
  return pino(
    {
      name: service,
      level,
      base: { service },
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  );
}
