import { GroupCommit } from '@crs/runtime';
import type { DeliveryStore, RecordedAttempt } from './delivery-store';

/** At most this many attempts in one `recordAttempts` (a receiver's backlog draining at full speed). */
export const MAX_ATTEMPTS_PER_WRITE = 500;

/**
 * Writes the outcomes of queued attempts together (decision 0072): an attempt that ends while the write
 * before it is under way waits for it and goes in the next one, so on a busy queue the log and the queue
 * take one bulk write per group instead of two writes per delivery. Each caller still waits for its own
 * outcome to be stored (the dispatcher frees its lane only then; an attempt the batch path handed over
 * keeps its lane's order through its leased queue entry). A failed write fails every attempt of its
 * group: their entries stay leased and are claimed again after the lease, as after a crash.
 *
 * The grouping is the runtime's `GroupCommit` (the ingress's reservations use it too): the group's
 * `reserve` is the write, its `complete` answers each caller.
 */
export class AttemptRecorder {
  private readonly groups: GroupCommit<RecordedAttempt, void, void>;

  constructor(store: DeliveryStore) {
    this.groups = new GroupCommit(0, MAX_ATTEMPTS_PER_WRITE, {
      reserve: (group) => store.recordAttempts(group.flatMap((request) => request.items)),
      complete: async (group) => {
        for (const request of group) request.resolve(request.items.map(() => undefined));
      },
    });
  }

  /** Resolves once the attempt's outcome is in the log and the queue. */
  async record(attempt: RecordedAttempt): Promise<void> {
    await this.groups.submit([attempt]);
  }
}
