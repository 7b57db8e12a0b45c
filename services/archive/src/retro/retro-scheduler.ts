import type { Logger } from '@crs/runtime';
import type { RetroRunSummary } from './retro-monitor';

/**
 * Runs retro monitoring in the background, one run at a time: a trigger that arrives during a run asks
 * for exactly one more run afterwards (list snapshots arriving in a burst cost one extra run, not one
 * each). Runs happen outside the Kafka consumer's handler so a long run never stalls its heartbeats.
 */
export class RetroScheduler {
  private running: Promise<void> | undefined;
  private pending: string | undefined;
  private stopped = false;

  constructor(
    private readonly runOnce: (trigger: string) => Promise<RetroRunSummary>,
    private readonly logger: Logger,
  ) {}

  request(trigger: string): void {
    if (this.stopped) return;
    this.pending = trigger;
    if (!this.running) this.running = this.loop().finally(() => (this.running = undefined));
  }

  private async loop(): Promise<void> {
    while (this.pending !== undefined && !this.stopped) {
      const trigger = this.pending;
      this.pending = undefined;
      try {
        await this.runOnce(trigger);
      } catch (err) {
        this.logger.error(
          { err, trigger },
          'retro monitoring run failed; it runs again on the next list snapshot',
        );
      }
    }
  }

  /** Lets a run in progress finish (its alerts are published or not at all, chunk by chunk). */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
  }
}
