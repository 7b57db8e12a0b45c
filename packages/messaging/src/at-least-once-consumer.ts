import type { Consumer, Kafka } from 'kafkajs';
import type { Logger, Registry } from '@crs/runtime';
import { consumerLagGauge, processingHistogram } from '@crs/runtime';
import type { MessageSerde } from './serde';
import { restartAfterFatalCrash } from './restart-after-fatal-crash';
import { headerString, type DecodedMessage } from './decoded-message';
import { FETCH_MAX_BYTES_PER_PARTITION, batchStallOf, fetchTuningOf, type FetchTuning } from './kafka';
import { BatchWatchdog, type StalledBatch } from './batch-watchdog';

/**
 * For projectors and reactors whose effects are idempotent on their own (upserts guarded by stream
 * version, deliveries de-duplicated by event id): the offset is committed only after the handler
 * succeeded. A failing handler (database down) is retried with capped backoff, never skipped, so the
 * consumer pauses and catches up when the dependency is back.
 */
export class AtLeastOnceConsumer<T> {
  private readonly consumer: Consumer;
  private running = false;
  private assigned = false;
  private readonly watchdog: BatchWatchdog;

  constructor(
    private readonly opts: {
      kafka: Kafka;
      serde: MessageSerde;
      logger: Logger;
      metrics: Registry;
      groupId: string;
      topics: string[];
      /** One message at a time (or `handleBatch`). */
      handle?: (message: DecodedMessage<T>) => Promise<void>;
      /**
       * Instead of `handle` per message: the messages of a fetched batch in chunks of up to `maxBatch`
       * (default 200), in partition order, so a handler can write one chunk in a few bulk writes. Must be
       * idempotent for the whole chunk: a failure retries the whole chunk.
       */
      handleBatch?: (messages: DecodedMessage<T>[]) => Promise<void>;
      maxBatch?: number;
      /**
       * The message types (the `type` header) handed to the handler; others are skipped before decoding
       * and their offsets advance. Every type when omitted.
       */
      types?: readonly string[];
      fromBeginning?: boolean;
      partitionsConsumedConcurrently?: number;
      /**
       * Called whenever this member (re)joins its group, before it consumes under the new assignment: a
       * handler that caches what it read of the partitions it owned drops the cache here.
       */
      onGroupJoin?: () => void;
      /** This consumer's fetch tuning instead of its client's (`fetchTuningOf`): the projector's linger. */
      fetch?: FetchTuning;
      /** How long a batch may show no sign of life (`batchStallOf` its client by default: decision 0087). */
      stallMs?: number;
    },
  ) {
    if (!opts.handle && !opts.handleBatch) throw new Error('AtLeastOnceConsumer needs handle or handleBatch');
    this.consumer = opts.kafka.consumer({
      groupId: opts.groupId,
      readUncommitted: false,
      ...(opts.fetch ?? fetchTuningOf(opts.kafka)),
      maxBytesPerPartition: FETCH_MAX_BYTES_PER_PARTITION,
    });
    this.consumer.on(this.consumer.events.GROUP_JOIN, (e) => {
      this.assigned = Object.keys(e.payload.memberAssignment).length > 0;
      opts.onGroupJoin?.();
    });
    this.consumer.on(this.consumer.events.CRASH, () => {
      this.assigned = false;
    });
    restartAfterFatalCrash(this.consumer, {
      logger: opts.logger,
      groupId: opts.groupId,
      shouldRun: () => this.running,
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
  }

  private async run(): Promise<void> {
    const { opts } = this;
    const hist = processingHistogram(opts.metrics);
    const lag = consumerLagGauge(opts.metrics);
    await this.consumer.connect();
    await this.consumer.subscribe({ topics: opts.topics, fromBeginning: opts.fromBeginning ?? true });
    const wanted = opts.types ? new Set(opts.types) : undefined;
    await this.consumer.run({
      autoCommit: true,
      autoCommitInterval: 500,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: opts.partitionsConsumedConcurrently ?? 1,
      eachBatch: ({ batch, resolveOffset, heartbeat, commitOffsetsIfNecessary, isRunning, isStale }) =>
        this.watchdog.watch(batch.topic, batch.partition, async (watched) => {
          const decode = async (
            raw: (typeof batch.messages)[number],
          ): Promise<DecodedMessage<T> | undefined> => {
            const type = headerString(raw.headers as Record<string, unknown>, 'type');
            if (wanted && type !== undefined && !wanted.has(type)) return undefined;
            try {
              return {
                topic: batch.topic,
                partition: batch.partition,
                offset: raw.offset,
                key: raw.key?.toString('utf8') ?? '',
                type: type ?? '',
                value: await opts.serde.decode<T>(raw.value ?? Buffer.alloc(0)),
              };
            } catch (err) {
              opts.logger.error(
                { code: (err as { code?: string }).code, topic: batch.topic, offset: raw.offset },
                'undecodable message skipped',
              );
              return undefined;
            }
          };
          // Retried with capped backoff until it succeeds or the consumer stops: never skipped.
          const untilDone = async (work: () => Promise<void>, offset: string): Promise<void> => {
            for (let attempt = 1; ; attempt++) {
              watched.phase(`handler attempt ${attempt}`, offset);
              const started = process.hrtime.bigint();
              try {
                await work();
                hist
                  .labels(batch.topic, opts.groupId, 'ok')
                  .observe(Number(process.hrtime.bigint() - started) / 1e9);
                return;
              } catch (err) {
                hist
                  .labels(batch.topic, opts.groupId, 'error')
                  .observe(Number(process.hrtime.bigint() - started) / 1e9);
                if (!isRunning()) throw err;
                opts.logger.warn({ err, attempt, topic: batch.topic, offset }, 'handler failed; retrying');
                watched.phase('backoff', offset);
                await heartbeat().catch(() => undefined);
                await new Promise((r) => setTimeout(r, Math.min(200 * 2 ** Math.min(attempt, 5), 5000)));
              }
            }
          };
          const done = async (offset: string): Promise<void> => {
            watched.phase('commit', offset);
            resolveOffset(offset);
            lag
              .labels(batch.topic, String(batch.partition), opts.groupId)
              .set(Number(BigInt(batch.highWatermark) - BigInt(offset) - 1n));
            await commitOffsetsIfNecessary();
            await heartbeat();
          };
          const { handleBatch } = opts;
          if (handleBatch) {
            const size = opts.maxBatch ?? 200;
            for (let i = 0; i < batch.messages.length; i += size) {
              if (!isRunning() || isStale()) return;
              const chunk = batch.messages.slice(i, i + size);
              watched.phase('decode', chunk[0]!.offset);
              const decoded = (await Promise.all(chunk.map(decode))).filter(
                (m): m is DecodedMessage<T> => m !== undefined,
              );
              const last = chunk[chunk.length - 1]!.offset;
              if (decoded.length > 0) await untilDone(() => handleBatch(decoded), last);
              await done(last);
            }
            return;
          }
          const handle = opts.handle!;
          for (const raw of batch.messages) {
            if (!isRunning() || isStale()) return;
            watched.phase('decode', raw.offset);
            const decoded = await decode(raw);
            if (decoded) await untilDone(() => handle(decoded), raw.offset);
            await done(raw.offset);
          }
        }),
    });
  }

  async stop(): Promise<void> {
    this.running = false;
    this.watchdog.stop();
    await this.consumer.disconnect().catch(() => undefined);
  }
}
