import { ErrorCodes } from '@crs/contracts/types';

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
    super(ErrorCodes.CustomerAlreadyExists, 'Customer already exists: use action UPDATE', 'action');
  }
}

export class CustomerNotFoundError extends CustomerCommandRejectedError {
  constructor() {
    super(
      ErrorCodes.CustomerNotFound,
      'Customer does not exist: UPDATE needs an existing customer',
      'customerExtId',
    );
  }
}

export class CustomerDowngradeError extends CustomerCommandRejectedError {
  constructor() {
    super(
      ErrorCodes.SimplifiedDowngrade,
      'A full customer cannot be replaced by a simplified customer',
      'customerExtId',
    );
  }
}

export class CustomerStatusTransitionError extends CustomerCommandRejectedError {
  constructor(from: string, to: string) {
    super(
      ErrorCodes.InvalidStatusTransition,
      `customerStatus cannot change from ${from} to ${to}`,
      'customerStatus',
    );
  }
}

export class CustomerNotScorableError extends CustomerCommandRejectedError {
  constructor() {
    super(
      ErrorCodes.CustomerNotScorable,
      'A simplified customer cannot be risk-scored; import the full customer first',
      'customerExtId',
    );
  }
}

/** docs/privacy.md: personal data stays while the relationship is open or its retention period runs. */
export class RetentionHoldError extends CustomerCommandRejectedError {
  constructor(holdUntil: string | null) {
    super(
      ErrorCodes.RetentionHold,
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
      ErrorCodes.PersonalDataKeyErased,
      'The record was encrypted with a key erased in the meantime: send it again with a new communicationNumber',
      'customerExtId',
    );
  }
}
