import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { issueToken, type Scope } from '@crs/auth';

/* eslint-disable @typescript-eslint/no-require-imports */
const launcher = require(resolve(__dirname, '../../../deploy/local/services.cjs')) as {
  ROOT: string;
  SERVICES: Record<string, { port: number }>;
  startService(name: string, opts?: { env?: Record<string, string>; timeoutMs?: number }): Promise<{ pid: number; port: number }>;
  stopService(name: string, opts?: { signal?: NodeJS.Signals; timeoutMs?: number }): Promise<void>;
  ensureKeys(): Promise<{ jwksFile: string; callbackKeyFile: string; callbackJwksFile: string }>;
};

export const ROOT = launcher.ROOT;
export const INGRESS = 'http://127.0.0.1:8080';
/** Where end-to-end tests receive callbacks for business units DEMO and TEST2. */
export const TEST_RECEIVER_PORT = 18089;

export const CORE_SERVICES = ['customer', 'projector', 'callback', 'ingress'] as const;

/** Settings every test cluster shares: callbacks of the test business units go to the test receiver. */
export function clusterEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    CALLBACK_ENDPOINTS: JSON.stringify({
      endpoints: [
        { id: 'test-demo', businessUnit: 'DEMO', url: `http://127.0.0.1:${TEST_RECEIVER_PORT}/DEMO`, eventTypes: ['*'] },
        { id: 'test-other', businessUnit: 'OTHER', url: `http://127.0.0.1:${TEST_RECEIVER_PORT + 1}/OTHER`, eventTypes: ['*'] },
      ],
    }),
    CALLBACK_BACKOFF_BASE_MS: '200',
    CALLBACK_BACKOFF_MAX_MS: '2000',
    CALLBACK_MAX_ATTEMPTS: '6',
    LOG_LEVEL: 'info',
    ...extra,
  };
}

/** Starts the services that are not running yet, each as its own process, and waits until ready. */
export async function startCluster(services: readonly string[] = CORE_SERVICES, env: Record<string, string> = clusterEnv()): Promise<void> {
  for (const s of services) await launcher.startService(s, { env });
}

export async function stopService(name: string, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  await launcher.stopService(name, { signal });
}

export async function startService(name: string, env: Record<string, string> = clusterEnv()): Promise<void> {
  await launcher.startService(name, { env });
}

export async function stopCluster(services: readonly string[] = CORE_SERVICES): Promise<void> {
  for (const s of [...services].reverse()) await launcher.stopService(s);
}

/** A token the local ingress accepts (signed with the local stack's key). */
export async function localToken(opts: { businessUnits?: string[] | '*'; scopes?: Scope[]; expiresInSec?: number } = {}): Promise<string> {
  const keys = await launcher.ensureKeys();
  const privateJwk = JSON.parse(readFileSync(join(keys.jwksFile, '..', 'signing-key.private.jwk.json'), 'utf8'));
  return issueToken({
    privateJwk,
    issuer: 'http://127.0.0.1:8080/local-issuer',
    audience: 'crs-api',
    subject: 'e2e-test',
    scopes: opts.scopes ?? [
      'customers:write',
      'customers:read',
      'classifiers:read',
      'operations:archive',
      'screening:search',
      'screening:decide',
      'risk:override',
      'callbacks:redeliver',
    ],
    businessUnits: opts.businessUnits ?? ['DEMO'],
    ...(opts.expiresInSec ? { expiresInSec: opts.expiresInSec } : {}),
  });
}

export async function callbackJwks(): Promise<{ keys: object[] }> {
  const keys = await launcher.ensureKeys();
  return JSON.parse(readFileSync(keys.callbackJwksFile, 'utf8'));
}

/** Polls until `probe` returns a value (not undefined/false) or the time is up; returns the value. */
export async function eventually<T>(probe: () => Promise<T | undefined | false>, timeoutMs = 60000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined && v !== false) return v as T;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

export function uniqueId(prefix: string): string {
  return `${prefix}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
}
