import { Partitioners, type Consumer, type Kafka, type Producer, type KafkaMessage } from 'kafkajs';
import type { Logger, Registry } from '@crs/runtime';
import { consumerLagGauge, processingHistogram } from '@crs/runtime';
import type { MessageSerde } from './serde';
import { restartAfterFatalCrash } from './restart-after-fatal-crash';
import { DEFAULT_MAX_BYTES_PER_SEND, produceSlices, type EncodedMessage } from './produce-slices';
import { headerString, type DecodedMessage, type OutgoingMessage } from './decoded-message';

export interface TransactionalHandler<T> {
  /**
   * Decide what to emit for a batch of consumed messages (one partition, in order). Must not have side
   * effects outside the returned messages: the outputs and the consumed offsets commit in one Kafka
   * transaction, or not at all.
   */
  process(messages: DecodedMessage<T>[], partition: number): Promise<OutgoingMessage[]>;
  /** Called after the transaction committed (apply staged in-memory state). */
  committed?(partition: number): void;
  /** Called after an abort (discard staged in-memory state). */
  aborted?(partition: number): void;
  /**
   * Called before the first batch of a partition after every (re)assignment, once this instance's
   * producer for that partition has fenced any previous owner: the place to catch state up.
   */
  beforePartition?(partition: number): Promise<void>;
  /** A message that cannot be decoded is skipped inside the transaction; this records why. */
  poison?(raw: KafkaMessage, partition: number, error: unknown): OutgoingMessage[];
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
  maxMessagesPerTransaction?: number;
  /** Bytes per produce call inside a transaction (default 512 KiB, under the broker's 1 MiB batch limit). */
  maxBytesPerSend?: number;
}

/**
 * Exactly-once consume-process-produce over Kafka transactions (the pre-KIP-447 pattern, which kafkajs
 * supports): one transactional producer per input partition, outputs and input offsets committed
 * together, consumers downstream read committed only. A crash anywhere before the commit aborts the
 * transaction (the next owner's InitProducerId does it) and the batch is processed again from the last
 * committed offset.
 */
export class TransactionalProcessor<T> {
  private readonly consumer: Consumer;
  private readonly producers = new Map<number, Producer>();
  private readonly ready = new Set<number>();
  private assigned = false;
  private running = false;

  constructor(private readonly opts: TransactionalProcessorOptions<T>) {
    this.consumer = opts.kafka.consumer({
      groupId: opts.groupId,
      readUncommitted: false,
      sessionTimeout: 30000,
      heartbeatInterval: 3000,
      maxWaitTimeInMs: 200,
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
    const maxPerTxn = opts.maxMessagesPerTransaction ?? 500;
    const maxBytesPerSend = opts.maxBytesPerSend ?? DEFAULT_MAX_BYTES_PER_SEND;
    await this.consumer.connect();
    await this.consumer.subscribe({ topic: opts.topic, fromBeginning: true });
    await this.consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      eachBatch: async ({ batch, resolveOffset, heartbeat, isRunning, isStale }) => {
        const partition = batch.partition;
        const producer = await this.producerFor(partition);
        if (!this.ready.has(partition)) {
          await opts.handler.beforePartition?.(partition);
          this.ready.add(partition);
        }
        for (let i = 0; i < batch.messages.length; i += maxPerTxn) {
          if (!isRunning() || isStale()) return;
          const chunk = batch.messages.slice(i, i + maxPerTxn);
          const decoded: DecodedMessage<T>[] = [];
          const outputs: OutgoingMessage[] = [];
          for (const raw of chunk) {
            try {
              decoded.push({
                topic: batch.topic,
                partition,
                offset: raw.offset,
                key: raw.key?.toString('utf8') ?? '',
                type: headerString(raw.headers as Record<string, unknown>, 'type') ?? '',
                value: await opts.serde.decode<T>(raw.value ?? Buffer.alloc(0)),
              });
            } catch (err) {
              opts.logger.error({ err, partition, offset: raw.offset }, 'undecodable message skipped');
              outputs.push(...(opts.handler.poison?.(raw, partition, err) ?? []));
            }
          }
          const started = process.hrtime.bigint();
          const last = chunk[chunk.length - 1]!.offset;
          const txn = await producer.transaction();
          try {
            outputs.push(...(await opts.handler.process(decoded, partition)));
            const byTopic = new Map<string, EncodedMessage[]>();
            for (const m of outputs) {
              const list = byTopic.get(m.topic) ?? [];
              list.push({
                key: m.key,
                value: await opts.serde.encode(m.type, m.value),
                headers: { type: m.type, ...(m.headers ?? {}) },
              });
              byTopic.set(m.topic, list);
            }
            // Several produce calls in one transaction: each stays under the broker's batch limit.
            for (const topicMessages of produceSlices(byTopic, maxBytesPerSend)) {
              await txn.sendBatch({ acks: -1, topicMessages });
            }
            await txn.sendOffsets({
              consumerGroupId: opts.groupId,
              topics: [
                { topic: batch.topic, partitions: [{ partition, offset: (BigInt(last) + 1n).toString() }] },
              ],
            });
            await txn.commit();
          } catch (err) {
            await txn.abort().catch(() => undefined);
            opts.handler.aborted?.(partition);
            hist
              .labels(batch.topic, opts.groupId, 'aborted')
              .observe(Number(process.hrtime.bigint() - started) / 1e9);
            throw err;
          }
          opts.handler.committed?.(partition);
          const seconds = Number(process.hrtime.bigint() - started) / 1e9 / Math.max(chunk.length, 1);
          for (let k = 0; k < chunk.length; k++)
            hist.labels(batch.topic, opts.groupId, 'ok').observe(seconds);
          resolveOffset(last);
          lag
            .labels(batch.topic, String(partition), opts.groupId)
            .set(Number(BigInt(batch.highWatermark) - BigInt(last) - 1n));
          await heartbeat();
        }
      },
    });
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
    await this.consumer.disconnect().catch(() => undefined);
    await this.dropProducers();
  }

  private async dropProducers(): Promise<void> {
    const producers = [...this.producers.values()];
    this.producers.clear();
    this.ready.clear();
    await Promise.all(producers.map((p) => p.disconnect().catch(() => undefined)));
  }
}
