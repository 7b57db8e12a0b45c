import type { Collection, Db, Document, Filter } from 'mongodb';
import { isDuplicateKey } from './write-errors';

/** The fields a lease keeps in its document, beside the holder's own. */
export interface LeaseFields {
  /** Who holds the lease; null when it is free. */
  owner: string | null;
  /** Until when it holds it; another owner may take it over after this. */
  leaseUntil: Date;
}

/** A lease document: the holder's own fields `F`, the lease's fields and its `_id`. */
export type LeaseDoc<F extends Document = Document> = F & LeaseFields & { _id: string };

export interface LeaseOptions {
  db: Db;
  /** The collection holding the lease document (the holder's own, next to its other documents). */
  collection: string;
  /** `_id` of the lease document. */
  id: string;
  /** Who takes the lease: unique per instance. */
  owner: string;
  /** How long an acquisition or renewal holds. */
  leaseMs: number;
  clock: () => Date;
}

export interface LeaseAcquireOptions<F extends Document> {
  /** The time of the acquisition (default: the clock's); the expiry is counted from it. */
  at?: Date;
  /** Further conditions on the holder's own fields (no `$or`: the lease's condition is one). */
  where?: Filter<LeaseDoc>;
  /** Holder's fields written with the acquisition. */
  set?: Partial<F>;
}

/**
 * A lease on one document, so that one instance at a time does a piece of work (a job, a run): acquired
 * when it is free, held by the same owner or expired, renewed and released by its owner only. It takes
 * only what FerretDB v1 serves (decision 0008): one conditional `updateOne` per step, no transactions,
 * no TTL index (the expiry is a date compared with the caller's clock) and no change streams (a waiting
 * instance asks again). `F` is the holder's own fields kept in the same document.
 */
export class Lease<F extends Document = Document> {
  private readonly docs: Collection<LeaseDoc>;

  constructor(private readonly opts: LeaseOptions) {
    this.docs = opts.db.collection<LeaseDoc>(opts.collection);
  }

  /** Creates the lease document, free, with the holder's fields, unless it exists; true if it created it. */
  async create(fields: F): Promise<boolean> {
    try {
      await this.docs.insertOne({ ...fields, _id: this.opts.id, owner: null, leaseUntil: new Date(0) });
      return true;
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
      return false;
    }
  }

  /** The lease document, or null if it does not exist. */
  async read(): Promise<LeaseDoc<F> | null> {
    return (await this.docs.findOne({ _id: this.opts.id })) as LeaseDoc<F> | null;
  }

  /**
   * Takes the lease if this owner holds it already or it expired (a free lease has expired), and the
   * document meets `where`; true if taken. An existing document is needed (`create`).
   */
  async acquire(options: LeaseAcquireOptions<F> = {}): Promise<boolean> {
    const { owner } = this.opts;
    const at = options.at ?? this.opts.clock();
    const taken = await this.docs.updateOne(
      {
        _id: this.opts.id,
        ...options.where,
        $or: [{ owner }, { leaseUntil: { $lt: at } }],
      },
      { $set: { owner, leaseUntil: this.until(at), ...options.set } },
    );
    return taken.matchedCount === 1;
  }

  /** Whether another owner holds the lease and it has not expired at `at`. */
  async heldByAnother(at: Date = this.opts.clock()): Promise<boolean> {
    const doc = await this.read();
    return doc !== null && doc.owner !== null && doc.owner !== this.opts.owner && doc.leaseUntil >= at;
  }

  /**
   * Extends the lease from now, with the holder's fields in `set`, if this owner still holds it (an
   * expired lease nobody took over is still held); false if it was lost.
   */
  async renew(set: Partial<F> = {}): Promise<boolean> {
    return this.write({ leaseUntil: this.until(this.opts.clock()), ...set });
  }

  /** Writes the holder's fields if this owner holds the lease, without renewing it; false if it was lost. */
  async write(set: Partial<F & LeaseFields>): Promise<boolean> {
    const written = await this.docs.updateOne(
      { _id: this.opts.id, owner: this.opts.owner },
      {
        $set: set,
      },
    );
    return written.matchedCount === 1;
  }

  /** Frees the lease if this owner holds it, with the holder's fields in `set`; false if it was lost. */
  async release(set: Partial<F> = {}): Promise<boolean> {
    return this.write({ owner: null, leaseUntil: new Date(0), ...set });
  }

  /** When a lease taken or renewed at `at` expires (for a holder that stores it with its own progress). */
  until(at: Date): Date {
    return new Date(at.getTime() + this.opts.leaseMs);
  }
}
