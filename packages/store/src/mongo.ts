import { MongoClient, type Db } from 'mongodb';

export interface MongoSettings {
  MONGODB_URI: string;
  MONGODB_DB: string;
}

/**
 * One client per service. Only the operations that FerretDB v1 and MongoDB share are used anywhere
 * (no transactions, change streams, TTL indexes, $lookup or $group accumulators).
 */
export async function connectMongo(settings: MongoSettings): Promise<{ client: MongoClient; db: Db }> {
  const client = new MongoClient(settings.MONGODB_URI, {
    serverSelectionTimeoutMS: 5000,
    connectTimeoutMS: 5000,
    retryWrites: false,
    maxPoolSize: 20,
  });
  await client.connect();
  return { client, db: client.db(settings.MONGODB_DB) };
}

export async function pingMongo(db: Db): Promise<boolean> {
  try {
    await db.command({ ping: 1 });
    return true;
  } catch {
    return false;
  }
}

/**
 * Which server the store is: FerretDB v1 answers buildInfo with `ferretdbVersion`. FerretDB v1 on SQLite
 * has no indexes for queries: a filter on `_id` alone is pushed down to SQLite, any other filter (also
 * `_id` plus a condition) makes it read and decode the whole collection. Hot paths that would use a
 * conditional write on MongoDB use `_id`-only reads and writes there instead (docs/decisions).
 */
export type StoreDialect = 'mongodb' | 'ferretdb';

export async function detectDialect(db: Db): Promise<StoreDialect> {
  try {
    const info = await db.admin().command({ buildInfo: 1 });
    return typeof info.ferretdbVersion === 'string' ? 'ferretdb' : 'mongodb';
  } catch {
    return 'mongodb';
  }
}
