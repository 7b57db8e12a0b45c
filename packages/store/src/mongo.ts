import { MongoClient, type CommandStartedEvent, type Db } from 'mongodb';
import { Counter, getOrCreate, type Registry } from '@crs/runtime';

export interface MongoSettings {
  MONGODB_URI: string;
  MONGODB_DB: string;
  /** Whether owners with a write-heavy hot path keep their collections in a database of their own (default true). */
  MONGODB_OWNER_DATABASES?: boolean;
}

/**
 * Services whose own collections are written on a hot path and live in a database of their own,
 * `<MONGODB_DB>_<owner>`: the ingress (`comm_reservations`) and the callback service (`callback_deliveries`,
 * `callback_queue`, `callback_progress`), and the key store of personal data (`data_keys`, written by the
 * ingress for every new customer: docs/privacy.md). FerretDB on SQLite keeps one file, and so one writer, per
 * database: a reservation insert no longer waits behind the projector's bulk writes of 500 documents
 * (docs/decisions/0017). On MongoDB it is the usual database per service. `MONGODB_OWNER_DATABASES=false`
 * keeps everything in `MONGODB_DB` (a user granted one database only).
 */
export const StoreOwners = ['ingress', 'callback', 'keys'] as const;
export type StoreOwner = (typeof StoreOwners)[number];

export function ownerDbName(settings: MongoSettings, owner: StoreOwner): string {
  return settings.MONGODB_OWNER_DATABASES === false ? settings.MONGODB_DB : `${settings.MONGODB_DB}_${owner}`;
}

/** Every database of a deployment or test namespace: the read models' and each owner's. */
export function storeDbNames(settings: MongoSettings): string[] {
  return [...new Set([settings.MONGODB_DB, ...StoreOwners.map((o) => ownerDbName(settings, o))])];
}

/** Drops every database of a namespace (tests, benchmarks). */
export async function dropStoreDatabases(client: MongoClient, settings: MongoSettings): Promise<void> {
  for (const name of storeDbNames(settings)) await client.db(name).dropDatabase();
}

export interface MongoConnection {
  client: MongoClient;
  /** The read models and the collections of owners without a database of their own. */
  db: Db;
  /** The database of an owner's own collections ({@link StoreOwners}). */
  ownDb(owner: StoreOwner): Db;
}

/**
 * One client per service. Only the operations that FerretDB v1 and MongoDB share are used anywhere
 * (no transactions, change streams, TTL indexes, $lookup or $group accumulators).
 */
export async function connectMongo(settings: MongoSettings, metrics?: Registry): Promise<MongoConnection> {
  const client = new MongoClient(settings.MONGODB_URI, {
    serverSelectionTimeoutMS: 5000,
    connectTimeoutMS: 5000,
    retryWrites: false,
    maxPoolSize: 20,
    monitorCommands: metrics !== undefined,
  });
  if (metrics) countCommands(client, metrics);
  await client.connect();
  return {
    client,
    db: client.db(settings.MONGODB_DB),
    ownDb: (owner) => client.db(ownerDbName(settings, owner)),
  };
}

/** Commands whose first field names a collection (`{ insert: 'customers', ... }`). */
const COLLECTION_COMMANDS = new Set([
  'find',
  'insert',
  'update',
  'delete',
  'findAndModify',
  'aggregate',
  'count',
  'distinct',
  'getMore',
  'createIndexes',
]);

/**
 * `store_commands_total{command,collection}`: what a service asks of the store, per collection, so an
 * operator (and `npm run bench pipeline`) can see which writes a customer costs. A replay's collections
 * (`customers_r<timestamp>`) are counted under their projection's name.
 */
function countCommands(client: MongoClient, metrics: Registry): void {
  const counter = getOrCreate(
    metrics,
    'store_commands_total',
    () =>
      new Counter({
        name: 'store_commands_total',
        help: 'Commands sent to the store, by command and collection',
        labelNames: ['command', 'collection'],
        registers: [metrics],
      }),
  );
  client.on('commandStarted', (e: CommandStartedEvent) => {
    if (!COLLECTION_COMMANDS.has(e.commandName)) return;
    const target = e.command[e.commandName] as unknown;
    const collection =
      e.commandName === 'getMore'
        ? String(e.command.collection ?? '')
        : typeof target === 'string'
          ? target
          : '';
    counter.labels(e.commandName, collection.replace(/_r\d+$/, '')).inc();
  });
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
 * uses no index but `_id`'s: with our patches an `_id` equality or `_id` list is pushed down to SQLite,
 * also beside other conditions (decision 0063); any other filter makes it read and decode the whole
 * collection, and it sorts in memory (long jobs page through `pagesById`).
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
