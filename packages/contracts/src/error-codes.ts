/**
 * Flat error codes. A field-level code starts with one of these and continues with the dotted path of
 * the field and a problem (docs/error-codes.md), e.g. `V001.listRelatedEntity.listAddress.addressType.TOO_LONG`.
 */
export const ErrorCodes = {
  /** The record does not match its schema. */
  ValidationFailed: 'V001',
  /** The communicationNumber was already used in this business unit. */
  CommunicationNumberUsed: 'O001',
  /** CREATE of a customer that already exists. */
  CustomerAlreadyExists: 'C001',
  /** UPDATE of a customer that does not exist. */
  CustomerNotFound: 'C004',
  /** A simplified record cannot replace a full customer. */
  SimplifiedDowngrade: 'C005',
  /** A simplified customer cannot be risk-scored (manual override); import the full customer first. */
  CustomerNotScorable: 'C006',
  /** The customerStatus change is not an allowed transition. */
  InvalidStatusTransition: 'C010',
  UnknownCountry: 'K001',
  UnknownCurrency: 'K002',
  UnknownAddressType: 'K003',
  UnknownPaymentPurposeType: 'K004',
  UnknownSourceOfWealth: 'K005',
  UnknownRiskManagementCategory: 'K006',
  AuthMissingToken: 'AUTH_MISSING_TOKEN',
  AuthInvalidToken: 'AUTH_INVALID_TOKEN',
  AuthForbiddenScope: 'AUTH_FORBIDDEN_SCOPE',
  AuthForbiddenBusinessUnit: 'AUTH_FORBIDDEN_BUSINESS_UNIT',
  /** The token verification keys (JWKS) cannot be fetched: our failure, so 503, not 401. */
  AuthKeysUnavailable: 'AUTH_KEYS_UNAVAILABLE',
  BatchTooLarge: 'BATCH_TOO_LARGE',
  PayloadTooLarge: 'PAYLOAD_TOO_LARGE',
  /** The request line (the URL) and headers are over Node's limit (16 KiB): refused before any route. */
  RequestHeadersTooLarge: 'REQUEST_HEADERS_TOO_LARGE',
  /** Not an HTTP/1.1 request Node's parser accepts (a bad request line, header or chunk): refused before any route. */
  MalformedRequest: 'MALFORMED_REQUEST',
  /** The request's headers or body did not arrive within the server's timeouts. */
  RequestTimeout: 'REQUEST_TIMEOUT',
  UnsupportedMediaType: 'UNSUPPORTED_MEDIA_TYPE',
  MalformedJson: 'MALFORMED_JSON',
  ServiceUnavailable: 'SERVICE_UNAVAILABLE',
  NotFound: 'NOT_FOUND',
  /** A screening decision names a hit the customer's last screening of that list did not produce. */
  ScreeningHitNotFound: 'SCREENING_HIT_NOT_FOUND',
  InternalError: 'INTERNAL_ERROR',
  /** docs/privacy.md: an erasure while the relationship is open or its retention period runs. */
  RetentionHold: 'RETENTION_HOLD',
  /** docs/privacy.md: a record encrypted with a key erased meanwhile (a cached key): send it again. */
  PersonalDataKeyErased: 'PERSONAL_DATA_KEY_ERASED',
} as const;
export type ErrorCode = (typeof ErrorCodes)[keyof typeof ErrorCodes];

/** The last segment of a field-level code: what is wrong with the field. */
export const FieldProblems = {
  Required: 'REQUIRED',
  UnknownField: 'UNKNOWN_FIELD',
  NotAllowedForIndividual: 'NOT_ALLOWED_FOR_INDIVIDUAL',
  NotAllowedForOrganization: 'NOT_ALLOWED_FOR_ORGANIZATION',
  NotAllowedUnlessClosed: 'NOT_ALLOWED_UNLESS_CLOSED',
  NotAllowedWithEvaluate: 'NOT_ALLOWED_WITH_EVALUATE',
  NotAllowedInBatch: 'NOT_ALLOWED_IN_BATCH',
  NotAllowed: 'NOT_ALLOWED',
  InvalidType: 'INVALID_TYPE',
  InvalidValue: 'INVALID_VALUE',
  InvalidDate: 'INVALID_DATE',
  InvalidFormat: 'INVALID_FORMAT',
  InvalidNumber: 'INVALID_NUMBER',
  ForbiddenCharacter: 'FORBIDDEN_CHARACTER',
  TooLong: 'TOO_LONG',
  TooShort: 'TOO_SHORT',
  OutOfRange: 'OUT_OF_RANGE',
  TooManyItems: 'TOO_MANY_ITEMS',
  TooFewItems: 'TOO_FEW_ITEMS',
  DuplicateItem: 'DUPLICATE_ITEM',
  UnknownCode: 'UNKNOWN_CODE',
} as const;
export type FieldProblem = (typeof FieldProblems)[keyof typeof FieldProblems];
