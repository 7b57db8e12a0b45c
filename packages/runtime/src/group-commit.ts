import { GroupFlusher } from './group-flusher';

/** One submit call waiting for its group. */
export interface QueuedSubmit<I, O> {
  items: I[];
  resolve: (outcomes: O[]) => void;
  reject: (err: unknown) => void;
}

/** The two stages of a group: `reserve` runs for one group at a time, `complete` overlaps the next group's. */
export interface GroupStages<I, O, R> {
  /** A rejection rejects every request of the group. */
  reserve(group: QueuedSubmit<I, O>[]): Promise<R>;
  /** Answers (resolves or rejects) each request of the group. */
  complete(group: QueuedSubmit<I, O>[], reserved: R): Promise<void>;
}

/**
 * Group commit of submit calls: calls made while the previous group's `reserve` is in flight (or within
 * `windowMs` of an idle queue; 0 = those of the same turn of the event loop) go together as one group of
 * whole requests, up to `maxItems` items (a single request larger than this still goes whole).
 */
export class GroupCommit<I, O, R> {
  private readonly queue: QueuedSubmit<I, O>[] = [];
  private readonly flusher: GroupFlusher;

  constructor(
    windowMs: number,
    private readonly maxItems: number,
    private readonly stages: GroupStages<I, O, R>,
  ) {
    this.flusher = new GroupFlusher({
      lingerMs: windowMs,
      pending: () => this.queue.length > 0,
      run: () => this.runGroup(),
    });
  }

  submit(items: I[]): Promise<O[]> {
    if (items.length === 0) return Promise.resolve([]);
    return new Promise((resolve, reject) => {
      this.queue.push({ items, resolve, reject });
      this.flusher.request();
    });
  }

  /**
   * Takes whole requests off the queue up to `maxItems` items (at least one request) and reserves them;
   * the next group may form as soon as the reservation ended, while this one completes.
   */
  private async runGroup(): Promise<void> {
    const group: QueuedSubmit<I, O>[] = [];
    let size = 0;
    while (
      this.queue.length > 0 &&
      (group.length === 0 || size + this.queue[0]!.items.length <= this.maxItems)
    ) {
      const next = this.queue.shift()!;
      group.push(next);
      size += next.items.length;
    }
    if (group.length === 0) return;
    let reserved: R;
    try {
      reserved = await this.stages.reserve(group);
    } catch (err) {
      for (const request of group) request.reject(err);
      return;
    }
    // complete answers every request itself; should it fail anyway, its requests are not left waiting
    // (a request already answered ignores the rejection).
    this.stages.complete(group, reserved).catch((err: unknown) => {
      for (const request of group) request.reject(err);
    });
  }
}
