import { setMaxListeners } from 'node:events';
import { AttemptRecorder } from './attempt-recorder';
import type { BatchOutcome, DeliveryDoc, NewDelivery } from './delivery-store';
import type { SentAttempt } from './callback-sender';
import { afterFailure, type DeliveryPathOptions } from './dispatcher';
import { laneOf } from './queued-lanes';

export interface BatchDeliveryOptions extends DeliveryPathOptions {
  /** How long a batch waits for one attempt before handing it over to the retry queue. */
  handoverMs: number;
  /** How long an endpoint that needed a handover is queued for instead of tried from batches. */
  slowEndpointMs: number;
  /** Called when the batch left deliveries in the queue. */
  queued: () => void;
}

/**
 * Where a batch's deliveries come from: one consumed partition, the offset of each delivery's message and
 * the batch's last offset. Deliveries of messages consumed before (up to the partition's recorded
 * progress) are looked up in the log first and not sent again when they ended.
 */
export interface ConsumedFrom {
  partitionKey: string;
  offsets: readonly number[];
  lastOffset: number;
}

/**
 * How far ahead of a batch's last offset the progress mark is written (decision 0040): at a light load a
 * fetch holds a customer or two, and a mark per batch was a store write on the path of every callback.
 */
export const MARK_AHEAD = 1000;

/** An attempt still running when its batch was written; it is recorded through the queue when it ends. */
interface Handover {
  delivery: NewDelivery;
  sending: Promise<SentAttempt>;
}

/**
 * The first attempt of every delivery, straight from the consumed batch: each lane (customer and
 * endpoint) in order, lanes concurrently within the shared slots; then every outcome of the batch in one
 * insertMany into the delivery log, and only what is not done (failed attempts, deliveries behind them
 * or behind a lane already waiting in the queue, attempts still running) into the retry queue. The
 * consumer commits the batch's offsets only after that write, so a delivery is either done or durably
 * queued before its event counts as consumed; a crash before it sends the batch again (at least once).
 *
 * A slow receiver does not hold the batch: an attempt that runs longer than `handoverMs` is handed over
 * (queued with a lease until its timeout, recorded by `_id` when it ends) and its endpoint's deliveries
 * go to the queue for `slowEndpointMs`, where the dispatcher sends them within that endpoint's slots.
 *
 * The progress of a partition is read from the store once after each group join, then known here: this
 * process is the only one that marks it while it owns the partition (decision 0037).
 */
export class BatchDelivery {
  /** Outcomes of attempts whose batch write failed: the retried batch writes them without sending again. */
  private readonly unwritten = new Map<string, BatchOutcome>();
  /**
   * Per partition, known since the last group join (dropped at a join and after any failed batch of the
   * partition): `upTo`, the offset up to which consumed messages may have had their deliveries sent (the
   * store's mark when it was read, then at least every offset this process handled); `marked`, the mark
   * the store holds.
   */
  private readonly progress = new Map<string, { upTo: number | undefined; marked: number }>();
  /** Counts group joins, so that a batch begun before a join does not note what it learnt after it. */
  private joins = 0;
  private readonly handovers = new Set<Promise<void>>();
  private readonly clock: () => Date;
  /** Outcomes of handed-over attempts written together (decision 0072). */
  private readonly recorder: AttemptRecorder;

  constructor(private readonly opts: BatchDeliveryOptions) {
    this.clock = opts.clock ?? (() => new Date());
    this.recorder = new AttemptRecorder(opts.store);
  }

  /** Delivers (or queues) a batch's deliveries, given in event order, and writes their outcomes. */
  async deliver(deliveries: readonly NewDelivery[], from?: ConsumedFrom): Promise<void> {
    if (deliveries.length === 0) return;
    try {
      await this.deliverBatch(deliveries, from);
    } catch (err) {
      // A mark may have been written or not: the retried batch reads the progress again.
      if (from) this.progress.delete(from.partitionKey);
      throw err;
    }
  }

  /**
   * Drops the progress known of every partition: called whenever the consumer (re)joins its group, as
   * another instance may have owned a partition meanwhile and marked it further.
   */
  forgetProgress(): void {
    this.progress.clear();
    this.joins += 1;
  }

  private async deliverBatch(deliveries: readonly NewDelivery[], from?: ConsumedFrom): Promise<void> {
    const known = from ? await this.seenBefore(deliveries, from) : new Map<string, DeliveryDoc['status']>();
    const now = this.clock();
    const byLane = new Map<string, NewDelivery[]>();
    for (const d of deliveries) {
      const lane = laneOf(d);
      const list = byLane.get(lane) ?? [];
      list.push(d);
      byLane.set(lane, list);
    }
    const results = new Map<string, BatchOutcome>();
    const handovers: Handover[] = [];
    const slow = new Map<string, AbortController>();
    const slowSignal = (endpointId: string) => {
      let c = slow.get(endpointId);
      if (!c) {
        c = new AbortController();
        // Every lane waiting for this endpoint's slots listens to it.
        setMaxListeners(0, c.signal);
        slow.set(endpointId, c);
      }
      return c;
    };
    await Promise.all(
      [...byLane].map(([lane, list]) => this.runLane(lane, list, now, known, results, handovers, slowSignal)),
    );
    const outcomes = deliveries.flatMap((d) => results.get(d._id) ?? []);
    try {
      await this.opts.store.recordBatch(outcomes, now);
    } catch (err) {
      for (const o of outcomes) if (o.attempts > 0) this.unwritten.set(o.delivery._id, o);
      for (const h of handovers) this.finishHandover(h, false);
      throw err;
    }
    for (const o of outcomes) {
      this.unwritten.delete(o.delivery._id);
      if (o.status === 'pending') this.opts.lanes.add(o.delivery);
    }
    for (const h of handovers) this.finishHandover(h, true);
    if (outcomes.some((o) => o.status === 'pending')) this.opts.queued();
  }

  /**
   * The log status of deliveries whose messages may have been consumed before; then notes the batch as
   * possibly sent, before anything of it is sent.
   */
  private async seenBefore(
    deliveries: readonly NewDelivery[],
    from: ConsumedFrom,
  ): Promise<Map<string, DeliveryDoc['status']>> {
    const { store } = this.opts;
    const { partitionKey, lastOffset } = from;
    const joins = this.joins;
    let known = this.progress.get(partitionKey);
    if (!known) {
      const mark = await store.sentUpTo(partitionKey);
      known = { upTo: mark, marked: mark ?? -1 };
    }
    const { upTo } = known;
    const again = upTo === undefined ? [] : deliveries.filter((_, i) => from.offsets[i]! <= upTo);
    const status =
      again.length > 0
        ? await store.statusOf(again.map((d) => d._id))
        : new Map<string, DeliveryDoc['status']>();
    // The mark runs ahead of what is consumed (decision 0040): a store write once per MARK_AHEAD offsets
    // instead of one per batch. Deliveries of messages up to a mark are looked up in the log after a
    // restart or rebalance; a mark ahead of what was sent only costs those lookups.
    let marked = known.marked;
    if (lastOffset > marked) {
      marked = lastOffset + MARK_AHEAD;
      await store.markSending(partitionKey, marked);
    }
    if (this.joins === joins)
      this.progress.set(partitionKey, { upTo: Math.max(upTo ?? lastOffset, lastOffset), marked });
    return status;
  }

  /** Waits for handed-over attempts to be recorded (at shutdown), at most `ms`. */
  async drain(ms: number): Promise<void> {
    const deadline = Date.now() + ms;
    while (this.handovers.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  }

  private async runLane(
    lane: string,
    list: readonly NewDelivery[],
    now: Date,
    known: ReadonlyMap<string, DeliveryDoc['status']>,
    results: Map<string, BatchOutcome>,
    handovers: Handover[],
    slowSignal: (endpointId: string) => AbortController,
  ): Promise<void> {
    const { slots, lanes } = this.opts;
    let i = 0;
    for (; i < list.length; i++) {
      const d = list[i]!;
      const memo = this.unwritten.get(d._id);
      if (memo) {
        results.set(d._id, memo);
        if (memo.status === 'delivered') continue;
        i += 1;
        break;
      }
      // Consumed before: an ended delivery is neither sent nor written again; a pending one stays queued.
      const before = known.get(d._id);
      if (before === 'delivered' || before === 'dead') continue;
      if (before === 'pending') break;
      // Behind deliveries already waiting in the queue, or for an endpoint that is slow: queue it.
      if (lanes.has(lane) || slots.isSlow(d.endpointId, Date.now())) break;
      const giveUp = slowSignal(d.endpointId);
      if (!(await slots.take(lane, d.endpointId, giveUp.signal))) break;
      if (lanes.has(lane) || slots.isSlow(d.endpointId, Date.now())) {
        slots.release(lane, d.endpointId);
        break;
      }
      const sending = this.opts.sender.send(d).finally(() => slots.release(lane, d.endpointId));
      let timer: NodeJS.Timeout | undefined;
      const sent = await Promise.race([
        sending,
        new Promise<undefined>(
          (resolve) => (timer = setTimeout(() => resolve(undefined), this.opts.handoverMs)),
        ),
      ]);
      clearTimeout(timer);
      if (sent === undefined) {
        // Still running: hand it over with a lease past its timeout, and stop trying this endpoint.
        slots.markSlow(d.endpointId, Date.now() + this.opts.slowEndpointMs);
        giveUp.abort();
        results.set(d._id, {
          delivery: d,
          status: 'pending',
          attempts: 1,
          nextAttemptAt: new Date(this.clock().getTime() + this.opts.timeoutMs + 5000),
        });
        handovers.push({ delivery: d, sending });
        i += 1;
        break;
      }
      const outcome = this.outcomeOf(d, sent);
      results.set(d._id, outcome);
      if (outcome.status !== 'delivered') {
        i += 1;
        break;
      }
    }
    for (; i < list.length; i++) {
      const d = list[i]!;
      const before = known.get(d._id);
      if (before === 'delivered' || before === 'dead') continue;
      results.set(d._id, { delivery: d, status: 'pending', attempts: 0, nextAttemptAt: now });
    }
  }

  private outcomeOf(d: NewDelivery, { attempt, ok }: SentAttempt): BatchOutcome {
    const { outcomes, dead } = this.opts.metrics;
    if (ok) {
      outcomes.labels('delivered', d.businessUnit).inc();
      return { delivery: d, status: 'delivered', attempts: 1, attempt, nextAttemptAt: attempt.at };
    }
    const next = afterFailure(1, attempt.at, this.opts, Math.random());
    if (next.status === 'dead') {
      outcomes.labels('dead_letter', d.businessUnit).inc();
      dead.labels(d.businessUnit).inc();
      this.opts.logger.warn(
        { eventId: d.eventId, endpointId: d.endpointId, attempts: 1 },
        'callback dead-lettered',
      );
      return { delivery: d, status: 'dead', attempts: 1, attempt, nextAttemptAt: attempt.at };
    }
    outcomes.labels('retry', d.businessUnit).inc();
    return { delivery: d, status: 'pending', attempts: 1, attempt, nextAttemptAt: next.nextAttemptAt };
  }

  /**
   * Records a handed-over attempt once it ends, by `_id` like any queued attempt (with the others that end
   * meanwhile: decision 0072). When its batch could not
   * be written, nothing is recorded: the batch is consumed again, or the lease runs out.
   */
  private finishHandover(h: Handover, written: boolean): void {
    const work = h.sending
      .then(async (sent) => {
        if (!written) return;
        const d: DeliveryDoc = {
          ...h.delivery,
          status: 'pending',
          attempts: 1,
          log: [],
          createdAt: this.clock(),
        };
        const outcome = this.outcomeOf(h.delivery, sent);
        await this.recorder.record({
          delivery: d,
          attempt: sent.attempt,
          next: {
            status: outcome.status,
            ...(outcome.status === 'pending' ? { nextAttemptAt: outcome.nextAttemptAt } : {}),
          },
        });
        if (outcome.status !== 'pending') this.opts.lanes.remove(d._id);
        else this.opts.queued();
      })
      .catch((err: unknown) =>
        this.opts.logger.warn(
          { err, deliveryId: h.delivery._id, endpointId: h.delivery.endpointId },
          'handed-over callback attempt not recorded; retried after the lease',
        ),
      )
      .finally(() => this.handovers.delete(work));
    this.handovers.add(work);
  }
}
