/**
 * A mutual exclusion between the processors of one decider that append to the same streams (the
 * operation decider's ingest and command topics): a stream version must be decided against every event
 * committed before it. Held from a batch's decision until its transaction committed or aborted.
 */
export class DecisionLock {
  private tail: Promise<void> = Promise.resolve();
  private holder: { owner: string; release: () => void } | undefined;

  async acquire(owner: string): Promise<void> {
    const previous = this.tail;
    let release!: () => void;
    this.tail = new Promise<void>((r) => (release = r));
    await previous;
    this.holder = { owner, release };
  }

  isHeldBy(owner: string): boolean {
    return this.holder?.owner === owner;
  }

  /** Only the owner releases: a processor that failed before acquiring must not free another's lock. */
  release(owner: string): boolean {
    if (this.holder?.owner !== owner) return false;
    const { release } = this.holder;
    this.holder = undefined;
    release();
    return true;
  }
}
