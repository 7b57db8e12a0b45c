/** Why a callback signature was rejected. */
export type CallbackSignatureInvalidReason =
  | 'missing_header'
  | 'malformed'
  | 'unknown_key'
  | 'alg_not_allowed'
  | 'bad_signature'
  | 'timestamp_out_of_tolerance';

/** A received callback does not carry a valid signature for its id, timestamp and body. */
export class CallbackSignatureInvalidError extends Error {
  readonly code = 'CALLBACK_SIGNATURE_INVALID';
  readonly reason: CallbackSignatureInvalidReason;

  constructor(reason: CallbackSignatureInvalidReason, options?: ErrorOptions) {
    super(`Callback signature rejected: ${reason}`, options);
    this.name = 'CallbackSignatureInvalidError';
    this.reason = reason;
  }
}
