import { Gauge, type Logger, type Registry } from '@crs/runtime';
import { AttemptRecorder } from './attempt-recorder';
import type { DeliveryDoc, DeliveryStore, QueueEntry } from './delivery-store';
import { nextDelayMs } from './domain/routing';
import type { CallbackMetrics } from './callback-metrics';
import type { CallbackSender } from './callback-sender';
import type { DeliverySlots } from './delivery-slots';
import { laneOf, type QueuedLanes } from './queued-lanes';

/** What the batch path and the retry queue's dispatcher share: where deliveries go and how often. */
export interface DeliveryPathOptions {
  store: DeliveryStore;
  logger: Logger;
  metrics: CallbackMetrics;
  sender: CallbackSender;
  slots: DeliverySlots;
  lanes: QueuedLanes;
  maxAttempts: number;
  timeoutMs: number;
  backoffBaseMs: number;
  backoffMaxMs: number;
  clock?: () => Date;
}

export interface DispatcherOptions extends DeliveryPathOptions {
  registry: Registry;
  pollMs: number;
  /** How often the view of queued lanes is read again from the queue. */
  refreshMs?: number;
  /**
   * A due read that took at least SLOW_DUE_READ_MS reads up to READ_AHEAD_ENTRIES due entries, and the
   * rounds after it are served from them for up to `readAhead` times the read's duration (decision
   * 0071). 0: every round reads the store (as before). Default 10.
   */
  readAhead?: number;
  /** A due read at least this slow is read ahead (default SLOW_DUE_READ_MS). */
  slowDueReadMs?: number;
  /** An attempt slower than this marks its endpoint slow (see DeliverySlots.markSlow). */
  slowAfterMs?: number;
  slowForMs?: number;
}

/** What to do after a failed attempt: the next due time, or a dead letter once the budget is spent. */
export function afterFailure(
  attempts: number,
  at: Date,
  o: { maxAttempts: number; backoffBaseMs: number; backoffMaxMs: number },
  random: number,
): { status: 'dead' } | { status: 'pending'; nextAttemptAt: Date } {
  if (attempts >= o.maxAttempts) return { status: 'dead' };
  return {
    status: 'pending',
    nextAttemptAt: new Date(at.getTime() + nextDelayMs(attempts, o.backoffBaseMs, o.backoffMaxMs, random)),
  };
}

/** A due read at least this slow (ms) is read ahead of the rounds (decision 0071). */
export const SLOW_DUE_READ_MS = 100;
/** How many due entries a slow due read takes for the rounds after it. */
export const READ_AHEAD_ENTRIES = 10_000;
/**
 * The longest the rounds are served from one read (a read slowed by a store hiccup must not hold back
 * what becomes due after it for minutes), and the longest between two reads of the whole queue.
 */
export const MAX_READ_AHEAD_MS = 30_000;
/** How many times a round asks the store which of its lanes wait behind an earlier entry, at most. */
export const MAX_LANE_LOOKUPS = 8;
export const MAX_REFRESH_INTERVAL_MS = 120_000;

/**
 * Whether a round takes its due entries from those read ahead: some are left and they are younger than
 * `readAhead` times what their read took (at most MAX_READ_AHEAD_MS). A quick read (a small queue) is never served again: its bound
 * is shorter than a round.
 */
export function servesReadAhead(left: number, ageMs: number, lastReadMs: number, readAhead: number): boolean {
  return left > 0 && readAhead > 0 && ageMs < Math.min(readAhead * lastReadMs, MAX_READ_AHEAD_MS);
}

/**
 * How long the dispatcher waits between two reads of the whole queue (the view of queued lanes): the
 * configured interval, or ten times what the last read took when that is longer (at most
 * MAX_REFRESH_INTERVAL_MS). A read of every entry
 * grows with the queue (4.3-4.9 s at 100,000 entries on FerretDB v1, decision 0070), and while a receiver
 * is down the queue grows: reading it every 5 s would keep the store busy with nothing else. The view
 * only decides whether a consumed delivery waits behind its lane; this process's own writes keep it
 * current, the read brings in what other processes wrote (`crs redeliver`, another instance).
 */
export function refreshInterval(configuredMs: number, lastReadMs: number): number {
  return Math.max(configuredMs, Math.min(10 * lastReadMs, MAX_REFRESH_INTERVAL_MS));
}

/**
 * Delivers what is in the retry queue (`callback_queue`): failed attempts waiting for their next one,
 * deliveries queued behind them, attempts a batch handed over, and redeliveries. A round's due entries are
 * claimed in one go and sent concurrently within the shared slots (one at a time per customer and
 * endpoint, a slow receiver holding only its own), their outcomes written together (decision 0072), with
 * exponential backoff and jitter and a dead letter after maxAttempts. The
 * first attempt of a new delivery normally comes from the consumed batch (BatchDelivery), not from here.
 */
export class Dispatcher {
  private readonly running = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private active = false;
  private ticking = false;
  /** Kicked during a round: the next round starts at once. */
  private kicked = false;
  private lastRefresh = 0;
  /** How long the last refresh took: the next waits at least ten times that (see tick). */
  private lastRefreshMs = 0;
  /** Due entries read ahead of the rounds after a slow due read, when and how long that read took. */
  private ahead: QueueEntry[] = [];
  private aheadAt = 0;
  private lastDueMs = 0;
  private readonly clock: () => Date;
  /** Outcomes of attempts written together (decision 0072). */
  private readonly recorder: AttemptRecorder;

  constructor(private readonly opts: DispatcherOptions) {
    this.clock = opts.clock ?? (() => new Date());
    this.recorder = new AttemptRecorder(opts.store);
    const store = opts.store;
    new Gauge({
      name: 'callback_queue_pending',
      help: 'Callback deliveries waiting in the queue (due or scheduled for a retry)',
      registers: [opts.registry],
      async collect() {
        this.set(await store.pendingEstimate().catch(() => NaN));
      },
    });
  }

  /** Reads the queued lanes once (before the consumer starts), then polls. */
  async start(): Promise<void> {
    await this.refresh();
    this.active = true;
    this.schedule(0);
  }

  /** Called when deliveries were queued, so they go out without waiting for the next poll. */
  kick(): void {
    if (!this.active) return;
    if (this.ticking) this.kicked = true;
    else this.schedule(0);
  }

  async stop(): Promise<void> {
    this.active = false;
    if (this.timer) clearTimeout(this.timer);
    const deadline = Date.now() + this.opts.timeoutMs + 1000;
    while (this.running.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  }

  private schedule(ms: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.tick(), ms);
  }

  private async refresh(): Promise<void> {
    const started = this.opts.lanes.beginRefresh();
    const at = Date.now();
    try {
      this.opts.lanes.replace(started, await this.opts.store.queued());
      this.lastRefresh = Date.now();
      this.lastRefreshMs = this.lastRefresh - at;
    } catch (err) {
      this.opts.lanes.endRefresh();
      throw err;
    }
  }

  private async tick(): Promise<void> {
    if (!this.active || this.ticking) return;
    this.ticking = true;
    const { slots } = this.opts;
    try {
      if (Date.now() - this.lastRefresh >= refreshInterval(this.opts.refreshMs ?? 5000, this.lastRefreshMs))
        await this.refresh();
      const free = slots.concurrency - slots.inFlight;
      if (free > 0) {
        const due = await this.dueEntries(free);
        const chosen = new Map<string, QueueEntry>();
        for (const d of due) {
          const lane = laneOf(d);
          const current = chosen.get(lane);
          if (!slots.laneBusy(lane) && (!current || d.streamVersion < current.streamVersion))
            chosen.set(lane, d);
        }
        const { picked, waiting } = await this.pick(chosen);
        if (picked.length > 0) for (const d of await this.claim(picked)) this.dispatch(d);
        // Entries read ahead that were taken, or found waiting behind an earlier entry of their lane, are
        // not looked at again: a waiting one comes back with the next read, once its lane may go.
        if (this.ahead.length > 0 && picked.length + waiting.length > 0) {
          const done = new Set([...picked, ...waiting].map((d) => d._id));
          this.ahead = this.ahead.filter((e) => !done.has(e._id));
        }
      }
    } catch (err) {
      this.opts.logger.warn({ err }, 'callback dispatch round failed; retrying');
    } finally {
      this.ticking = false;
      // Slots freed during the round are filled at once, not a poll interval later.
      const again = this.kicked;
      this.kicked = false;
      if (this.active) this.schedule(again ? 0 : this.opts.pollMs);
    }
  }

  /**
   * The round's picks, in due order: each lane's earliest entry, unless it waits behind an earlier pending
   * event of its lane, as many as the slots take; and the entries found waiting. The store is asked which
   * wait for about twice as many lanes per endpoint as can still go, then for the next ones (lanes an
   * endpoint's share left out first) while slots are left, at most MAX_LANE_LOOKUPS times a round
   * (decision 0072): a round read ahead holds up to READ_AHEAD_ENTRIES lanes, of which a round takes a few.
   */
  private async pick(
    chosen: ReadonlyMap<string, QueueEntry>,
  ): Promise<{ picked: QueueEntry[]; waiting: QueueEntry[] }> {
    const { slots } = this.opts;
    let left = [...chosen];
    const picked: QueueEntry[] = [];
    const waiting: QueueEntry[] = [];
    for (let lookups = 0; left.length > 0 && lookups < MAX_LANE_LOOKUPS; lookups++) {
      const room = 2 * (slots.concurrency - slots.inFlight);
      const candidates: [string, QueueEntry][] = [];
      const rest: [string, QueueEntry][] = [];
      const perEndpoint = new Map<string, number>();
      for (const item of left) {
        const n = perEndpoint.get(item[1].endpointId) ?? 0;
        if (candidates.length < room && n < 2 * slots.freeFor(item[1].endpointId)) {
          perEndpoint.set(item[1].endpointId, n + 1);
          candidates.push(item);
        } else rest.push(item);
      }
      if (candidates.length === 0) break;
      left = rest;
      let blocked: Set<string>;
      try {
        blocked = await this.opts.store.blockedAmong(candidates.map(([, d]) => d));
      } catch (err) {
        // The slots of what an earlier lookup of this round picked go back (the round fails).
        for (const d of picked) slots.release(laneOf(d), d.endpointId);
        throw err;
      }
      for (const [lane, d] of candidates) {
        if (blocked.has(d._id)) waiting.push(d);
        else if (slots.tryTake(lane, d.endpointId)) picked.push(d);
      }
    }
    return { picked, waiting };
  }

  /**
   * The round's due entries, earliest first: from the store, or from those a slow read took ahead of the
   * rounds (decision 0071). FerretDB v1 reads the whole queue for a due read (2.3-2.5 s at 100,000
   * entries), however few it returns; read ahead, one such read serves the rounds of the next ten times
   * its duration instead of one round of `CALLBACK_CONCURRENCY` deliveries. An entry read ahead may have
   * been taken or moved by another process since: its claim is conditional (still due, not leased), so it
   * is skipped, never sent twice. What became due meanwhile waits for the next read.
   */
  private async dueEntries(free: number): Promise<QueueEntry[]> {
    const readAhead = this.opts.readAhead ?? 10;
    const slow = readAhead > 0 && this.lastDueMs >= (this.opts.slowDueReadMs ?? SLOW_DUE_READ_MS);
    if (slow && servesReadAhead(this.ahead.length, Date.now() - this.aheadAt, this.lastDueMs, readAhead))
      return this.ahead;
    const started = Date.now();
    const due = await this.opts.store.due(this.clock(), Math.max(free * 4, slow ? READ_AHEAD_ENTRIES : 50));
    this.lastDueMs = Date.now() - started;
    // What others wrote (a redelivery through the API or the CLI) joins the view of queued lanes, once per read.
    for (const d of due) this.opts.lanes.add(d);
    this.aheadAt = Date.now();
    this.ahead = readAhead > 0 ? due : [];
    return due;
  }

  /**
   * Claims the round's picked entries in one go (decision 0072) and frees the slots of those not won. A
   * store failure frees them all and fails the round (the next one tries again).
   */
  private async claim(picked: readonly QueueEntry[]): Promise<DeliveryDoc[]> {
    const now = this.clock();
    const leaseUntil = new Date(now.getTime() + this.opts.timeoutMs + 5000);
    let claimed: DeliveryDoc[] = [];
    try {
      claimed = await this.opts.store.claimMany(picked, now, leaseUntil);
      return claimed;
    } finally {
      const won = new Set(claimed.map((d) => d._id));
      for (const d of picked) if (!won.has(d._id)) this.opts.slots.release(laneOf(d), d.endpointId);
    }
  }

  /** Sends a claimed delivery and records its outcome; its slot is freed once the outcome is stored. */
  private dispatch(d: DeliveryDoc): void {
    const lane = laneOf(d);
    // A store failure (database down) must not end the process: the claim's lease runs out and the
    // delivery is taken up again once the store answers.
    const work: Promise<void> = this.deliver(d)
      .catch((err: unknown) =>
        this.opts.logger.warn(
          { err, deliveryId: d._id, endpointId: d.endpointId },
          'callback delivery bookkeeping failed; retried after the lease',
        ),
      )
      .finally(() => {
        this.opts.slots.release(lane, d.endpointId);
        this.running.delete(work);
        this.kick();
      });
    this.running.add(work);
  }

  private async deliver(d: DeliveryDoc): Promise<void> {
    const { attempt, ok } = await this.opts.sender.send(d);
    if (this.opts.slowAfterMs !== undefined && attempt.ms > this.opts.slowAfterMs)
      this.opts.slots.markSlow(d.endpointId, Date.now() + (this.opts.slowForMs ?? 10_000));
    const { outcomes, dead } = this.opts.metrics;
    if (ok) {
      outcomes.labels('delivered', d.businessUnit).inc();
      await this.recorder.record({ delivery: d, attempt, next: { status: 'delivered' } });
      this.opts.lanes.remove(d._id);
      return;
    }
    const next = afterFailure(d.attempts, attempt.at, this.opts, Math.random());
    if (next.status === 'dead') {
      outcomes.labels('dead_letter', d.businessUnit).inc();
      dead.labels(d.businessUnit).inc();
      this.opts.logger.warn(
        { eventId: d.eventId, endpointId: d.endpointId, attempts: d.attempts },
        'callback dead-lettered',
      );
      await this.recorder.record({ delivery: d, attempt, next: { status: 'dead' } });
      this.opts.lanes.remove(d._id);
    } else {
      outcomes.labels('retry', d.businessUnit).inc();
      await this.recorder.record({ delivery: d, attempt, next });
    }
  }
}
