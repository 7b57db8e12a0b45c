import type { Consumer, Kafka } from 'kafkajs';
import type { Logger, Registry } from '@crs/runtime';
import { consumerLagGauge, processingHistogram } from '@crs/runtime';
import type { MessageSerde } from './serde';
import { restartAfterFatalCrash } from './restart-after-fatal-crash';
import { headerString, type DecodedMessage } from './decoded-message';

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

  constructor(
    private readonly opts: {
      kafka: Kafka;
      serde: MessageSerde;
      logger: Logger;
      metrics: Registry;
      groupId: string;
      topics: string[];
      handle: (message: DecodedMessage<T>) => Promise<void>;
      fromBeginning?: boolean;
      partitionsConsumedConcurrently?: number;
    },
  ) {
    this.consumer = opts.kafka.consumer({
      groupId: opts.groupId,
      readUncommitted: false,
      maxWaitTimeInMs: 200,
    });
    this.consumer.on(this.consumer.events.GROUP_JOIN, (e) => {
      this.assigned = Object.keys(e.payload.memberAssignment).length > 0;
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
  }

  isReady(): boolean {
    return this.running && this.assigned;
  }

  async start(): Promise<void> {
    this.running = true;
    await this.run();
  }

  private async run(): Promise<void> {
    const { opts } = this;
    const hist = processingHistogram(opts.metrics);
    const lag = consumerLagGauge(opts.metrics);
    await this.consumer.connect();
    await this.consumer.subscribe({ topics: opts.topics, fromBeginning: opts.fromBeginning ?? true });
    await this.consumer.run({
      autoCommit: true,
      autoCommitInterval: 500,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: opts.partitionsConsumedConcurrently ?? 1,
      eachBatch: async ({
        batch,
        resolveOffset,
        heartbeat,
        commitOffsetsIfNecessary,
        isRunning,
        isStale,
      }) => {
        for (const raw of batch.messages) {
          if (!isRunning() || isStale()) return;
          let decoded: DecodedMessage<T> | undefined;
          try {
            decoded = {
              topic: batch.topic,
              partition: batch.partition,
              offset: raw.offset,
              key: raw.key?.toString('utf8') ?? '',
              type: headerString(raw.headers as Record<string, unknown>, 'type') ?? '',
              value: await opts.serde.decode<T>(raw.value ?? Buffer.alloc(0)),
            };
          } catch (err) {
            opts.logger.error({ err, topic: batch.topic, offset: raw.offset }, 'undecodable message skipped');
          }
          if (decoded) {
            for (let attempt = 1; ; attempt++) {
              const started = process.hrtime.bigint();
              try {
                await opts.handle(decoded);
                hist
                  .labels(batch.topic, opts.groupId, 'ok')
                  .observe(Number(process.hrtime.bigint() - started) / 1e9);
                break;
              } catch (err) {
                hist
                  .labels(batch.topic, opts.groupId, 'error')
                  .observe(Number(process.hrtime.bigint() - started) / 1e9);
                if (!isRunning()) throw err;
                opts.logger.warn(
                  { err, attempt, topic: batch.topic, offset: raw.offset },
                  'handler failed; retrying',
                );
                await heartbeat().catch(() => undefined);
                await new Promise((r) => setTimeout(r, Math.min(200 * 2 ** Math.min(attempt, 5), 5000)));
              }
            }
          }
          resolveOffset(raw.offset);
          lag
            .labels(batch.topic, String(batch.partition), opts.groupId)
            .set(Number(BigInt(batch.highWatermark) - BigInt(raw.offset) - 1n));
          await commitOffsetsIfNecessary();
          await heartbeat();
        }
      },
    });
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.consumer.disconnect().catch(() => undefined);
  }
}
