import type { Admin, Consumer, Kafka } from 'kafkajs';
import type { Logger } from '@crs/runtime';
import { randomUUID } from 'node:crypto';
import type { MessageSerde } from './serde';
import { restartAfterFatalCrash } from './restart-after-fatal-crash';
import { headerString, type DecodedMessage } from './decoded-message';

/**
 * Reads a topic from its beginning, for rebuilding state (the decider) and projections (replay).
 * kafkajs has no manual partition assignment, so the reader joins a private, throw-away consumer group;
 * how far it has read is the group's committed offset, which also moves past transaction markers that
 * are never handed to the application — the only reliable "caught up" signal with read-committed.
 */
export class StreamReader<T> {
  private readonly consumer: Consumer;
  private readonly admin: Admin;
  private readonly groupId: string;
  private running = false;

  constructor(
    private readonly opts: {
      kafka: Kafka;
      serde: MessageSerde;
      logger: Logger;
      topic: string;
      groupPrefix: string;
      onMessage: (message: DecodedMessage<T>) => void | Promise<void>;
    },
  ) {
    this.groupId = `${opts.groupPrefix}-${randomUUID()}`;
    this.consumer = opts.kafka.consumer({
      groupId: this.groupId,
      readUncommitted: false,
      maxWaitTimeInMs: 100,
    });
    this.admin = opts.kafka.admin();
    restartAfterFatalCrash(this.consumer, {
      logger: opts.logger,
      groupId: this.groupId,
      shouldRun: () => this.running,
      run: () => this.run(),
    });
  }

  async start(): Promise<void> {
    await this.admin.connect();
    this.running = true;
    await this.run();
  }

  private async run(): Promise<void> {
    const { opts } = this;
    await this.consumer.connect();
    await this.consumer.subscribe({ topic: opts.topic, fromBeginning: true });
    await this.consumer.run({
      autoCommit: true,
      autoCommitInterval: 100,
      eachBatch: async ({ batch, resolveOffset, heartbeat, commitOffsetsIfNecessary }) => {
        for (const raw of batch.messages) {
          let value: T;
          try {
            value = await opts.serde.decode<T>(raw.value ?? Buffer.alloc(0));
          } catch (err) {
            opts.logger.error(
              { err, partition: batch.partition, offset: raw.offset },
              'undecodable event skipped',
            );
            resolveOffset(raw.offset);
            continue;
          }
          await opts.onMessage({
            topic: batch.topic,
            partition: batch.partition,
            offset: raw.offset,
            key: raw.key?.toString('utf8') ?? '',
            type: headerString(raw.headers as Record<string, unknown>, 'type') ?? '',
            value,
          });
          resolveOffset(raw.offset);
        }
        await commitOffsetsIfNecessary();
        await heartbeat();
      },
    });
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
    for (;;) {
      const [committed] = await this.admin.fetchOffsets({ groupId: this.groupId, topics: [this.opts.topic] });
      const byPartition = new Map(committed?.partitions.map((p) => [p.partition, BigInt(p.offset)]) ?? []);
      let read = 0n;
      let done = true;
      for (const t of targets) {
        const high = BigInt(t.high);
        const low = BigInt(t.low);
        const at = byPartition.get(t.partition) ?? -1n;
        if (high > low && at < high) done = false;
        read += (at < low ? 0n : at > high ? high : at) - low;
      }
      onProgress?.(read, total);
      if (done) return;
      if (!this.running) throw new Error('stream reader stopped before catching up');
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.consumer.disconnect().catch(() => undefined);
    await this.admin.deleteGroups([this.groupId]).catch(() => undefined);
    await this.admin.disconnect().catch(() => undefined);
  }
}
