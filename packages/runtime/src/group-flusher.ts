/**
 * Group commit's scheduling, shared by everything that writes what several callers queued in one go
 * (the ingress's reservations and publication record, the Kafka publisher): one run at a time; a
 * `request()` on an idle flusher starts a run after `lingerMs` (0: on the next turn of the event loop, so
 * the calls of one turn go together); work queued while a run is under way waits for it and goes in the
 * next run, which starts as soon as it ends. `run` takes what is queued and must not reject (it answers
 * its callers itself).
 */
export class GroupFlusher {
  private running = false;
  private stopped = false;
  private cancelStart: (() => void) | undefined;
  private current: Promise<void> = Promise.resolve();

  constructor(
    private readonly opts: {
      lingerMs: number;
      /** Whether anything is queued. */
      pending: () => boolean;
      run: () => Promise<void>;
    },
  ) {}

  /** Starts a run unless one is under way or about to start, or nothing is queued. */
  request(): void {
    if (this.stopped || this.running || this.cancelStart !== undefined || !this.opts.pending()) return;
    const start = () => {
      this.cancelStart = undefined;
      this.current = this.runOnce();
    };
    if (this.opts.lingerMs > 0) {
      const timer = setTimeout(start, this.opts.lingerMs);
      this.cancelStart = () => clearTimeout(timer);
    } else {
      const immediate = setImmediate(start);
      this.cancelStart = () => clearImmediate(immediate);
    }
  }

  /**
   * Shutdown: no run starts any more (one not started yet is dropped; what it would have taken stays
   * queued); waits for the one under way.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    this.cancelStart?.();
    this.cancelStart = undefined;
    await this.current;
  }

  private async runOnce(): Promise<void> {
    this.running = true;
    try {
      await this.opts.run();
    } finally {
      this.running = false;
      this.request();
    }
  }
}
