import { Partitioners, type Kafka, type Producer } from 'kafkajs';
import type { MessageSerde } from './serde';
import type { OutgoingMessage } from './decoded-message';
import { produceSlices, type EncodedMessage } from './produce-slices';
import { CodedError } from '@crs/runtime';

export class BrokerUnavailableError extends CodedError {
  constructor(cause: unknown) {
    super('SERVICE_UNAVAILABLE', 'the message broker did not acknowledge the message', {
      cause: cause instanceof Error ? cause.message : String(cause),
    });
  }
}

/**
 * Idempotent producer with acks from all in-sync replicas: `publish` resolves only once the broker has
 * durably accepted every message, and rejects with BrokerUnavailableError within `ackTimeoutMs`
 * otherwise, so the caller never acknowledges something that was not stored.
 */
export class DurablePublisher {
  private readonly producer: Producer;
  private connected = false;

  constructor(
    kafka: Kafka,
    private readonly serde: MessageSerde,
    private readonly ackTimeoutMs = 5000,
  ) {
    this.producer = kafka.producer({
      idempotent: true,
      maxInFlightRequests: 1,
      allowAutoTopicCreation: false,
      // Same partitioner as every other producer: commands and events of one customer land in the
      // same partition number of their co-partitioned topics.
      createPartitioner: Partitioners.DefaultPartitioner,
    });
    this.producer.on(this.producer.events.DISCONNECT, () => {
      this.connected = false;
    });
  }

  async connect(): Promise<void> {
    await this.producer.connect();
    this.connected = true;
  }

  isConnected(): boolean {
    return this.connected;
  }

  async publish(messages: OutgoingMessage[]): Promise<void> {
    if (messages.length === 0) return;
    const byTopic = new Map<string, EncodedMessage[]>();
    for (const m of messages) {
      const value = await this.serde.encode(m.type, m.value);
      const list = byTopic.get(m.topic) ?? [];
      list.push({ key: m.key, value, headers: { type: m.type, ...(m.headers ?? {}) } });
      byTopic.set(m.topic, list);
    }
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        (async () => {
          if (!this.connected) await this.connect();
          // Size-bounded produce calls, one after the other (a batch of large records in one call would
          // exceed the broker's batch limit). If a later call fails, earlier ones may be stored: the
          // caller answers 503, and the client's retry is recognised by the decider (same
          // communicationNumber on the same customer).
          for (const topicMessages of produceSlices(byTopic)) {
            await this.producer.sendBatch({ acks: -1, timeout: this.ackTimeoutMs, topicMessages });
          }
        })(),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error('ack timeout')), this.ackTimeoutMs);
        }),
      ]);
    } catch (err) {
      throw new BrokerUnavailableError(err);
    } finally {
      if (timer) clearTimeout(timer);
    }
  }

  async disconnect(): Promise<void> {
    await this.producer.disconnect();
    this.connected = false;
  }
}
