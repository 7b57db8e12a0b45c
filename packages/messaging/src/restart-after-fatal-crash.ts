import type { Consumer } from 'kafkajs';
import type { Logger } from '@crs/runtime';

export interface RestartAfterFatalCrashOptions {
  logger: Logger;
  groupId: string;
  /** False once the owner stops: a crash then stays a stop. */
  shouldRun: () => boolean;
  /** Runs the consumer again (connect, subscribe, run), after `beforeRestart`. */
  run: () => Promise<void>;
  /** Drops state that the crashed run may have left half-done (for example transactional producers). */
  beforeRestart?: () => Promise<void>;
  /** Backoff bounds between attempts. */
  initialDelayMs?: number;
  maxDelayMs?: number;
}

/**
 * kafkajs restarts a crashed consumer only when the error is retriable. After a broker outage a
 * coordinator lookup that ran out of retries surfaces as a non-retriable error, and kafkajs leaves the
 * consumer stopped for good (`restart: false`) while the process lives on: no partition is consumed
 * again until someone restarts the service (found by the broker-outage fault scenario). Our consumers
 * must heal by themselves, so this starts such a consumer again with capped exponential backoff until it
 * joins its group. kafkajs has no hook for it (`retry.restartOnFailure` is asked only for retriable
 * errors), hence this small piece of our own.
 */
export function restartAfterFatalCrash(consumer: Consumer, opts: RestartAfterFatalCrashOptions): void {
  const initial = opts.initialDelayMs ?? 500;
  const max = opts.maxDelayMs ?? 15000;
  let attempt = 0;
  let restarting = false;
  // A crash that arrives while a restart is under way (the new run failed at once) asks for another.
  let pending = false;

  consumer.on(consumer.events.GROUP_JOIN, () => {
    attempt = 0;
  });

  const restart = async (): Promise<void> => {
    pending = true;
    if (restarting) return;
    restarting = true;
    try {
      while (pending && opts.shouldRun()) {
        pending = false;
        const delay = Math.min(initial * 2 ** Math.min(attempt, 10), max);
        attempt++;
        await new Promise((r) => setTimeout(r, delay));
        if (!opts.shouldRun()) return;
        try {
          await opts.beforeRestart?.();
          await opts.run();
          opts.logger.warn(
            { groupId: opts.groupId, attempt },
            'consumer restarted after a non-retriable crash',
          );
        } catch (err) {
          opts.logger.error({ err, groupId: opts.groupId, attempt }, 'consumer restart failed; trying again');
          await consumer.disconnect().catch(() => undefined);
          pending = true;
        }
      }
    } finally {
      restarting = false;
    }
  };

  consumer.on(consumer.events.CRASH, (e) => {
    // kafkajs restarts it itself, or we are stopping: nothing to do.
    if (e.payload.restart || !opts.shouldRun()) return;
    opts.logger.error(
      { err: e.payload.error, groupId: opts.groupId },
      'consumer stopped by a non-retriable error; restarting it',
    );
    void restart();
  });
}
