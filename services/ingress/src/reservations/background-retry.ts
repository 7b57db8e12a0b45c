/** What one background round did: whether it failed (the delay doubles) and whether work is left. */
export interface RetryRound {
  failed: boolean;
  more: boolean;
}

/**
 * Repeats a round of store writes that failed, in the background, until nothing is left: the first wait
 * is `initialMs`, doubled after each failed round up to `maxMs`, and back to `initialMs` after a round
 * that went through. The timer never keeps the process alive.
 */
export class BackgroundRetry {
  private timer: NodeJS.Timeout | undefined;
  private delayMs: number;

  constructor(
    private readonly round: () => Promise<RetryRound>,
    private readonly initialMs: number,
    private readonly maxMs: number,
  ) {
    this.delayMs = initialMs;
  }

  schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => void this.run(), this.delayMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private async run(): Promise<void> {
    this.timer = undefined;
    const { failed, more } = await this.round().catch(() => ({ failed: true, more: true }));
    this.delayMs = failed ? Math.min(this.delayMs * 2, this.maxMs) : this.initialMs;
    if (more) this.schedule();
  }
}
