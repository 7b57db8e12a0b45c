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
