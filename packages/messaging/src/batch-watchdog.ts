import { Gauge, getOrCreate, type Logger, type Registry } from '@crs/runtime';

/** What a watched batch was last seen doing, for the log and `/health/live`. */
export interface StalledBatch {
  groupId: string;
  topic: string;
  partition: number;
  /** The phase it entered last (`handler attempt 3`, `commit`, `transaction`...). */
  phase: string;
  /** The offset that phase works on, when it names one. */
  offset?: string;
  /** Since its last sign of life. */
  stalledForMs: number;
}

export interface BatchWatchdogOptions {
  logger: Logger;
  groupId: string;
  /** A batch with no sign of life for this long is stalled (`KAFKA_BATCH_STALL_MS`). */
  stallMs: number;
  metrics?: Registry;
  /** The clock (tests of the rule). */
  now?: () => number;
}

interface Watched {
  topic: string;
  partition: number;
  phase: string;
  offset?: string;
  /** The last sign of life: a phase entered. */
  at: number;
  logged: boolean;
}

/** One batch of one partition being processed: its phases are its signs of life. */
export interface WatchedBatch {
  /** The batch entered `phase` (a handler attempt began, a commit, a backoff before the next attempt). */
  phase(phase: string, offset?: string): void;
  /**
   * The batch entered `phase`, whose length is not judged until the next phase (a partition's catch-up,
   * which may rightly take long: it reports its own progress).
   */
  unjudged(phase: string): void;
  /** The batch ended (returned or threw). */
  end(): void;
}

function stalledGauge(registry: Registry): Gauge<'group'> {
  return getOrCreate(
    registry,
    'kafka_batch_stalled_seconds',
    () =>
      new Gauge({
        name: 'kafka_batch_stalled_seconds',
        help: 'How long the oldest batch in processing has shown no sign of life, once past KAFKA_BATCH_STALL_MS (0 otherwise); above 0 the service fails /health/live',
        labelNames: ['group'],
        registers: [registry],
      }),
  );
}

/**
 * Watches the batches a consumer's `eachBatch` is processing, so that one that hangs for good is seen
 * (decision 0087). kafkajs waits for `eachBatch` without a bound, and a promise that never settles (a
 * driver call that never answers, a lost wake-up) leaves its partitions unconsumed while the process
 * looks healthy: the fault suite once found the projector silent for ten minutes after a database
 * outage, its shutdown waiting on the batch. Our loops report each phase they enter (an attempt, a
 * backoff, a commit); a batch whose last phase began more than `stallMs` ago is stalled: logged once
 * with its topic, partition, phase and offset, exported as `kafka_batch_stalled_seconds`, and reported
 * to `/health/live` so the orchestrator restarts the instance (a promise cannot be cancelled from
 * outside, so only a new process frees the partitions for sure). A failing dependency is not a stall:
 * the retry loop enters a new phase at every attempt and backoff, each far shorter than `stallMs`.
 */
export class BatchWatchdog {
  private readonly batches = new Set<Watched>();
  private readonly now: () => number;
  private readonly gauge: Gauge.Internal<'group'> | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly opts: BatchWatchdogOptions) {
    this.now = opts.now ?? Date.now;
    this.gauge = opts.metrics ? stalledGauge(opts.metrics).labels(opts.groupId) : undefined;
  }

  /** A batch of `topic`/`partition` begins. */
  begin(topic: string, partition: number): WatchedBatch {
    const watched: Watched = { topic, partition, phase: 'batch', at: this.now(), logged: false };
    this.batches.add(watched);
    return {
      phase: (next, at) => {
        watched.phase = next;
        watched.offset = at;
        watched.at = this.now();
        watched.logged = false;
      },
      unjudged: (next) => {
        watched.phase = next;
        watched.offset = undefined;
        watched.at = Number.POSITIVE_INFINITY;
        watched.logged = false;
      },
      end: () => {
        this.batches.delete(watched);
      },
    };
  }

  /** Runs `work` as one batch, ended however it settles. */
  async watch<R>(topic: string, partition: number, work: (batch: WatchedBatch) => Promise<R>): Promise<R> {
    const batch = this.begin(topic, partition);
    try {
      return await work(batch);
    } finally {
      batch.end();
    }
  }

  /** The batch silent the longest, if it has been silent for `stallMs` or more. */
  stalled(): StalledBatch | undefined {
    const now = this.now();
    let oldest: Watched | undefined;
    for (const b of this.batches) if (!oldest || b.at < oldest.at) oldest = b;
    if (!oldest || now - oldest.at < this.opts.stallMs) return undefined;
    return {
      groupId: this.opts.groupId,
      topic: oldest.topic,
      partition: oldest.partition,
      phase: oldest.phase,
      ...(oldest.offset !== undefined ? { offset: oldest.offset } : {}),
      stalledForMs: now - oldest.at,
    };
  }

  /** Looks for a stall now: logs each stalled batch once per phase and sets the gauge. */
  check(): StalledBatch | undefined {
    const stalled = this.stalled();
    this.gauge?.set(stalled ? stalled.stalledForMs / 1000 : 0);
    const now = this.now();
    for (const b of this.batches) {
      if (b.logged || now - b.at < this.opts.stallMs) continue;
      b.logged = true;
      this.opts.logger.error(
        {
          code: 'CONSUMER_BATCH_STALLED',
          groupId: this.opts.groupId,
          topic: b.topic,
          partition: b.partition,
          phase: b.phase,
          offset: b.offset,
          stalledForMs: now - b.at,
          stallMs: this.opts.stallMs,
        },
        'a batch has shown no sign of life for longer than KAFKA_BATCH_STALL_MS: its partition is not consumed; /health/live now fails so the instance is restarted',
      );
    }
    return stalled;
  }

  /** Checks every quarter of `stallMs` (at most 10 s) until `stop` (the timer keeps no process alive). */
  start(): void {
    if (this.timer) return;
    const every = Math.min(Math.max(this.opts.stallMs / 4, 100), 10_000);
    this.timer = setInterval(() => this.check(), every);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}
