/** A list file could not be read or does not have the publisher's format. */
export class ListFormatError extends Error {
  readonly code = 'LIST_FORMAT_INVALID';
  constructor(
    readonly source: string,
    message: string,
  ) {
    super(`${source}: ${message}`);
    this.name = 'ListFormatError';
  }
}

/**
 * What went wrong in a parser, without the text it quotes: csv-parse and JSON.parse put the offending
 * value in their messages, and list files hold people's names (the internal list is not public), while
 * a ListFormatError ends up in the service log. Codes, line numbers and positions only.
 */
export function describeParseError(err: unknown): string {
  const e = err as { code?: unknown; lines?: unknown; message?: unknown; name?: unknown };
  // csv-parse: a code (INVALID_OPENING_QUOTE ...) and the line; its message, `raw` and `field` quote the value.
  if (typeof e.code === 'string' && typeof e.lines === 'number') return `${e.code} at line ${e.lines}`;
  const message = typeof e.message === 'string' ? e.message : '';
  const position = /position (\d+)/.exec(message)?.[1] ?? /line (\d+)/i.exec(message)?.[1];
  const kind = typeof e.name === 'string' ? e.name : 'Error';
  return position === undefined
    ? kind
    : `${kind} near ${/position/.test(message) ? 'position' : 'line'} ${position}`;
}

/** A screening query cannot be evaluated (e.g. an empty name). */
export class ScreeningQueryInvalidError extends Error {
  readonly code = 'SCREENING_QUERY_INVALID';
  constructor(message: string) {
    super(message);
    this.name = 'ScreeningQueryInvalidError';
  }
}
