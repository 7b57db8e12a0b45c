import type { Db, MongoClient } from 'mongodb';
import type { Logger } from '@crs/runtime';
import { ProjectionCatalog, connectMongo, pingMongo, type MongoSettings } from '@crs/store';

interface Client {
  client: MongoClient;
  db: Db;
}

export interface MongoConnectionOptions {
  settings: MongoSettings;
  logger: Logger;
  /** A ping failing for this long while a fresh client can connect means the client will not recover. */
  staleAfterMs?: number;
  /** How often the store is pinged in the background. */
  pingEveryMs?: number;
  connect?: (settings: MongoSettings) => Promise<Client>;
  ping?: (db: Db) => Promise<boolean>;
  now?: () => number;
}

/**
 * The archive service's MongoDB client, replaced when it does not recover by itself after an outage.
 *
 * The driver (mongodb 6.21) can lose its server monitor for good: a `hello` that starts on a connection
 * just as the server closes it never settles when the close lands between the write and the read
 * (`Connection.cleanup` rejects only a read in progress; a command still awaiting its write waits on a
 * destroyed socket, where no socket timeout fires). The monitor then stays "monitoring" forever, the
 * server stays Unknown, and every operation fails server selection although the store is back. The
 * fault suite's database outage left the archive service in exactly that state (docs/reliability.md).
 *
 * So the store is pinged in the background; when pings have failed for `staleAfterMs` and a fresh
 * client connects, the fresh client takes over and the stale one is closed. While the store is really
 * down the fresh client cannot connect either, and nothing changes.
 */
export class MongoConnection {
  private current: Client;
  private catalogOf: { db: Db; catalog: ProjectionCatalog } | undefined;
  private failingSince: number | undefined;
  private replacing: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly staleAfterMs: number;
  private readonly connect: (settings: MongoSettings) => Promise<Client>;
  private readonly pingDb: (db: Db) => Promise<boolean>;
  private readonly now: () => number;
  replacements = 0;

  private constructor(
    initial: Client,
    private readonly opts: MongoConnectionOptions,
  ) {
    this.current = initial;
    this.staleAfterMs = opts.staleAfterMs ?? 30000;
    this.connect = opts.connect ?? connectMongo;
    this.pingDb = opts.ping ?? pingMongo;
    this.now = opts.now ?? Date.now;
  }

  static async open(opts: MongoConnectionOptions): Promise<MongoConnection> {
    const connection = new MongoConnection(await (opts.connect ?? connectMongo)(opts.settings), opts);
    const every = opts.pingEveryMs ?? 5000;
    if (every > 0) {
      connection.timer = setInterval(() => void connection.ping(), every);
      connection.timer.unref();
    }
    return connection;
  }

  /** The database of the current client (take it anew for every operation: the client may change). */
  get db(): Db {
    return this.current.db;
  }

  /** The projection catalogue of the current client (its one-second name cache survives as long as the client). */
  get catalog(): ProjectionCatalog {
    if (this.catalogOf?.db !== this.current.db) this.catalogOf = { db: this.current.db, catalog: new ProjectionCatalog(this.current.db) };
    return this.catalogOf.catalog;
  }

  /** Pings the store; after `staleAfterMs` of failures, tries a fresh client. Never throws. */
  async ping(): Promise<boolean> {
    const ok = await this.pingDb(this.current.db).catch(() => false);
    if (ok) {
      this.failingSince = undefined;
      return true;
    }
    this.failingSince ??= this.now();
    if (this.now() - this.failingSince >= this.staleAfterMs) await this.replace();
    return false;
  }

  private replace(): Promise<void> {
    this.replacing ??= (async () => {
      try {
        const fresh = await this.connect(this.opts.settings);
        if (!(await this.pingDb(fresh.db).catch(() => false))) {
          await fresh.client.close(true).catch(() => undefined);
          return;
        }
        const stale = this.current;
        this.current = fresh;
        this.failingSince = undefined;
        this.replacements++;
        this.opts.logger.warn({ replacements: this.replacements }, 'MongoDB client did not recover after an outage; replaced by a fresh one');
        await stale.client.close(true).catch(() => undefined);
      } catch {
        // The store is still unreachable: the next failed ping tries again.
      } finally {
        this.replacing = undefined;
      }
    })();
    return this.replacing;
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.replacing;
    await this.current.client.close();
  }
}
