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
