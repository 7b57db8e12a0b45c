import { Partitioners, type Consumer, type Kafka, type Producer, type KafkaMessage } from 'kafkajs';
import type { Logger, Registry } from '@crs/runtime';
import { Counter, consumerLagGauge, getOrCreate, processingHistogram } from '@crs/runtime';
import type { MessageSerde } from './serde';
import { restartAfterFatalCrash } from './restart-after-fatal-crash';
import { DEFAULT_MAX_BYTES_PER_SEND, produceSlices, type EncodedMessage } from './produce-slices';
import { headerString, type DecodedMessage, type OutgoingMessage } from './decoded-message';
import { FETCH_MAX_BYTES_PER_PARTITION, batchStallOf, fetchTuningOf, transactionLingerOf } from './kafka';
import { BatchWatchdog, type StalledBatch } from './batch-watchdog';
import { DEFAULT_LINGER_RULE, TransactionLinger, type LingerRule } from './transaction-linger';

export interface TransactionalHandler<T> {
  /**
   * The message types (the `type` header) this handler acts on. Messages of other types are skipped
   * before decoding and never reach `process`; their offsets advance all the same. Every type when omitted.
   */
  types?: readonly string[];
  /**
   * Decide what to emit for a batch of consumed messages (one partition, in order). Must not have side
   * effects outside the returned messages: the outputs and the consumed offsets commit in one Kafka
   * transaction, or not at all. Given the same state, the same messages must give the same outputs: a
   * batch that emitted nothing commits its offsets without a transaction and may be processed again
   * after a crash, where it must emit nothing again.
   */
  process(messages: DecodedMessage<T>[], partition: number): Promise<OutgoingMessage[]>;
  /** Called after the transaction committed, or after a processed batch that emitted nothing (apply staged in-memory state). */
  committed?(partition: number): void;
  /** Called after an abort of a batch that was processed (discard staged in-memory state). */
  aborted?(partition: number): void;
  /**
   * Called before the first batch of a partition after every (re)assignment, once this instance's
   * producer for that partition has fenced any previous owner: the place to catch state up.
   */
  beforePartition?(partition: number): Promise<void>;
  /** A message that cannot be decoded is skipped inside the transaction; this records why. */
  poison?(raw: KafkaMessage, partition: number, error: unknown): OutgoingMessage[];
  /**
   * Work a partition does while it is idle: asked when an owned partition has had no batch for `idleMs`
   * (state snapshots its busy transactions left behind, decision 0081). The outputs commit in a
   * transaction of their own, without input offsets, and `committed` (or `aborted`) follows as for a
   * batch. Asked again at once while it returns outputs and no batch of the partition is waiting; a
   * batch that arrives meanwhile waits for the transaction under way only.
   */
  idle?(partition: number): Promise<OutgoingMessage[]>;
}

export interface TransactionalProcessorOptions<T> {
  kafka: Kafka;
  serde: MessageSerde;
  logger: Logger;
  metrics: Registry;
  groupId: string;
  topic: string;
  /** Transactional ids are `<prefix>-<topic>-<partition>`: a new owner of a partition fences the old one. */
  transactionalIdPrefix: string;
  handler: TransactionalHandler<T>;
  /** Messages per transaction (default 2,000): a fetched batch is one transaction up to this many. */
  maxMessagesPerTransaction?: number;
  /** Bytes per produce call inside a transaction (default 512 KiB, under the broker's 1 MiB batch limit). */
  maxBytesPerSend?: number;
  /**
   * Partitions processed at the same time (default 8). Each partition has its own transactional producer
   * and kafkajs hands a partition's batches over one after the other, so order within a partition holds;
   * a handler must keep its staged state per partition (or set 1).
   */
  partitionsConsumedConcurrently?: number;
  /**
   * Check every consumed payload against its registered schema (default false: our own producers
   * validate on encode). For topics written by systems outside this repository.
   */
  validate?: boolean;
  /**
   * The group session timeout (default 30 s; the broker's `group.min.session.timeout.ms`, 6 s by default,
   * is the floor). Heartbeats go every 3 s, also during `beforePartition`.
   */
  sessionTimeout?: number;
  /** How long a partition goes without a batch before the handler's `idle` work is asked for (default 5 s). */
  idleMs?: number;
  /**
   * The wait after a batch before the partition's next one under load (decision 0086; `TransactionLinger`);
   * the client's `KAFKA_TXN_LINGER_MS` (default 0: none) when omitted.
   */
  lingerMs?: number;
  /** How long a batch may show no sign of life (`batchStallOf` its client by default: decision 0087). */
  stallMs?: number;
}

/** Commands of a fetched batch decided in one transaction, at most (`maxMessagesPerTransaction`). */
export const DEFAULT_MAX_PER_TRANSACTION = 2000;
const DEFAULT_PARTITIONS_CONCURRENTLY = 8;
const CONCURRENT_TRANSACTION_ATTEMPTS = 20;
const HEARTBEAT_INTERVAL_MS = 3000;
const DEFAULT_IDLE_MS = 5000;

/**
 * Awaits `work` (a partition's catch-up) while heartbeating the group. kafkajs heartbeats only between
 * fetches and when `eachBatch` calls `heartbeat()`, so a catch-up longer than the session timeout got
 * the member expelled and its first batch aborted and redone after the rejoin. kafkajs sends a heartbeat
 * only once its interval has passed since the last answer, so this offers one a few times per interval
 * (`everyMs`), or every other tick would be skipped. A heartbeat that fails (a rebalance under way, a
 * member the group no longer knows) ends the wait with its error, so the member rejoins at once; the
 * catch-up itself goes on, and the partition's next batch waits for it again.
 */
async function heartbeatingWhile<R>(
  work: Promise<R>,
  heartbeat: () => Promise<void>,
  everyMs: number,
): Promise<R> {
  let timer: NodeJS.Timeout | undefined;
  const failed = new Promise<never>((_, reject) => {
    timer = setInterval(() => heartbeat().catch(reject), everyMs);
  });
  // Whichever loses the race must not surface as an unhandled rejection.
  failed.catch(() => undefined);
  work.catch(() => undefined);
  try {
    return await Promise.race([work, failed]);
  } finally {
    clearInterval(timer);
  }
}

function transactionsCounter(registry: Registry): Counter<'topic' | 'handler' | 'outcome'> {
  return getOrCreate(
    registry,
    'kafka_transactions_total',
    () =>
      new Counter({
        name: 'kafka_transactions_total',
        help: 'Consume-transform-produce commits by outcome: committed or aborted transaction, offsets only (a batch that emitted nothing, no transaction)',
        labelNames: ['topic', 'handler', 'outcome'],
        registers: [registry],
      }),
  );
}

/**
 * Exactly-once consume-process-produce over Kafka transactions (the pre-KIP-447 pattern, which kafkajs
 * supports): one transactional producer per input partition, outputs and input offsets committed
 * together, consumers downstream read committed only. A crash anywhere before the commit aborts the
 * transaction (the next owner's InitProducerId does it) and the batch is processed again from the last
 * committed offset.
 *
 * Cost (decision 0013): a kafkajs transaction costs about 9 round trips (it looks the coordinators up
 * again for every step), so a fetched batch is one transaction, partitions run concurrently, and a batch
 * that emitted nothing opens no transaction: its offsets ride along with the partition's next
 * transaction in the same batch, or, at the end of the batch, are committed with one plain group offset
 * commit. That is safe because those messages produced nothing: the commit only moves past them, after
 * every earlier transaction of the partition committed; the group generation fences an old owner; and if
 * the commit is lost, processing them again emits nothing again.
 */
export class TransactionalProcessor<T> {
  private readonly consumer: Consumer;
  private readonly producers = new Map<number, Producer>();
  private readonly ready = new Set<number>();
  private assigned = false;
  private running = false;
  /** Its batches, each of which must keep showing signs of life (decision 0087). */
  private readonly watchdog: BatchWatchdog;
  /** Per partition: the batch or idle transaction under way (one at a time on a partition's producer). */
  private readonly busy = new Map<number, Promise<void>>();
  /** Partitions with a batch waiting for the idle transaction under way: idle work yields to them. */
  private readonly waiting = new Set<number>();
  /** Per partition: when its last batch ended. */
  private readonly lastBatchAt = new Map<number, number>();
  /** Per partition: its recent keys and last batch, for the linger under load (decision 0086). */
  private readonly lingers = new Map<number, TransactionLinger>();
  /** The linger rule in force (decision 0086): the client's `KAFKA_TXN_LINGER_MS` or `lingerMs`. */
  readonly lingerRule: Readonly<LingerRule>;
  private idleTimer: NodeJS.Timeout | undefined;
  private idleRun: Promise<void> | undefined;

  constructor(private readonly opts: TransactionalProcessorOptions<T>) {
    this.lingerRule = { ...DEFAULT_LINGER_RULE, ms: opts.lingerMs ?? transactionLingerOf(opts.kafka) };
    this.consumer = opts.kafka.consumer({
      groupId: opts.groupId,
      readUncommitted: false,
      sessionTimeout: opts.sessionTimeout ?? 30000,
      heartbeatInterval: HEARTBEAT_INTERVAL_MS,
      ...fetchTuningOf(opts.kafka),
      maxBytesPerPartition: FETCH_MAX_BYTES_PER_PARTITION,
      retry: { retries: 10 },
    });
    this.consumer.on(this.consumer.events.GROUP_JOIN, (e) => {
      // Any rebalance may hand us partitions whose state we have not seen: catch up again.
      this.ready.clear();
      this.assigned = Object.keys(e.payload.memberAssignment).length > 0;
    });
    this.consumer.on(this.consumer.events.CRASH, (e) => {
      opts.logger.error({ err: e.payload.error, restart: e.payload.restart }, 'consumer crashed');
      this.assigned = false;
    });
    restartAfterFatalCrash(this.consumer, {
      logger: opts.logger,
      groupId: opts.groupId,
      shouldRun: () => this.running,
      // The crashed run may have left a producer mid-transaction: new producers (same transactional
      // ids) fence whatever it left open, and every partition catches up again before its first batch.
      beforeRestart: () => this.dropProducers(),
      run: () => this.run(),
    });
    this.watchdog = new BatchWatchdog({
      logger: opts.logger,
      groupId: opts.groupId,
      stallMs: opts.stallMs ?? batchStallOf(opts.kafka),
      metrics: opts.metrics,
    });
  }

  isReady(): boolean {
    return this.running && this.assigned;
  }

  /** False while a batch has shown no sign of life for the stall bound (decision 0087). */
  isLive(): boolean {
    return this.stalled() === undefined;
  }

  /** The batch that has shown no sign of life for the stall bound, if any. */
  stalled(): StalledBatch | undefined {
    return this.watchdog.check();
  }

  async start(): Promise<void> {
    this.running = true;
    this.watchdog.start();
    await this.run();
    this.startIdleWork();
  }

  private async run(): Promise<void> {
    const { opts } = this;
    const hist = processingHistogram(opts.metrics);
    const lag = consumerLagGauge(opts.metrics);
    const transactions = transactionsCounter(opts.metrics);
    const maxPerTxn = opts.maxMessagesPerTransaction ?? DEFAULT_MAX_PER_TRANSACTION;
    const wanted = opts.handler.types ? new Set(opts.handler.types) : undefined;
    const decode = (buffer: Buffer): Promise<T> =>
      opts.validate ? opts.serde.decodeValidated<T>(buffer) : opts.serde.decode<T>(buffer);
    await this.consumer.connect();
    await this.consumer.subscribe({ topic: opts.topic, fromBeginning: true });
    await this.consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: opts.partitionsConsumedConcurrently ?? DEFAULT_PARTITIONS_CONCURRENTLY,
      eachBatch: ({ batch, resolveOffset, heartbeat, isRunning, isStale }) =>
        this.watchdog.watch(batch.topic, batch.partition, async (watched) => {
          const partition = batch.partition;
          // An idle transaction of the partition under way finishes first (it never rejects; the group
          // hears from us meanwhile, as during a catch-up).
          this.waiting.add(partition);
          try {
            const idle = this.busy.get(partition);
            watched.phase('idle transaction');
            if (idle) await heartbeatingWhile(idle, heartbeat, HEARTBEAT_INTERVAL_MS / 3);
          } finally {
            this.waiting.delete(partition);
          }
          const release = this.claim(partition);
          try {
            // Under load, what arrives within the linger joins the next fetch (decision 0086).
            const linger = this.lingerOf(partition)?.delay(Date.now()) ?? 0;
            if (linger > 0) await new Promise((r) => setTimeout(r, linger));
            watched.phase('producer');
            const producer = await this.producerFor(partition);
            if (!this.ready.has(partition)) {
              // A catch-up may rightly take long (it logs its own progress): not judged.
              watched.unjudged('catch-up');
              if (opts.handler.beforePartition)
                await heartbeatingWhile(
                  opts.handler.beforePartition(partition),
                  heartbeat,
                  HEARTBEAT_INTERVAL_MS / 3,
                );
              this.ready.add(partition);
            }
            /** The last offset of a chunk that emitted nothing and whose commit is still owed. */
            let owed: string | undefined;
            for (let i = 0; i < batch.messages.length; i += maxPerTxn) {
              if (!isRunning() || isStale()) return;
              const chunk = batch.messages.slice(i, i + maxPerTxn);
              const last = chunk[chunk.length - 1]!.offset;
              watched.phase('decode', chunk[0]!.offset);
              const started = process.hrtime.bigint();
              const decoded: DecodedMessage<T>[] = [];
              const outputs: OutgoingMessage[] = [];
              for (const raw of chunk) {
                const type = headerString(raw.headers as Record<string, unknown>, 'type');
                // Ignored types are not decoded; a message without the header is decoded and handed over.
                if (wanted && type !== undefined && !wanted.has(type)) continue;
                try {
                  decoded.push({
                    topic: batch.topic,
                    partition,
                    offset: raw.offset,
                    key: raw.key?.toString('utf8') ?? '',
                    type: type ?? '',
                    value: await decode(raw.value ?? Buffer.alloc(0)),
                  });
                } catch (err) {
                  // The code and kind only: a validation error may quote the payload (personal data).
                  opts.logger.error(
                    {
                      code: (err as { code?: string }).code ?? 'MESSAGE_INVALID',
                      error: (err as Error).name,
                      partition,
                      offset: raw.offset,
                    },
                    'undecodable message skipped',
                  );
                  outputs.push(...(opts.handler.poison?.(raw, partition, err) ?? []));
                }
              }
              const processed = decoded.length > 0;
              try {
                watched.phase('process', chunk[0]!.offset);
                if (processed) outputs.push(...(await opts.handler.process(decoded, partition)));
                if (outputs.length > 0) {
                  watched.phase('transaction', last);
                  await this.commitTransaction(producer, partition, outputs, {
                    topic: batch.topic,
                    last,
                  });
                  owed = undefined;
                  transactions.labels(batch.topic, opts.groupId, 'committed').inc();
                } else {
                  owed = last;
                }
              } catch (err) {
                if (processed) opts.handler.aborted?.(partition);
                transactions.labels(batch.topic, opts.groupId, 'aborted').inc();
                hist
                  .labels(batch.topic, opts.groupId, 'aborted')
                  .observe(Number(process.hrtime.bigint() - started) / 1e9);
                throw err;
              }
              if (processed) opts.handler.committed?.(partition);
              const seconds = Number(process.hrtime.bigint() - started) / 1e9 / Math.max(chunk.length, 1);
              for (let k = 0; k < chunk.length; k++)
                hist.labels(batch.topic, opts.groupId, 'ok').observe(seconds);
              resolveOffset(last);
              lag
                .labels(batch.topic, String(partition), opts.groupId)
                .set(Number(BigInt(batch.highWatermark) - BigInt(last) - 1n));
              watched.phase('heartbeat', last);
              await heartbeat();
            }
            if (owed !== undefined && isRunning() && !isStale()) {
              watched.phase('commit offsets', owed);
              try {
                await this.consumer.commitOffsets([
                  { topic: batch.topic, partition, offset: (BigInt(owed) + 1n).toString() },
                ]);
                transactions.labels(batch.topic, opts.groupId, 'offsets_only').inc();
              } catch (err) {
                // Nothing is lost: the next transaction of the partition covers these offsets, or whoever
                // owns the partition next processes those messages again and they emit nothing again.
                opts.logger.warn(
                  { code: (err as { type?: string }).type, partition, offset: owed },
                  'offsets of a batch without outputs not committed; left to the next commit',
                );
              }
            }
          } finally {
            const now = Date.now();
            this.lastBatchAt.set(partition, now);
            this.lingerOf(partition)?.batchEnded(
              batch.messages.map((m) => m.key?.toString('latin1') ?? ''),
              now,
            );
            release();
          }
        }),
    });
  }

  /** The partition's linger; none when it is off (the default), so a batch pays nothing for it. */
  private lingerOf(partition: number): TransactionLinger | undefined {
    if (this.lingerRule.ms <= 0) return undefined;
    let linger = this.lingers.get(partition);
    if (!linger) this.lingers.set(partition, (linger = new TransactionLinger(this.lingerRule)));
    return linger;
  }

  /** Marks the partition busy (a batch or an idle transaction under way); the returned call ends it. */
  private claim(partition: number): () => void {
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    this.busy.set(partition, mine);
    return () => {
      if (this.busy.get(partition) === mine) this.busy.delete(partition);
      release();
    };
  }

  /** Asks the handler for its idle work now and then (`idleMs` / 2), one round at a time. */
  private startIdleWork(): void {
    if (!this.opts.handler.idle || this.idleTimer) return;
    const idleMs = this.opts.idleMs ?? DEFAULT_IDLE_MS;
    this.idleTimer = setInterval(
      () => {
        this.idleRun ??= this.idleWork(idleMs).finally(() => (this.idleRun = undefined));
      },
      Math.max(50, Math.floor(idleMs / 2)),
    );
    this.idleTimer.unref();
  }

  /**
   * Every owned partition (caught up since the last group join, its producer connected) without a batch
   * for `idleMs`: the handler's idle outputs in transactions of their own while it has some and no batch
   * of the partition waits.
   */
  private async idleWork(idleMs: number): Promise<void> {
    for (const partition of [...this.ready]) {
      while (
        this.running &&
        this.ready.has(partition) &&
        !this.busy.has(partition) &&
        !this.waiting.has(partition) &&
        Date.now() - (this.lastBatchAt.get(partition) ?? 0) >= idleMs
      ) {
        const producer = this.producers.get(partition);
        if (!producer) break;
        const release = this.claim(partition);
        let wrote: boolean;
        try {
          wrote = await this.idleTransaction(producer, partition);
        } finally {
          release();
        }
        if (!wrote) break;
      }
    }
  }

  /** One transaction of idle outputs; whether it wrote any. A failure is logged and left to the next round. */
  private async idleTransaction(producer: Producer, partition: number): Promise<boolean> {
    const { opts } = this;
    const transactions = transactionsCounter(opts.metrics);
    let outputs: OutgoingMessage[] = [];
    try {
      outputs = await opts.handler.idle!(partition);
      if (outputs.length === 0) return false;
      await this.commitTransaction(producer, partition, outputs);
    } catch (err) {
      if (outputs.length > 0) opts.handler.aborted?.(partition);
      transactions.labels(opts.topic, opts.groupId, 'aborted').inc();
      opts.logger.warn(
        {
          code: (err as { type?: string; code?: string }).type ?? (err as { code?: string }).code,
          partition,
        },
        'idle transaction not committed; its work waits for a later one',
      );
      return false;
    }
    opts.handler.committed?.(partition);
    transactions.labels(opts.topic, opts.groupId, 'idle').inc();
    return true;
  }

  /** Outputs and the consumed offsets up to `offsets.last` (if any: idle work has none) in one transaction. */
  private async commitTransaction(
    producer: Producer,
    partition: number,
    outputs: OutgoingMessage[],
    offsets?: { topic: string; last: string },
  ): Promise<void> {
    const { opts } = this;
    const maxBytesPerSend = opts.maxBytesPerSend ?? DEFAULT_MAX_BYTES_PER_SEND;
    // Encoded (and validated) before the transaction opens: a bad output aborts nothing.
    const byTopic = new Map<string, EncodedMessage[]>();
    for (const m of outputs) {
      const list = byTopic.get(m.topic) ?? [];
      list.push({
        key: m.key,
        value: opts.serde.encodeNow(m.type, m.value),
        headers: { type: m.type, ...(m.headers ?? {}) },
      });
      byTopic.set(m.topic, list);
    }
    for (let attempt = 1; ; attempt++) {
      const txn = await producer.transaction();
      let committing = false;
      try {
        // Several produce calls in one transaction: each stays under the broker's batch limit.
        for (const topicMessages of produceSlices(byTopic, maxBytesPerSend)) {
          await txn.sendBatch({ acks: -1, topicMessages });
        }
        if (offsets)
          await txn.sendOffsets({
            consumerGroupId: opts.groupId,
            topics: [
              {
                topic: offsets.topic,
                partitions: [{ partition, offset: (BigInt(offsets.last) + 1n).toString() }],
              },
            ],
          });
        committing = true;
        await txn.commit();
        return;
      } catch (err) {
        await txn.abort().catch(() => undefined);
        // The coordinator answers CONCURRENT_TRANSACTIONS while the markers of the partition's previous
        // transaction are still being written; kafkajs does not retry it inside a transaction. Before
        // the commit was asked for, nothing of this one can be visible: abort and run it again. An error
        // from the commit itself is ambiguous and goes up (the batch is processed again).
        const retry =
          !committing &&
          (err as { type?: string }).type === 'CONCURRENT_TRANSACTIONS' &&
          attempt < CONCURRENT_TRANSACTION_ATTEMPTS;
        if (!retry) {
          // kafkajs took the sequence numbers of a failed produce back although the broker may have stored
          // it (in this transaction, now aborted); the broker would take the next transaction's batch of the
          // same size for a repeat and acknowledge it without storing it. A new producer (same
          // transactional id) bumps the epoch and numbers from zero (decision 0044).
          await this.dropProducer(partition, producer);
          throw err;
        }
        await new Promise((r) => setTimeout(r, 5 * attempt));
      }
    }
  }

  private async producerFor(partition: number): Promise<Producer> {
    let producer = this.producers.get(partition);
    if (!producer) {
      producer = this.opts.kafka.producer({
        transactionalId: `${this.opts.transactionalIdPrefix}-${this.opts.topic}-${partition}`,
        idempotent: true,
        maxInFlightRequests: 1,
        transactionTimeout: 30000,
        allowAutoTopicCreation: false,
        createPartitioner: Partitioners.DefaultPartitioner,
      });
      await producer.connect();
      this.producers.set(partition, producer);
    }
    return producer;
  }

  async stop(): Promise<void> {
    this.running = false;
    this.watchdog.stop();
    clearInterval(this.idleTimer);
    this.idleTimer = undefined;
    await this.consumer.disconnect().catch(() => undefined);
    await this.idleRun;
    await this.dropProducers();
  }

  /** Drops a partition's producer (if it is still that one); its next batch connects a new one. */
  private async dropProducer(partition: number, producer: Producer): Promise<void> {
    if (this.producers.get(partition) === producer) this.producers.delete(partition);
    await producer.disconnect().catch(() => undefined);
  }

  private async dropProducers(): Promise<void> {
    const producers = [...this.producers.values()];
    this.producers.clear();
    this.ready.clear();
    await Promise.all(producers.map((p) => p.disconnect().catch(() => undefined)));
  }
}
