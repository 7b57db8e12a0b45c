import type { Admin, Consumer, Kafka } from 'kafkajs';
import { streamReaderStalledGauge, type Gauge, type Logger, type Registry } from '@crs/runtime';
import { randomUUID } from 'node:crypto';
import type { MessageSerde } from './serde';
import { restartAfterFatalCrash } from './restart-after-fatal-crash';
import { headerString, type DecodedMessage } from './decoded-message';
import { FETCH_MAX_BYTES_PER_PARTITION, batchStallOf } from './kafka';
import { BatchWatchdog } from './batch-watchdog';

/** How often a reader commits its throw-away group's offsets (they only shorten a re-read after a crash). */
export const READER_COMMIT_INTERVAL_MS = 2000;

/**
 * How long a wait to catch up may see no progress before the reader also asks the broker how far its
 * private group has committed (see {@link StreamReader.waitUntilCaughtUp}).
 */
export const STALL_CHECK_MS = 5000;

/**
 * Reads a topic from its beginning, for rebuilding state (the decider) and projections (replay).
 * kafkajs has no manual partition assignment, so the reader joins a private, throw-away consumer group.
 *
 * How far it has read is kept here, per partition, from three sources:
 * - each record handed out (or skipped) as its offset is resolved, inside the batch;
 * - kafkajs's end-of-batch event, whose last offset also covers transaction markers and aborted records,
 *   which are never handed to the application;
 * - the private group's committed offset, asked for only when a wait to catch up stalls.
 * The group's committed offset alone is not enough: kafkajs commits a batch that held only markers or
 * aborted records just when its auto-commit interval has passed, so a partition whose tail is such a
 * batch could look unread for ever. The decider waited on exactly that after a broker outage (its own
 * aborted transaction at the end of the events partition) while nothing else would write there: the
 * partition stayed blocked for good (found by the broker-outage fault scenario in CI). The end-of-batch
 * event alone is not enough either: the batch commits (when due) before kafkajs emits it, so a broker
 * outage between the two (a heartbeat that fails) restarts the consumer after the committed offset with
 * the event never emitted: the long broker-outage scenario left the decider waiting for 19 records it
 * had folded (2026-11-27). The group is this reader's alone, so what it committed was read by it.
 */
export class StreamReader<T> {
  private readonly consumer: Consumer;
  private readonly admin: Admin;
  /** The reader's private consumer group (its committed offsets were read by this reader alone). */
  readonly groupId: string;
  private running = false;
  /** Per partition: the next offset to read (everything before it was handed out, or filtered). */
  private readonly positions = new Map<number, bigint>();
  /** The waits to catch up in progress, each with when it last moved. */
  private readonly waits = new Set<{ movedAt: number }>();
  /** This reader's `stream_reader_stalled_seconds` when it was given metrics. */
  private readonly stalled: Gauge.Internal<'topic' | 'reader'> | undefined;
  /** Its batches, each of which must keep showing signs of life (decision 0087). */
  private readonly watchdog: BatchWatchdog;

  constructor(
    private readonly opts: {
      kafka: Kafka;
      serde: MessageSerde;
      logger: Logger;
      topic: string;
      groupPrefix: string;
      onMessage: (message: DecodedMessage<T>) => void | Promise<void>;
      /**
       * Per partition, the offset to start at instead of the beginning (the decider starts after its
       * state snapshot); partitions not named are read from the beginning.
       */
      startOffsets?: Map<number, bigint>;
      /**
       * The message types (the `type` header) to hand out; others are skipped before decoding (they still
       * count as read). Every type when omitted.
       */
      types?: readonly string[];
      /**
       * A message the caller needs not read: one it already holds (the decider's own events, which its
       * state got when their transaction committed), or one its headers show would change nothing (the
       * screening directory and a customer without a list purpose). Skipped before decoding, it still
       * counts as read. Told the key and the headers only, in the partition's order, before any message
       * of the same fetched batch is handed out.
       */
      skip?: (key: string, headers: Record<string, unknown> | undefined) => boolean;
      /**
       * Called with the decoded messages of each fetched batch before onMessage sees the first of them:
       * work worth doing once per batch (reading the keys of all its customers at once).
       */
      beforeBatch?: (messages: readonly DecodedMessage<T>[]) => Promise<void>;
      /**
       * How many partitions' batches of a fetch are handled at once (kafkajs's
       * `partitionsConsumedConcurrently`; 1 when omitted). Each partition's messages still reach onMessage
       * in order, one at a time; only a caller whose state is per key (and keys per partition) may take more
       * than one: one partition's batch then folds while another's waits (its keys read, say).
       */
      partitionsConcurrently?: number;
      /**
       * Where `stream_reader_stalled_seconds{topic, reader=groupPrefix}` is exported: how long the oldest
       * wait to catch up has made no progress (alert CRSStreamReaderStalled, docs/operations.md).
       */
      metrics?: Registry;
    },
  ) {
    this.groupId = `${opts.groupPrefix}-${randomUUID()}`;
    this.stalled = opts.metrics
      ? streamReaderStalledGauge(opts.metrics).labels(opts.topic, opts.groupPrefix)
      : undefined;
    this.consumer = opts.kafka.consumer({
      groupId: this.groupId,
      readUncommitted: false,
      // A fetch returns as soon as anything is committed; the wait only spaces the polls of an idle reader.
      maxWaitTimeInMs: 500,
      maxBytesPerPartition: FETCH_MAX_BYTES_PER_PARTITION,
    });
    this.admin = opts.kafka.admin();
    this.consumer.on(this.consumer.events.END_BATCH_PROCESS, (e) => {
      if (e.payload.topic !== opts.topic) return;
      this.advance(e.payload.partition, BigInt(e.payload.lastOffset) + 1n);
    });
    restartAfterFatalCrash(this.consumer, {
      logger: opts.logger,
      groupId: this.groupId,
      shouldRun: () => this.running,
      run: () => this.run(),
    });
    this.watchdog = new BatchWatchdog({
      logger: opts.logger,
      groupId: opts.groupPrefix,
      stallMs: batchStallOf(opts.kafka),
      metrics: opts.metrics,
    });
  }

  /** False while a batch has shown no sign of life for the stall bound (decision 0087). */
  isLive(): boolean {
    return this.watchdog.check() === undefined;
  }

  async start(): Promise<void> {
    this.watchdog.start();
    await this.admin.connect();
    for (const [partition, offset] of this.opts.startOffsets ?? []) this.positions.set(partition, offset);
    this.running = true;
    await this.run();
  }

  private async run(): Promise<void> {
    const { opts } = this;
    await this.consumer.connect();
    await this.consumer.subscribe({ topic: opts.topic, fromBeginning: true });
    const wanted = opts.types ? new Set(opts.types) : undefined;
    const running = this.consumer.run({
      // The throw-away group's offsets only shorten a re-read after a crash inside kafkajs: committed at
      // most every READER_COMMIT_INTERVAL_MS (the patched kafkajs honours the interval: decision 0038).
      autoCommit: true,
      autoCommitInterval: READER_COMMIT_INTERVAL_MS,
      partitionsConsumedConcurrently: opts.partitionsConcurrently ?? 1,
      eachBatch: ({ batch, resolveOffset, heartbeat, commitOffsetsIfNecessary }) =>
        this.watchdog.watch(batch.topic, batch.partition, async (watched) => {
          watched.phase('decode', batch.firstOffset() ?? undefined);
          // Decoded first, so that beforeBatch sees the whole batch; offsets are still resolved in order.
          const entries: { offset: string; message?: DecodedMessage<T> }[] = [];
          for (const raw of batch.messages) {
            const type = headerString(raw.headers as Record<string, unknown>, 'type');
            if (wanted && type !== undefined && !wanted.has(type)) {
              entries.push({ offset: raw.offset });
              continue;
            }
            if (opts.skip?.(raw.key?.toString('utf8') ?? '', raw.headers as Record<string, unknown>)) {
              entries.push({ offset: raw.offset });
              continue;
            }
            let value: T;
            try {
              value = await opts.serde.decode<T>(raw.value ?? Buffer.alloc(0));
            } catch (err) {
              opts.logger.error(
                { code: (err as { code?: string }).code, partition: batch.partition, offset: raw.offset },
                'undecodable event skipped',
              );
              entries.push({ offset: raw.offset });
              continue;
            }
            entries.push({
              offset: raw.offset,
              message: {
                topic: batch.topic,
                partition: batch.partition,
                offset: raw.offset,
                key: raw.key?.toString('utf8') ?? '',
                type: type ?? '',
                value,
              },
            });
          }
          if (opts.beforeBatch) {
            watched.phase('before batch', batch.firstOffset() ?? undefined);
            const messages = entries.flatMap((e) => (e.message ? [e.message] : []));
            if (messages.length > 0) await opts.beforeBatch(messages);
          }
          watched.phase('apply', batch.firstOffset() ?? undefined);
          for (const { offset, message } of entries) {
            if (message) await opts.onMessage(message);
            resolveOffset(offset);
            // Before anything of this batch can be committed (commitOffsetsIfNecessary below).
            this.advance(batch.partition, BigInt(offset) + 1n);
          }
          watched.phase('commit', batch.lastOffset());
          await commitOffsetsIfNecessary();
          await heartbeat();
        }),
    });
    // Seeks made right after run() apply before its first fetch (kafkajs creates the group synchronously);
    // after a crash the reader goes on from where it got. A retry inside kafkajs starts from the group's
    // committed offsets (or the beginning): slower, never wrong, as readers skip what they have folded.
    for (const partition of this.opts.startOffsets?.keys() ?? []) {
      const offset = this.positions.get(partition);
      if (offset !== undefined)
        this.consumer.seek({ topic: opts.topic, partition, offset: offset.toString() });
    }
    await running;
  }

  /** Moves a partition's position forward (never back). */
  private advance(partition: number, next: bigint): void {
    if (next > (this.positions.get(partition) ?? -1n)) this.positions.set(partition, next);
  }

  /**
   * The private group's committed offsets, taken as positions: everything before a committed offset was
   * resolved by this reader, so read. Asked for when a wait stalls (see the class comment).
   */
  private async adoptCommittedOffsets(): Promise<void> {
    const committed = await this.admin
      .fetchOffsets({ groupId: this.groupId, topics: [this.opts.topic] })
      .catch(() => []);
    for (const t of committed)
      for (const p of t.partitions) if (BigInt(p.offset) >= 0n) this.advance(p.partition, BigInt(p.offset));
  }

  /** The next offset to read on a partition: every record before it was handed out (or filtered). */
  position(partition: number): bigint | undefined {
    return this.positions.get(partition);
  }

  /** Resolves once everything committed to the given partitions (all when omitted) up to now was read. */
  async waitUntilCaughtUp(
    partitions?: number[],
    onProgress?: (read: bigint, total: bigint) => void,
  ): Promise<void> {
    const targets = (await this.admin.fetchTopicOffsets(this.opts.topic)).filter(
      (p) => !partitions || partitions.includes(p.partition),
    );
    const total = targets.reduce((s, t) => s + BigInt(t.high) - BigInt(t.low), 0n);
    const wait = { movedAt: Date.now() };
    this.waits.add(wait);
    try {
      await this.catchUp(targets, total, wait, onProgress);
    } finally {
      this.waits.delete(wait);
      this.reportStall();
    }
  }

  /** Sets `stream_reader_stalled_seconds` to the age of the oldest stalled wait (0 if none). */
  private reportStall(): void {
    if (!this.stalled) return;
    const now = Date.now();
    let oldest = now;
    for (const w of this.waits) oldest = Math.min(oldest, w.movedAt);
    this.stalled.set((now - oldest) / 1000);
  }

  private async catchUp(
    targets: { partition: number; high: string; low: string }[],
    total: bigint,
    wait: { movedAt: number },
    onProgress?: (read: bigint, total: bigint) => void,
  ): Promise<void> {
    // A wait that stops moving is said in the log (every 30 s), with where each partition stands, and in
    // `stream_reader_stalled_seconds` (from `wait.movedAt`).
    let lastRead = -1n;
    let checkedAt = Date.now();
    let loggedAt = 0;
    for (;;) {
      if (Date.now() - Math.max(wait.movedAt, checkedAt) >= STALL_CHECK_MS) {
        checkedAt = Date.now();
        await this.adoptCommittedOffsets();
      }
      let read = 0n;
      let done = true;
      for (const t of targets) {
        const high = BigInt(t.high);
        const low = BigInt(t.low);
        const at = this.positions.get(t.partition) ?? -1n;
        if (high > low && at < high) done = false;
        read += (at < low ? 0n : at > high ? high : at) - low;
      }
      onProgress?.(read, total);
      if (done) return;
      if (read !== lastRead) {
        lastRead = read;
        wait.movedAt = Date.now();
      } else if (Date.now() - Math.max(wait.movedAt, loggedAt) >= 30000) {
        loggedAt = Date.now();
        this.opts.logger.warn(
          {
            topic: this.opts.topic,
            groupId: this.groupId,
            partitions: targets.map((t) => ({
              partition: t.partition,
              read: (this.positions.get(t.partition) ?? -1n).toString(),
              end: t.high,
            })),
          },
          'stream reader has not moved for 30 s while a caller waits for it to catch up',
        );
      }
      this.reportStall();
      if (!this.running) throw new Error('stream reader stopped before catching up');
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  async stop(): Promise<void> {
    this.running = false;
    this.watchdog.stop();
    await this.consumer.disconnect().catch(() => undefined);
    await this.admin.deleteGroups([this.groupId]).catch(() => undefined);
    await this.admin.disconnect().catch(() => undefined);
  }
}

/**
 * A `waitUntilCaughtUp` progress callback that logs `message` with how much was read of how much, first at
 * once, then at most every `everyMs` (a rebuild from a long log at start: the decider's state, the screening directory), with
 * `fields()` added to each line.
 */
export function logCatchUpProgress(
  logger: Logger,
  message: string,
  fields: () => Record<string, unknown> = () => ({}),
  everyMs = 2000,
): (read: bigint, total: bigint) => void {
  let loggedAt = Date.now();
  return (read, total) => {
    if (Date.now() - loggedAt < everyMs) return;
    loggedAt = Date.now();
    logger.info({ read: read.toString(), total: total.toString(), ...fields() }, message);
  };
}
