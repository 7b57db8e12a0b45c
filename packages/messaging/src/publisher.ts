import { Partitioners, type Kafka, type Producer } from 'kafkajs';
import type { MessageSerde } from './serde';
import type { OutgoingMessage } from './decoded-message';
import { produceSlices, type EncodedMessage } from './produce-slices';
import { ErrorCodes } from '@crs/contracts';
import { CodedError, GroupFlusher } from '@crs/runtime';

export class BrokerUnavailableError extends CodedError {
  constructor(cause: unknown) {
    super(ErrorCodes.ServiceUnavailable, 'the message broker did not acknowledge the message', {
      cause: cause instanceof Error ? cause.message : String(cause),
    });
  }
}

export interface DurablePublisherOptions {
  /**
   * How long a publish call that finds the producer idle waits for others to join its produce call
   * (group commit); 0 = only those that arrive in the same turn of the event loop. Calls that arrive
   * while a produce call is in flight always wait for it and then go together.
   */
  lingerMs?: number;
}

/** One publish call waiting for its group's produce calls. */
interface Waiter {
  byTopic: Map<string, EncodedMessage[]>;
  /** Messages of this call not yet acknowledged by the broker. */
  unacked: number;
  settled: boolean;
  timer: NodeJS.Timeout;
  resolve: () => void;
  reject: (err: unknown) => void;
  /** Set while the waiter's group is being sent. */
  onSettled?: () => void;
}

/**
 * Idempotent producer with acks from all in-sync replicas: `publish` resolves only once the broker has
 * durably accepted every message of that call, and rejects with BrokerUnavailableError within
 * `ackTimeoutMs` otherwise, so the caller never acknowledges something that was not stored.
 *
 * Group commit: concurrent `publish` calls are coalesced into one `sendBatch` (one produce request
 * per broker) while the previous one is in flight, so the producer sends large batches at high rates
 * instead of one round trip per call. Each caller still gets its own outcome: a call resolves once
 * every produce call holding one of its messages was acknowledged, and a call still queued when its
 * ack timeout passes is taken out of the queue and never sent. `maxInFlightRequests` stays 1: kafkajs
 * 2.x has none of the client-side sequence handling that makes more than one in-flight request safe
 * for an idempotent producer (tulios/kafkajs#980, KIP-5494), and it serialises produce requests per
 * broker for an idempotent producer anyway; coalescing is what raises the rate (docs/decisions/0011).
 */
export class DurablePublisher {
  private producer: Producer;
  private connected = false;
  /** Producers retired after a failed or abandoned send (decision 0044): the ingress's `kafka_producers_replaced`. */
  private replaced = 0;
  private readonly queue: Waiter[] = [];
  private readonly flusher: GroupFlusher;

  constructor(
    private readonly kafka: Kafka,
    private readonly serde: MessageSerde,
    private readonly ackTimeoutMs = 5000,
    options: DurablePublisherOptions = {},
  ) {
    this.flusher = new GroupFlusher({
      lingerMs: options.lingerMs ?? 0,
      pending: () => this.queue.length > 0,
      run: () => this.flush(),
    });
    this.producer = this.createProducer();
  }

  private createProducer(): Producer {
    const producer = this.kafka.producer({
      idempotent: true,
      maxInFlightRequests: 1,
      allowAutoTopicCreation: false,
      // Same partitioner as every other producer: commands and events of one customer land in the
      // same partition number of their co-partitioned topics.
      createPartitioner: Partitioners.DefaultPartitioner,
    });
    producer.on(producer.events.DISCONNECT, () => {
      if (producer === this.producer) this.connected = false;
    });
    return producer;
  }

  /** How many producers were retired after a failed or abandoned send (decision 0044). */
  replacedProducers(): number {
    return this.replaced;
  }

  /**
   * A producer is used until its first failed or abandoned send, then retired (decision 0044).
   *
   * kafkajs 2.2.4 numbers a batch before sending it and takes the numbers back when the request fails,
   * although the broker may have stored the batch (its answer was lost: the broker stopped or was killed
   * just after the append, or the request timed out). The broker keeps the sequence ranges of a producer's
   * last batches and answers a batch that repeats one with success without storing it (that is how a
   * producer's own retry stays single). So the producer's next batch, numbered from the same place, is
   * either refused for ever (OUT_OF_ORDER_SEQUENCE_NUMBER, when its size differs: decision 0041) or, when
   * it has the same number of records per partition, acknowledged and never stored: an acknowledged
   * command lost. The Java producer bumps its epoch (KIP-360); here the next send goes through a new
   * producer (a new producer id, numbers from zero). An abandoned send (every caller timed out) is still
   * in flight and may fail the same way, so its producer is retired at once. The old producer is
   * disconnected once its last request has settled.
   */
  private retire(producer: Producer, inFlight: Promise<unknown>): void {
    // Only the current producer is retired; a later call for one already retired finds it replaced.
    if (producer !== this.producer) return;
    this.replaced += 1;
    this.producer = this.createProducer();
    this.connected = false;
    void Promise.allSettled([inFlight])
      .then(() => producer.disconnect())
      .catch(() => undefined);
  }

  async connect(): Promise<void> {
    const producer = this.producer;
    await producer.connect();
    if (producer === this.producer) this.connected = true;
  }

  isConnected(): boolean {
    return this.connected;
  }

  async publish(messages: OutgoingMessage[]): Promise<void> {
    if (messages.length === 0) return;
    const byTopic = new Map<string, EncodedMessage[]>();
    for (const m of messages) {
      const value = this.serde.encodeNow(m.type, m.value);
      const list = byTopic.get(m.topic) ?? [];
      list.push({ key: m.key, value, headers: { type: m.type, ...(m.headers ?? {}) } });
      byTopic.set(m.topic, list);
    }
    await new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        byTopic,
        unacked: messages.length,
        settled: false,
        resolve,
        reject,
        timer: setTimeout(() => {
          // Still queued: it never reaches the broker. In flight: it may still be stored, and the
          // client's retry is recognised by the decider (same communicationNumber, same customer).
          const queued = this.queue.indexOf(waiter);
          if (queued >= 0) this.queue.splice(queued, 1);
          this.settle(waiter, new Error('ack timeout'));
        }, this.ackTimeoutMs),
      };
      this.queue.push(waiter);
      this.flusher.request();
    });
  }

  async disconnect(): Promise<void> {
    // Calls still queued are never sent.
    for (const w of this.queue.splice(0)) this.settle(w, new Error('publisher closed'));
    await this.producer.disconnect();
    this.connected = false;
  }

  private settle(waiter: Waiter, err?: unknown): void {
    if (waiter.settled) return;
    waiter.settled = true;
    clearTimeout(waiter.timer);
    if (err === undefined) waiter.resolve();
    else waiter.reject(new BrokerUnavailableError(err));
    waiter.onSettled?.();
  }

  /** Sends everything queued as one group; the next group forms meanwhile. */
  private async flush(): Promise<void> {
    const group = this.queue.splice(0);
    if (group.length > 0) await this.send(group);
  }

  private async send(group: Waiter[]): Promise<void> {
    const owner = new Map<EncodedMessage, Waiter>();
    const byTopic = new Map<string, EncodedMessage[]>();
    for (const w of group) {
      for (const [topic, list] of w.byTopic) {
        const into = byTopic.get(topic) ?? [];
        for (const m of list) {
          owner.set(m, w);
          into.push(m);
        }
        byTopic.set(topic, into);
      }
    }
    // The group stops blocking the next one as soon as all its callers have their answer (timed out).
    let open = group.filter((w) => !w.settled).length;
    let allSettled!: () => void;
    const settledAll = new Promise<'settled'>((resolve) => {
      allSettled = () => resolve('settled');
    });
    if (open === 0) return;
    for (const w of group) {
      w.onSettled = () => {
        open -= 1;
        if (open === 0) allSettled();
      };
    }
    try {
      if (!this.connected) {
        if ((await Promise.race([this.connect(), settledAll])) === 'settled') return;
      }
      // Size-bounded produce calls, one after the other (a batch of large records in one call would
      // exceed the broker's batch limit), order kept per key. A caller whose messages were all in
      // acknowledged calls succeeds; if a later call fails, the callers with messages in it or after
      // it fail (earlier messages of theirs may be stored: the client's retry is recognised).
      for (const topicMessages of produceSlices(byTopic)) {
        const producer = this.producer;
        const sent = producer.sendBatch({ acks: -1, timeout: this.ackTimeoutMs, topicMessages });
        // Observed below, or abandoned after every caller timed out; a failure retires the producer
        // either way, and so does abandoning it (decision 0044).
        sent.catch(() => this.retire(producer, sent));
        if ((await Promise.race([sent, settledAll])) === 'settled') {
          this.retire(producer, sent);
          return;
        }
        for (const { messages } of topicMessages) {
          for (const m of messages) {
            const w = owner.get(m)!;
            w.unacked -= 1;
            if (w.unacked === 0) this.settle(w);
          }
        }
      }
    } catch (err) {
      for (const w of group) this.settle(w, err);
    } finally {
      for (const w of group) w.onSettled = undefined;
    }
  }
}
