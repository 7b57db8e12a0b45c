import { AuthForbiddenBusinessUnitError } from './errors/AuthForbiddenBusinessUnitError';
import { AuthForbiddenScopeError } from './errors/AuthForbiddenScopeError';
import type { Scope } from './scopes';

/**
 * Who is calling, as established by a verified access token. `businessUnits` is `'*'` only for
 * operator tokens that may act on every business unit.
 */
export interface Principal {
  readonly subject: string;
  readonly scopes: ReadonlySet<string>;
  readonly businessUnits: ReadonlySet<string> | '*';
  readonly tokenId?: string;
}

/** @throws AuthForbiddenScopeError when the principal lacks `scope`. */
export function requireScope(principal: Principal, scope: Scope): void {
  if (!principal.scopes.has(scope)) throw new AuthForbiddenScopeError(scope);
}

/** @throws AuthForbiddenBusinessUnitError when the principal may not act on `businessUnit`. */
export function requireBusinessUnit(principal: Principal, businessUnit: string): void {
  if (principal.businessUnits === '*') return;
  if (!principal.businessUnits.has(businessUnit)) throw new AuthForbiddenBusinessUnitError(businessUnit);
}

/**
 * The business units a read may cover: `'*'` for all, otherwise a sorted list ready for a query
 * filter such as `{ businessUnit: { $in: list } }`. An empty list means the principal sees nothing.
 */
export function allowedBusinessUnits(principal: Principal): '*' | readonly string[] {
  if (principal.businessUnits === '*') return '*';
  return [...principal.businessUnits].sort();
}
