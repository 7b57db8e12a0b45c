/** Realm announced in every `WWW-Authenticate` challenge (RFC 6750 section 3). */
export const AUTH_REALM = 'crs';

/**
 * Base of every error raised while authenticating or authorizing a request. The HTTP edge maps
 * it in one place: status `httpStatus`, header `WWW-Authenticate: <wwwAuthenticate>` when set.
 * Messages never contain the token or its claims.
 */
export abstract class AuthError extends Error {
  abstract readonly code: string;
  abstract readonly httpStatus: number;
  readonly wwwAuthenticate: string | undefined;

  protected constructor(message: string, wwwAuthenticate: string | undefined, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
    this.wwwAuthenticate = wwwAuthenticate;
  }
}

/** Builds an RFC 6750 challenge; values must already be free of `"` and `\`. */
export function bearerChallenge(params: Readonly<Record<string, string>> = {}): string {
  const parts = [`realm="${AUTH_REALM}"`, ...Object.entries(params).map(([k, v]) => `${k}="${v}"`)];
  return `Bearer ${parts.join(', ')}`;
}
