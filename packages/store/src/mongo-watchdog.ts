import type { Db, MongoClient } from 'mongodb';
import type { Logger } from '@crs/runtime';
import { connectMongo, pingMongo, type MongoSettings } from './mongo';

export interface MongoWatchdogOptions {
  client: MongoClient;
  db: Db;
  /** Where a probe client connects to tell "the store is down" from "our client is stuck". */
  settings: MongoSettings;
  logger: Logger;
  /** A ping failing for this long while a probe client reaches the store means the client is stuck. */
  staleAfterMs?: number;
  /** How often the store is pinged in the background (0: only when `ping` is called). */
  pingEveryMs?: number;
  now?: () => number;
}

/** Whether a fresh client reaches the store (connect and ping, then close). */
async function storeReachable(settings: MongoSettings): Promise<boolean> {
  try {
    const probe = await connectMongo(settings);
    try {
      return await pingMongo(probe.db);
    } finally {
      await probe.client.close(true).catch(() => undefined);
    }
  } catch {
    return false;
  }
}

/**
 * Watches a service's MongoDB client and reconnects it when it does not recover by itself after an
 * outage. Every long-running service starts one beside its client (`ServiceHost.connectStore`).
 *
 * The driver (mongodb 6.21) can lose its server monitor for good: a `hello` that starts on a connection
 * just as the server closes it never settles when the close lands between the write and the read
 * (`Connection.cleanup` rejects only a read in progress; a command still awaiting its write waits on a
 * destroyed socket, where no socket timeout fires). The monitor then stays "monitoring" forever, the
 * server stays Unknown, and every operation fails server selection although the store is back. The
 * fault suite's database outage left the archive and the callback service in exactly that state
 * (docs/reliability.md). Our patch of the driver (patches/mongodb@6.21.0.patch, decision 0087) now ends
 * such a wait with the connection's error; the watchdog stays as the net for whatever else leaves a
 * client unusable while the store is up.
 *
 * So the store is pinged in the background; when pings have failed for `staleAfterMs` and a probe
 * client reaches the store, the client is closed and connected again. The same MongoClient gets a new
 * topology, so every `Db` and `Collection` handle the service holds keeps working: no service has to
 * follow a replaced client. While the store is really down the probe fails too, and nothing changes.
 */
export class MongoWatchdog {
  reconnects = 0;
  private failingSince: number | undefined;
  private reconnecting: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly staleAfterMs: number;
  private readonly now: () => number;

  constructor(private readonly opts: MongoWatchdogOptions) {
    this.staleAfterMs = opts.staleAfterMs ?? 30000;
    this.now = opts.now ?? Date.now;
    const every = opts.pingEveryMs ?? 5000;
    if (every > 0) {
      this.timer = setInterval(() => void this.ping(), every);
      this.timer.unref();
    }
  }

  /** Pings the store (a readiness check can use it); after `staleAfterMs` of failures, reconnects. Never throws. */
  async ping(): Promise<boolean> {
    const ok = await pingMongo(this.opts.db);
    if (ok) {
      this.failingSince = undefined;
      return true;
    }
    this.failingSince ??= this.now();
    if (this.now() - this.failingSince >= this.staleAfterMs) await this.reconnect();
    return false;
  }

  private reconnect(): Promise<void> {
    this.reconnecting ??= (async () => {
      try {
        if (!(await storeReachable(this.opts.settings))) return;
        await this.opts.client.close(true).catch(() => undefined);
        await this.opts.client.connect();
        this.failingSince = undefined;
        this.reconnects++;
        this.opts.logger.warn(
          { reconnects: this.reconnects },
          'MongoDB client did not recover after an outage; reconnected',
        );
      } catch {
        // The store went away again meanwhile: the next failed ping tries again.
      } finally {
        this.reconnecting = undefined;
      }
    })();
    return this.reconnecting;
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.reconnecting;
  }
}
