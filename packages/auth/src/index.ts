export { Scopes, ScopeDescriptions, isScope, type Scope } from './scopes';
export { requireScope, requireBusinessUnit, allowedBusinessUnits, type Principal } from './principal';
export {
  createTokenVerifier,
  DEFAULT_TOKEN_ALGORITHMS,
  type TokenVerifier,
  type TokenVerifierOptions,
} from './createTokenVerifier';
export { issueToken, type IssueTokenOptions } from './issueToken';
export { ensureLocalKeys, ensureCallbackKeys, type LocalKeyPair } from './keys/ensureLocalKeys';
export {
  signCallback,
  verifyCallback,
  callbackSigningInput,
  CallbackHeaders,
  DEFAULT_CALLBACK_TOLERANCE_SEC,
  type SignCallbackOptions,
  type VerifyCallbackOptions,
  type CallbackRequestHeaders,
} from './callback/callbackSignature';
export { AuthError, AUTH_REALM } from './errors/AuthError';
export { AuthMissingTokenError } from './errors/AuthMissingTokenError';
export { AuthInvalidTokenError, type AuthInvalidTokenReason } from './errors/AuthInvalidTokenError';
export { AuthForbiddenScopeError } from './errors/AuthForbiddenScopeError';
export { AuthForbiddenBusinessUnitError } from './errors/AuthForbiddenBusinessUnitError';
export { AuthKeysUnavailableError } from './errors/AuthKeysUnavailableError';
export { AuthConfigInvalidError } from './errors/AuthConfigInvalidError';
export {
  CallbackSignatureInvalidError,
  type CallbackSignatureInvalidReason,
} from './errors/CallbackSignatureInvalidError';
