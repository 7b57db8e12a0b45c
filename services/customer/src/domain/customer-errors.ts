/** A business rule refused a command; the shell records it as a CustomerCommandRejected event. */
export class CustomerCommandRejectedError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly field?: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class CustomerAlreadyExistsError extends CustomerCommandRejectedError {
  constructor() {
    super('C001', 'Customer already exists: use action UPDATE', 'action');
  }
}

export class CustomerNotFoundError extends CustomerCommandRejectedError {
  constructor() {
    super('C004', 'Customer does not exist: UPDATE needs an existing customer', 'customerExtId');
  }
}

export class CustomerDowngradeError extends CustomerCommandRejectedError {
  constructor() {
    super('C005', 'A full customer cannot be replaced by a simplified customer', 'customerExtId');
  }
}

export class CustomerStatusTransitionError extends CustomerCommandRejectedError {
  constructor(from: string, to: string) {
    super('C010', `customerStatus cannot change from ${from} to ${to}`, 'customerStatus');
  }
}

export class CustomerNotScorableError extends CustomerCommandRejectedError {
  constructor() {
    super(
      'C006',
      'A simplified customer cannot be risk-scored; import the full customer first',
      'customerExtId',
    );
  }
}

/** docs/privacy.md: personal data stays while the relationship is open or its retention period runs. */
export class RetentionHoldError extends CustomerCommandRejectedError {
  constructor(holdUntil: string | null) {
    super(
      'RETENTION_HOLD',
      holdUntil
        ? `A retention hold applies until ${holdUntil}: personal data cannot be erased before then without an override`
        : 'A retention hold applies while the business relationship is open: personal data cannot be erased without an override',
      'customerExtId',
    );
  }
}

/**
 * docs/privacy.md: the record arrived encrypted with the key generation an erasure took (an ingress had
 * it cached). Stored, it would read as erased at once; refused instead, so the client sends it again.
 */
export class PersonalDataKeyErasedError extends CustomerCommandRejectedError {
  constructor() {
    super(
      'PERSONAL_DATA_KEY_ERASED',
      'The record was encrypted with a key erased in the meantime: send it again with a new communicationNumber',
      'customerExtId',
    );
  }
}
