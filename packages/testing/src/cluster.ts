import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { MongoClient, type Db } from 'mongodb';
import { Scopes, issueToken, type Scope } from '@crs/auth';
import { dropStoreDatabases, ownerDbName, type MongoSettings, type StoreOwner } from '@crs/store';

/* eslint-disable @typescript-eslint/no-require-imports */
const launcher = require(resolve(__dirname, '../../../deploy/local/services.cjs')) as {
  ROOT: string;
  startService(
    name: string,
    opts?: { env?: Record<string, string>; timeoutMs?: number; namespace?: string },
  ): Promise<{ pid: number; port: number }>;
  stopService(
    name: string,
    opts?: { signal?: NodeJS.Signals; timeoutMs?: number; namespace?: string },
  ): Promise<void>;
  portOf(name: string, namespace?: string): number;
  namespaceSettings(namespace: string): { env: Record<string, string> };
  ensureKeys(): Promise<{ jwksFile: string; callbackKeyFile: string; callbackJwksFile: string }>;
};

export const ROOT = launcher.ROOT;
export const CORE_SERVICES = ['customer', 'projector', 'callback', 'ingress'] as const;
export const ALL_SCOPES: Scope[] = [...Scopes];

/**
 * One isolated running system on the shared local stack: its own topics (prefix), consumer groups,
 * database and ports, with every service as its own process. Test suites each use their own
 * namespace, so they never see each other's messages.
 */
export class TestCluster {
  readonly ingressUrl: string;
  readonly dbName: string;
  private env: Record<string, string>;
  private mongo: MongoClient | undefined;

  constructor(
    readonly namespace: string,
    env: Record<string, string> = {},
  ) {
    this.ingressUrl = `http://127.0.0.1:${launcher.portOf('ingress', namespace)}`;
    this.dbName = launcher.namespaceSettings(namespace).env.MONGODB_DB!;
    this.env = {
      CALLBACK_BACKOFF_BASE_MS: '200',
      CALLBACK_BACKOFF_MAX_MS: '2000',
      CALLBACK_MAX_ATTEMPTS: '6',
      CALLBACK_POLL_MS: '100',
      CALLBACK_TIMEOUT_MS: '3000',
      TOPIC_PARTITIONS: '3',
      ...env,
    };
  }

  /** Callback endpoints: business unit -> receiver URL. */
  routeCallbacks(routes: Record<string, string>): void {
    this.env.CALLBACK_ENDPOINTS = JSON.stringify({
      endpoints: Object.entries(routes).map(([bu, url]) => ({
        id: `test-${bu}`,
        businessUnit: bu,
        url,
        eventTypes: ['*'],
      })),
    });
  }

  setEnv(env: Record<string, string>): void {
    Object.assign(this.env, env);
  }

  async start(services: readonly string[] = CORE_SERVICES): Promise<void> {
    for (const s of services) await launcher.startService(s, { env: this.env, namespace: this.namespace });
  }

  async startService(name: string): Promise<void> {
    await launcher.startService(name, { env: this.env, namespace: this.namespace });
  }

  /** SIGTERM stops gracefully; SIGKILL is a crash. */
  async stopService(name: string, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    await launcher.stopService(name, { signal, namespace: this.namespace });
  }

  async stop(
    services: readonly string[] = [...CORE_SERVICES, 'evaluation', 'screening', 'archive'],
  ): Promise<void> {
    for (const s of [...services].reverse()) await launcher.stopService(s, { namespace: this.namespace });
    await this.closeDb();
  }

  /** Closes the test's own database connection (an open one keeps jest from exiting). */
  async closeDb(): Promise<void> {
    await this.mongo?.close();
    this.mongo = undefined;
  }

  portOf(name: string): number {
    return launcher.portOf(name, this.namespace);
  }

  private async client(): Promise<MongoClient> {
    if (!this.mongo)
      this.mongo = await new MongoClient(process.env.MONGODB_URI ?? 'mongodb://127.0.0.1:27018/').connect();
    return this.mongo;
  }

  private get storeSettings(): MongoSettings {
    return { MONGODB_URI: '', MONGODB_DB: this.dbName };
  }

  /** The namespace's read models (and the collections of owners without a database of their own). */
  async db(): Promise<Db> {
    return (await this.client()).db(this.dbName);
  }

  /** The database of one owner's own collections (`comm_reservations`, the callback delivery log, ...). */
  async ownDb(owner: StoreOwner): Promise<Db> {
    return (await this.client()).db(ownerDbName(this.storeSettings, owner));
  }

  /** Drops this namespace's databases (a fresh start for a suite). */
  async dropDatabase(): Promise<void> {
    await dropStoreDatabases(await this.client(), this.storeSettings);
  }

  async fetch(path: string, init: RequestInit & { token?: string } = {}): Promise<Response> {
    const { token, ...rest } = init;
    const headers = new Headers(rest.headers);
    if (token) headers.set('authorization', `Bearer ${token}`);
    if (rest.body && !headers.has('content-type')) headers.set('content-type', 'application/json');
    return fetch(`${this.ingressUrl}${path}`, { ...rest, headers });
  }
}

/** A token the local ingress accepts (signed with the local stack's key). */
export async function localToken(
  opts: {
    businessUnits?: string[] | '*';
    scopes?: Scope[];
    expiresInSec?: number;
    notBeforeSec?: number;
  } = {},
): Promise<string> {
  const keys = await launcher.ensureKeys();
  const privateJwk = JSON.parse(
    readFileSync(join(keys.jwksFile, '..', 'signing-key.private.jwk.json'), 'utf8'),
  );
  return issueToken({
    privateJwk,
    issuer: 'http://127.0.0.1:8080/local-issuer',
    audience: 'crs-api',
    subject: 'e2e-test',
    scopes: opts.scopes ?? ALL_SCOPES,
    businessUnits: opts.businessUnits ?? ['DEMO'],
    ...(opts.expiresInSec !== undefined ? { expiresInSec: opts.expiresInSec } : {}),
    ...(opts.notBeforeSec !== undefined ? { notBeforeSec: opts.notBeforeSec } : {}),
  });
}

export async function callbackJwks(): Promise<{ keys: object[] }> {
  const keys = await launcher.ensureKeys();
  return JSON.parse(readFileSync(keys.callbackJwksFile, 'utf8'));
}

/** Polls until `probe` returns a value (not undefined/false) or the time is up; returns the value. */
export async function eventually<T>(
  probe: () => Promise<T | undefined | false>,
  timeoutMs = 60000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined && v !== false) return v as T;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Polls until `probe` returns a non-empty list (or the time is up); returns that list. */
export async function eventuallyNonEmpty<T>(
  probe: () => Promise<readonly T[]>,
  timeoutMs = 60000,
  what = 'a non-empty result',
): Promise<T[]> {
  return eventually(
    async () => {
      const list = await probe();
      return list.length > 0 ? [...list] : undefined;
    },
    timeoutMs,
    what,
  );
}

export function uniqueId(prefix: string): string {
  return `${prefix}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
}
