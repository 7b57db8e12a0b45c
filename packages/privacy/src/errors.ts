import { CodedError } from '@crs/runtime';

/** The key-encryption key set (PRIVACY_KEK_FILE) is missing, unreadable or inconsistent. */
export class KekSetInvalidError extends CodedError {
  constructor(message: string) {
    super('KEK_SET_INVALID', message);
  }
}

/**
 * A stored data key is wrapped with a key-encryption key this process does not have, or its wrapping
 * does not authenticate. A configuration problem (an old KEK removed before the rotation finished), never
 * an erasure: erased keys are absent, not unreadable.
 */
export class DataKeyUnwrapError extends CodedError {
  constructor(kekId: string, reason: 'unknown-kek' | 'unauthenticated') {
    super(
      'DATA_KEY_UNWRAP_FAILED',
      reason === 'unknown-kek'
        ? `A data key is wrapped with key-encryption key ${kekId}, which is not in the key set`
        : `A data key wrapped with key-encryption key ${kekId} does not authenticate`,
      { kekId, reason },
    );
  }
}

/** A data key could not be created or read after concurrent erasures kept removing it. */
export class DataKeyUnavailableError extends CodedError {
  constructor() {
    super(
      'DATA_KEY_UNAVAILABLE',
      'The data key could not be created: it was erased concurrently, repeatedly',
    );
  }
}

/** A field path pattern handed to encryptFields is not of the form `a.b[].c`. */
export class FieldPathInvalidError extends CodedError {
  constructor(path: string) {
    super('FIELD_PATH_INVALID', `Invalid personal field path: ${JSON.stringify(path)}`);
  }
}
