import type { Collection } from 'mongodb';
import { BackgroundRetry } from './background-retry';
import type { ReservationDoc } from './reservation';

/** A reservation one attempt made: its key and the attempt's commandId. */
export interface HeldReservation {
  key: string;
  commandId: string;
}

/**
 * Releases the reservations of attempts that were never acknowledged (their publish failed). A release
 * can fail too: the store may be down at that moment, or the reservation insert may have reached the
 * store although the driver reported an error. Such a reservation would refuse the client's retry with
 * O001 for a request we never acknowledged, so a failed release is remembered and retried in the
 * background with backoff until the store answers. Only a reservation carrying the attempt's commandId
 * is deleted (read by `_id`, then deleted by `_id`: docs/decisions/0008).
 */
export class ReservationReleases {
  /**
   * Reservations this process must still release: key → the commandIds of the failed attempts. Several
   * attempts of one key can fail while the store is down (a client retrying through an outage); the
   * reservation in the store is the first one's whose insert arrived, not necessarily the last one's.
   */
  private readonly unreleased = new Map<string, Set<string>>();
  private readonly retry: BackgroundRetry;

  constructor(
    private readonly reservations: Collection<ReservationDoc>,
    retryMs: number,
    retryMaxMs: number,
    private readonly onReleaseFailed?: (err: unknown, pending: number) => void,
  ) {
    this.retry = new BackgroundRetry(() => this.retryReleases(), retryMs, retryMaxMs);
  }

  /** Failed attempts whose reservation release is still being retried. */
  count(): number {
    let n = 0;
    for (const ids of this.unreleased.values()) n += ids.size;
    return n;
  }

  /** Whether the reservation `commandId` made of `key` belongs to a failed attempt waiting for its release. */
  isWaiting(key: string, commandId: string): boolean {
    return this.unreleased.get(key)?.has(commandId) ?? false;
  }

  close(): void {
    this.retry.stop();
  }

  async release(held: HeldReservation[]): Promise<void> {
    for (const { key, commandId } of held) {
      try {
        await this.releaseOne(key, [commandId]);
      } catch (err) {
        const ids = this.unreleased.get(key) ?? new Set<string>();
        ids.add(commandId);
        this.unreleased.set(key, ids);
        this.onReleaseFailed?.(err, this.count());
        this.retry.schedule();
      }
    }
  }

  /**
   * Releases at once the reservation of `key` if a failed attempt's waits for its release (a retry met
   * it); false when none waits. A store failure is thrown.
   */
  async releaseWaiting(key: string): Promise<boolean> {
    const stale = this.unreleased.get(key);
    if (stale === undefined) return false;
    await this.releaseListed(key, stale);
    return true;
  }

  /**
   * Releases the reservation of `key` if one of the listed failed attempts holds it, then takes those
   * attempts off the list (attempts that failed meanwhile stay listed).
   */
  private async releaseListed(key: string, listed: ReadonlySet<string>): Promise<void> {
    const ids = [...listed];
    await this.releaseOne(key, ids);
    const left = this.unreleased.get(key);
    if (!left) return;
    for (const id of ids) left.delete(id);
    if (left.size === 0) this.unreleased.delete(key);
  }

  /** Deletes the reservation only if one of these failed attempts holds it. */
  private async releaseOne(key: string, commandIds: readonly string[]): Promise<void> {
    const doc = await this.reservations.findOne({ _id: key }, { projection: { commandId: 1 } });
    // The filter names the command too: another attempt may have taken the key over in between.
    if (doc && commandIds.includes(doc.commandId)) {
      await this.reservations.deleteOne({ _id: key, commandId: doc.commandId });
    }
  }

  private async retryReleases(): Promise<{ failed: boolean; more: boolean }> {
    let failed = false;
    for (const [key, pending] of [...this.unreleased]) {
      try {
        await this.releaseListed(key, pending);
      } catch {
        failed = true;
        break;
      }
    }
    return { failed, more: this.unreleased.size > 0 };
  }
}
