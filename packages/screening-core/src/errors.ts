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

/** A screening query cannot be evaluated (e.g. an empty name). */
export class ScreeningQueryInvalidError extends Error {
  readonly code = 'SCREENING_QUERY_INVALID';
  constructor(message: string) {
    super(message);
    this.name = 'ScreeningQueryInvalidError';
  }
}
