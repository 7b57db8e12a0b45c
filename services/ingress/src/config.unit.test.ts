import { loadIngressConfig } from './config';

/** The ingress's settings that loadIngressConfig checks beyond their types. */
describe('loadIngressConfig', () => {
  const base = { AUTH_JWKS_FILE: '/keys/jwks.json' };

  it('runs one process unless INGRESS_WORKERS says more (docs/decisions/0056)', () => {
    expect(loadIngressConfig(base).INGRESS_WORKERS).toBe(1);
    expect(loadIngressConfig({ ...base, INGRESS_WORKERS: '4' }).INGRESS_WORKERS).toBe(4);
  });

  it.each(['0', '-1', '1.5', '65'])('refuses INGRESS_WORKERS=%s, naming the setting', (value) => {
    expect(() => loadIngressConfig({ ...base, INGRESS_WORKERS: value })).toThrow(
      /INGRESS_WORKERS must be an integer from 1 to 64/,
    );
  });

  it('refuses a non-number INGRESS_WORKERS, naming the setting', () => {
    expect(() => loadIngressConfig({ ...base, INGRESS_WORKERS: 'many' })).toThrow(/INGRESS_WORKERS/);
  });

  it('needs a key source for tokens', () => {
    expect(() => loadIngressConfig({})).toThrow(/AUTH_JWKS_URL or AUTH_JWKS_FILE/);
  });
});
