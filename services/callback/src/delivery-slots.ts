/**
 * Who may send now: at most `concurrency` attempts at once, at most `perEndpoint` to one endpoint (a slow
 * receiver holds only its own slots), and one at a time per lane (customer and endpoint), so one
 * customer's callbacks keep their order. Shared by the batch path and the retry dispatcher.
 */
export class DeliverySlots {
  private readonly lanes = new Set<string>();
  private readonly perEndpoint = new Map<string, number>();
  private total = 0;
  private readonly slowUntil = new Map<string, number>();
  private waiters: { lane: string; endpointId: string; grant: (ok: boolean) => void }[] = [];

  constructor(
    readonly concurrency: number,
    readonly perEndpointLimit: number,
  ) {}

  get inFlight(): number {
    return this.total;
  }

  /** How many more attempts to this endpoint may start now. */
  freeFor(endpointId: string): number {
    return Math.max(
      0,
      Math.min(
        this.concurrency - this.total,
        this.perEndpointLimit - (this.perEndpoint.get(endpointId) ?? 0),
      ),
    );
  }

  laneBusy(lane: string): boolean {
    return this.lanes.has(lane);
  }

  /**
   * An endpoint that kept an attempt longer than a batch waits is slow for a while: the batch path then
   * queues its deliveries instead of trying them, so it does not hold up the batches of other endpoints.
   */
  markSlow(endpointId: string, untilMs: number): void {
    this.slowUntil.set(endpointId, untilMs);
  }

  isSlow(endpointId: string, nowMs: number): boolean {
    const until = this.slowUntil.get(endpointId);
    if (until === undefined) return false;
    if (until > nowMs) return true;
    this.slowUntil.delete(endpointId);
    return false;
  }

  /** Takes a slot for the lane if one is free now. */
  tryTake(lane: string, endpointId: string): boolean {
    if (this.total >= this.concurrency || this.lanes.has(lane)) return false;
    const n = this.perEndpoint.get(endpointId) ?? 0;
    if (n >= this.perEndpointLimit) return false;
    this.lanes.add(lane);
    this.perEndpoint.set(endpointId, n + 1);
    this.total += 1;
    return true;
  }

  /** Waits for a slot (first come, first served); false when `signal` aborts first. */
  take(lane: string, endpointId: string, signal: AbortSignal): Promise<boolean> {
    if (signal.aborted) return Promise.resolve(false);
    if (this.waiters.length === 0 && this.tryTake(lane, endpointId)) return Promise.resolve(true);
    return new Promise<boolean>((resolve) => {
      const waiter = {
        lane,
        endpointId,
        grant: (ok: boolean) => {
          signal.removeEventListener('abort', onAbort);
          resolve(ok);
        },
      };
      const onAbort = () => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        waiter.grant(false);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(waiter);
      this.grantWaiting();
    });
  }

  release(lane: string, endpointId: string): void {
    this.lanes.delete(lane);
    this.perEndpoint.set(endpointId, (this.perEndpoint.get(endpointId) ?? 1) - 1);
    this.total -= 1;
    this.grantWaiting();
  }

  private grantWaiting(): void {
    if (this.waiters.length === 0) return;
    const still: typeof this.waiters = [];
    for (const [i, w] of this.waiters.entries()) {
      if (this.total >= this.concurrency) {
        still.push(...this.waiters.slice(i));
        break;
      }
      if (this.tryTake(w.lane, w.endpointId)) w.grant(true);
      else still.push(w);
    }
    this.waiters = still;
  }
}
