import type { Db } from 'mongodb';
import { CodedError } from '@crs/runtime';
import { isDuplicateKeyOnly } from '@crs/store';

/** A bulk insert of the replay that still failed after its retries (the replay stops; nothing is switched). */
export class ReplayWriteError extends CodedError {
  constructor(collection: string, cause: unknown) {
    super('REPLAY_WRITE_FAILED', `replay could not write to ${collection}`, {
      collection,
      cause: (cause as { code?: unknown } | undefined)?.code,
    });
  }
}

/**
 * Streams documents into collections with unordered `insertMany`s of `batch` documents, at most
 * `maxInFlight` at a time (the caller waits when all are busy, so reading never runs far ahead of the
 * store). A duplicate key means the document is already there (a redelivered event); another failure
 * is retried with backoff, then ends the replay.
 */
export class BulkInserter {
  private readonly buffers = new Map<string, object[]>();
  private readonly inFlight = new Set<Promise<void>>();
  private failure: unknown;
  written = 0;

  constructor(
    private readonly db: Db,
    private readonly opts: { batch?: number; maxInFlight?: number; attempts?: number } = {},
  ) {}

  async add(collection: string, doc: object): Promise<void> {
    let buffer = this.buffers.get(collection);
    if (!buffer) {
      buffer = [];
      this.buffers.set(collection, buffer);
    }
    buffer.push(doc);
    if (buffer.length >= (this.opts.batch ?? 500)) {
      this.buffers.set(collection, []);
      await this.send(collection, buffer);
    }
  }

  /** Writes what is buffered and waits for every write; throws the first failure. */
  async flush(): Promise<void> {
    for (const [collection, docs] of this.buffers) {
      this.buffers.set(collection, []);
      if (docs.length > 0) await this.send(collection, docs);
    }
    await Promise.all(this.inFlight);
    if (this.failure !== undefined) throw this.failure;
  }

  private async send(collection: string, docs: object[]): Promise<void> {
    // After a failure nothing more is written; `flush` reports it (a reader's handler must not throw:
    // kafkajs would hand it the same batch again and again).
    if (this.failure !== undefined) return;
    while (this.inFlight.size >= (this.opts.maxInFlight ?? 3)) await Promise.race(this.inFlight);
    const write = this.insert(collection, docs).then(
      () => {
        this.written += docs.length;
      },
      (err: unknown) => {
        this.failure ??= new ReplayWriteError(collection, err);
      },
    );
    const tracked = write.finally(() => this.inFlight.delete(tracked));
    this.inFlight.add(tracked);
  }

  private async insert(collection: string, docs: object[]): Promise<void> {
    const attempts = this.opts.attempts ?? 5;
    for (let attempt = 1; ; attempt++) {
      try {
        await this.db.collection(collection).insertMany(docs as never[], { ordered: false });
        return;
      } catch (err) {
        if (isDuplicateKeyOnly(err, docs.length)) return;
        if (attempt >= attempts) throw err;
        await new Promise((r) => setTimeout(r, 200 * 2 ** attempt));
      }
    }
  }
}
