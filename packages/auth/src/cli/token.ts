import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { issueToken } from '../issueToken';
import { ensureLocalKeys } from '../keys/ensureLocalKeys';
import { isScope, Scopes } from '../scopes';

export const DEFAULT_ISSUER = 'http://127.0.0.1:8080/local-issuer';
export const DEFAULT_AUDIENCE = 'crs-api';
const DEFAULT_BUSINESS_UNIT = 'DEMO';
const DEFAULT_TTL_SEC = 3600;

const USAGE = `Usage: npm run -s token -- [options]

Prints a signed access token for the local stack on stdout.

  --business-unit <BU>  business unit, repeatable or comma separated; '*' for all (default ${DEFAULT_BUSINESS_UNIT})
  --scope <scope>       scope, repeatable or comma separated (default: every scope)
  --ttl <seconds>       lifetime (default ${DEFAULT_TTL_SEC})
  --subject <sub>       subject (default local-operator)
  --issuer <iss>        default $AUTH_ISSUER or ${DEFAULT_ISSUER}
  --audience <aud>      default $AUTH_AUDIENCE or ${DEFAULT_AUDIENCE}
  --keys-dir <dir>      default <repo>/.local/auth

Scopes: ${Scopes.join(', ')}
`;

export interface TokenCliIo {
  argv: readonly string[];
  env: Readonly<Record<string, string | undefined>>;
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  /** Directory the repository root is searched from; defaults to this file's directory. */
  cwd?: string;
}

/** Runs the token CLI and returns its exit code: 0 ok, 2 usage error. */
export async function main(io: TokenCliIo): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...io.argv],
      strict: true,
      allowPositionals: false,
      options: {
        'business-unit': { type: 'string', multiple: true },
        scope: { type: 'string', multiple: true },
        ttl: { type: 'string' },
        subject: { type: 'string' },
        issuer: { type: 'string' },
        audience: { type: 'string' },
        'keys-dir': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (err) {
    return usageError(io, (err as Error).message);
  }
  if (values.help) {
    io.stdout.write(USAGE);
    return 0;
  }

  const scopes = splitList(values.scope) ?? [...Scopes];
  const unknown = scopes.filter((s) => !isScope(s));
  if (unknown.length > 0) return usageError(io, `unknown scope(s): ${unknown.join(', ')}`);

  const units = splitList(values['business-unit']) ?? [DEFAULT_BUSINESS_UNIT];
  const businessUnits = units.includes('*') ? '*' : units;

  const ttl = values.ttl === undefined ? DEFAULT_TTL_SEC : Number(values.ttl);
  if (!Number.isSafeInteger(ttl) || ttl <= 0)
    return usageError(io, '--ttl must be a positive whole number of seconds');

  const keysDir = values['keys-dir'] ?? join(repoRoot(io.cwd ?? __dirname), '.local', 'auth');
  const { privateJwk } = await ensureLocalKeys(resolve(keysDir));
  const token = await issueToken({
    privateJwk,
    issuer: values.issuer ?? io.env['AUTH_ISSUER'] ?? DEFAULT_ISSUER,
    audience: values.audience ?? io.env['AUTH_AUDIENCE'] ?? DEFAULT_AUDIENCE,
    ...(values.subject === undefined ? {} : { subject: values.subject }),
    scopes,
    businessUnits,
    expiresInSec: ttl,
  });
  io.stdout.write(`${token}\n`);
  return 0;
}

function splitList(values: readonly string[] | undefined): string[] | undefined {
  if (values === undefined) return undefined;
  const items = values
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter((v) => v !== '');
  return items.length === 0 ? undefined : [...new Set(items)];
}

function usageError(io: TokenCliIo, message: string): number {
  io.stderr.write(`token: ${message}\n\n${USAGE}`);
  return 2;
}

/** The workspace root, found by walking up to pnpm-workspace.yaml (works from src/ and dist/). */
export function repoRoot(from: string): string {
  for (let dir = resolve(from); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'pnpm-workspace.yaml'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no pnpm-workspace.yaml above ${from}`);
  }
}

if (require.main === module) {
  main({
    argv: process.argv.slice(2),
    env: process.env,
    stdout: process.stdout,
    stderr: process.stderr,
  }).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      process.stderr.write(`token: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = 1;
    },
  );
}
