import { GroupFlusher } from '@crs/runtime';
import type { DeliveryStore, RecordedAttempt } from './delivery-store';

/** At most this many attempts in one `recordAttempts` (a receiver's backlog draining at full speed). */
export const MAX_ATTEMPTS_PER_WRITE = 500;

interface Waiting {
  attempt: RecordedAttempt;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/**
 * Writes the outcomes of queued attempts together (decision 0072): an attempt that ends while the write
 * before it is under way waits for it and goes in the next one, so on a busy queue the log and the queue
 * take one bulk write per group instead of two writes per delivery. Each caller still waits for its own
 * outcome to be stored (the dispatcher frees its lane only then; an attempt the batch path handed over
 * keeps its lane's order through its leased queue entry). A failed write fails every attempt of its
 * group: their entries stay leased and are claimed again after the lease, as after a crash.
 */
export class AttemptRecorder {
  private readonly waiting: Waiting[] = [];
  private readonly flusher = new GroupFlusher({
    lingerMs: 0,
    pending: () => this.waiting.length > 0,
    run: () => this.write(),
  });

  constructor(private readonly store: DeliveryStore) {}

  /** Resolves once the attempt's outcome is in the log and the queue. */
  record(attempt: RecordedAttempt): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.waiting.push({ attempt, resolve, reject });
      this.flusher.request();
    });
  }

  private async write(): Promise<void> {
    const group = this.waiting.splice(0, MAX_ATTEMPTS_PER_WRITE);
    try {
      await this.store.recordAttempts(group.map((w) => w.attempt));
      for (const w of group) w.resolve();
    } catch (err) {
      for (const w of group) w.reject(err);
    }
  }
}
