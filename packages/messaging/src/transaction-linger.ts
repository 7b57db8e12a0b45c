/**
 * When a partition's next batch waits before it is processed (decision 0086): only under load, so that
 * what arrives meanwhile joins the next fetch and one transaction carries it.
 *
 * A transaction costs the same handful of broker requests (AddPartitionsToTxn, Produce, AddOffsetsToTxn,
 * TxnOffsetCommit, EndTxn) whether it carries one customer or fifty; at 40-110 customers/s on the local stack
 * most transactions carried one or two, and those requests were most of the broker's CPU and a large part
 * of every processor's. A batch that arrives less than `ms` after the partition's last batch ended waits out
 * the rest of `ms`, but only when the partition saw at least `minKeys` distinct keys within the last
 * `windowMs`: one customer's own commands arrive back to back (created, assessed, screened within ~100 ms),
 * so a rule on batch spacing alone would delay a lone customer at light load; a rule on distinct keys
 * waits only when other customers' messages are there to share the transaction with.
 */
export interface LingerRule {
  /** The wait after a batch (0: never). */
  ms: number;
  /** How far back the distinct keys are counted. */
  windowMs: number;
  /** Distinct keys within the window from which the partition counts as under load. */
  minKeys: number;
}

/**
 * `KAFKA_TXN_LINGER_MS` (default 0: off; 20 is the value measured), over the last 100 ms and 3 distinct keys.
 */
export const DEFAULT_LINGER_RULE: Readonly<LingerRule> = { ms: 0, windowMs: 100, minKeys: 3 };

/** One partition's recent keys and last batch end: what the rule reads. Times are the caller's clock (ms). */
export class TransactionLinger {
  /** Each key with when it was last seen, oldest first (a key seen again moves to the end). */
  private readonly keys = new Map<string, number>();
  private lastBatchEnd: number | undefined;

  constructor(private readonly rule: Readonly<LingerRule>) {}

  /** A batch ended at `now` with messages of these keys. */
  batchEnded(keys: Iterable<string>, now: number): void {
    this.lastBatchEnd = now;
    if (this.rule.ms <= 0) return;
    for (const key of keys) {
      this.keys.delete(key);
      this.keys.set(key, now);
    }
    this.forgetBefore(now - this.rule.windowMs);
  }

  /** How long a batch that arrived at `now` waits before it is processed (0: at once). */
  delay(now: number): number {
    const { ms, windowMs, minKeys } = this.rule;
    if (ms <= 0 || this.lastBatchEnd === undefined) return 0;
    const since = now - this.lastBatchEnd;
    if (since >= ms || since < 0) return 0;
    this.forgetBefore(now - windowMs);
    return this.keys.size >= minKeys ? ms - since : 0;
  }

  private forgetBefore(oldest: number): void {
    for (const [key, at] of this.keys) {
      if (at >= oldest) break;
      this.keys.delete(key);
    }
  }
}
