import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTokenVerifier } from '../createTokenVerifier';
import { Scopes } from '../scopes';
import { DEFAULT_AUDIENCE, DEFAULT_ISSUER, main } from './token';

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'crs-auth-cli-'));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function run(argv: string[], env: Record<string, string> = {}) {
  let stdout = '';
  let stderr = '';
  const code = await main({
    argv: ['--keys-dir', dir, ...argv],
    env,
    stdout: { write: (t: string) => (stdout += t) },
    stderr: { write: (t: string) => (stderr += t) },
  });
  return { code, stdout, stderr };
}

function verifier(issuer = DEFAULT_ISSUER, audience = DEFAULT_AUDIENCE) {
  return createTokenVerifier({ jwksFile: join(dir, 'jwks.json'), issuer, audience });
}

describe('token CLI', () => {
  it('prints only a token that verifies with every scope for business unit DEMO by default', async () => {
    const { code, stdout, stderr } = await run([]);
    expect(code).toBe(0);
    expect(stderr).toBe('');
    expect(stdout).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+\n$/);
    const principal = await verifier().verify(`Bearer ${stdout.trim()}`);
    expect(principal.scopes).toEqual(new Set(Scopes));
    expect(principal.businessUnits).toEqual(new Set(['DEMO']));
  });

  it('takes repeated and comma separated scopes and business units', async () => {
    const { stdout } = await run([
      '--scope',
      'customers:read, screening:search',
      '--scope',
      'customers:read',
      '--business-unit',
      'BU1,BU2',
      '--business-unit',
      'BU3',
      '--subject',
      'analyst',
    ]);
    const principal = await verifier().verify(`Bearer ${stdout.trim()}`);
    expect(principal.subject).toBe('analyst');
    expect(principal.scopes).toEqual(new Set(['customers:read', 'screening:search']));
    expect(principal.businessUnits).toEqual(new Set(['BU1', 'BU2', 'BU3']));
  });

  it('issues an all-business-units token for "*"', async () => {
    const { stdout } = await run(['--business-unit', '*']);
    expect((await verifier().verify(`Bearer ${stdout.trim()}`)).businessUnits).toBe('*');
  });

  it('honours AUTH_ISSUER and AUTH_AUDIENCE, with flags taking precedence', async () => {
    const env = { AUTH_ISSUER: 'https://idp.example/', AUTH_AUDIENCE: 'env-aud' };
    const fromEnv = await run([], env);
    await expect(
      verifier('https://idp.example/', 'env-aud').verify(`Bearer ${fromEnv.stdout.trim()}`),
    ).resolves.toBeDefined();
    const fromFlags = await run(['--issuer', 'https://flag.example/', '--audience', 'flag-aud'], env);
    await expect(
      verifier('https://flag.example/', 'flag-aud').verify(`Bearer ${fromFlags.stdout.trim()}`),
    ).resolves.toBeDefined();
  });

  it('sets the lifetime from --ttl', async () => {
    const { stdout } = await run(['--ttl', '60']);
    const [, payload] = stdout.trim().split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString('utf8'));
    expect(claims.exp - claims.iat).toBe(60);
  });

  it('reuses the same key across runs so earlier tokens stay valid', async () => {
    const first = await run([]);
    await run([]);
    await expect(verifier().verify(`Bearer ${first.stdout.trim()}`)).resolves.toBeDefined();
  });

  it('exits 2 with usage on bad input and prints no token', async () => {
    for (const argv of [['--scope', 'admin'], ['--ttl', '0'], ['--ttl', 'soon'], ['--unknown']]) {
      const { code, stdout, stderr } = await run(argv);
      expect(code).toBe(2);
      expect(stdout).toBe('');
      expect(stderr).toContain('Usage:');
    }
  });
});
