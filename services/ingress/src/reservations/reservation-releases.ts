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
  /** Reservations this process must still release: key → the commandId of the failed attempt. */
  private readonly unreleased = new Map<string, string>();
  private readonly retry: BackgroundRetry;

  constructor(
    private readonly reservations: Collection<ReservationDoc>,
    retryMs: number,
    retryMaxMs: number,
    private readonly onReleaseFailed?: (err: unknown, pending: number) => void,
  ) {
    this.retry = new BackgroundRetry(() => this.retryReleases(), retryMs, retryMaxMs);
  }

  /** Reservations whose release failed and is still being retried. */
  count(): number {
    return this.unreleased.size;
  }

  /** The commandId of the failed attempt whose reservation of `key` still waits for its release. */
  waiting(key: string): string | undefined {
    return this.unreleased.get(key);
  }

  close(): void {
    this.retry.stop();
  }

  async release(held: HeldReservation[]): Promise<void> {
    for (const { key, commandId } of held) {
      try {
        await this.releaseOne(key, commandId);
      } catch (err) {
        this.unreleased.set(key, commandId);
        this.onReleaseFailed?.(err, this.unreleased.size);
        this.retry.schedule();
      }
    }
  }

  /**
   * Releases at once the reservation of `key` if it waits for its release (a retry met it); false when
   * none waits. A store failure is thrown.
   */
  async releaseWaiting(key: string): Promise<boolean> {
    const stale = this.unreleased.get(key);
    if (stale === undefined) return false;
    await this.releaseOne(key, stale);
    this.unreleased.delete(key);
    return true;
  }

  /** Deletes the reservation only if it is still this attempt's. */
  private async releaseOne(key: string, commandId: string): Promise<void> {
    const doc = await this.reservations.findOne({ _id: key }, { projection: { commandId: 1 } });
    // The filter names the command too: another attempt may have taken the key over in between.
    if (doc?.commandId === commandId) await this.reservations.deleteOne({ _id: key, commandId });
  }

  private async retryReleases(): Promise<{ failed: boolean; more: boolean }> {
    let failed = false;
    for (const [key, commandId] of [...this.unreleased]) {
      try {
        await this.releaseOne(key, commandId);
        // A concurrent retry may have released it and reserved the key anew in the meantime.
        if (this.unreleased.get(key) === commandId) this.unreleased.delete(key);
      } catch {
        failed = true;
        break;
      }
    }
    return { failed, more: this.unreleased.size > 0 };
  }
}
