import { AuthForbiddenBusinessUnitError } from './errors/AuthForbiddenBusinessUnitError';
import { AuthForbiddenScopeError } from './errors/AuthForbiddenScopeError';
import { allowedBusinessUnits, requireBusinessUnit, requireScope, type Principal } from './principal';
import { isScope, Scopes } from './scopes';

const clerk: Principal = {
  subject: 'clerk',
  scopes: new Set(['customers:read']),
  businessUnits: new Set(['BU2', 'BU1']),
};
const operator: Principal = { subject: 'operator', scopes: new Set(Scopes), businessUnits: '*' };

describe('requireScope', () => {
  it('passes when the scope was granted', () => {
    expect(() => requireScope(clerk, 'customers:read')).not.toThrow();
  });

  it('answers 403 insufficient_scope naming the missing scope', () => {
    let err: unknown;
    try {
      requireScope(clerk, 'customers:write');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(AuthForbiddenScopeError);
    expect(err).toMatchObject({
      code: 'AUTH_FORBIDDEN_SCOPE',
      httpStatus: 403,
      requiredScope: 'customers:write',
    });
    expect((err as AuthForbiddenScopeError).wwwAuthenticate).toBe(
      'Bearer realm="crs", error="insufficient_scope", error_description="The access token lacks the required scope", scope="customers:write"',
    );
  });
});

describe('requireBusinessUnit', () => {
  it('passes for a granted business unit and refuses a foreign one with 403', () => {
    expect(() => requireBusinessUnit(clerk, 'BU1')).not.toThrow();
    expect(() => requireBusinessUnit(clerk, 'BU3')).toThrow(AuthForbiddenBusinessUnitError);
    expect(() => requireBusinessUnit(clerk, 'bu1')).toThrow(
      expect.objectContaining({ code: 'AUTH_FORBIDDEN_BUSINESS_UNIT', httpStatus: 403, businessUnit: 'bu1' }),
    );
  });

  it('keeps a hostile business unit name out of the challenge header', () => {
    let err: unknown;
    try {
      requireBusinessUnit(clerk, 'x", error="none');
    } catch (e) {
      err = e;
    }
    expect((err as AuthForbiddenBusinessUnitError).wwwAuthenticate).not.toContain('x"');
  });

  it('lets a "*" principal act on every business unit', () => {
    expect(() => requireBusinessUnit(operator, 'ANY')).not.toThrow();
  });
});

describe('allowedBusinessUnits', () => {
  it('lists granted business units sorted, or "*" for all', () => {
    expect(allowedBusinessUnits(clerk)).toEqual(['BU1', 'BU2']);
    expect(allowedBusinessUnits(operator)).toBe('*');
    expect(allowedBusinessUnits({ subject: 'none', scopes: new Set(), businessUnits: new Set() })).toEqual(
      [],
    );
  });
});

describe('Scopes', () => {
  it('lists every scope the API checks', () => {
    expect(Scopes).toEqual([
      'customers:write',
      'customers:read',
      'classifiers:read',
      'operations:archive',
      'screening:search',
      'screening:decide',
      'risk:override',
      'callbacks:redeliver',
      'customers:erase',
      'customers:erase:override',
    ]);
    expect(isScope('customers:read')).toBe(true);
    expect(isScope('admin')).toBe(false);
  });
});
