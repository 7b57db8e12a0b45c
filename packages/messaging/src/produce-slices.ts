/** One encoded message as kafkajs sends it. */
export interface EncodedMessage {
  key: string;
  value: Buffer;
  headers: Record<string, string>;
}

/**
 * Bytes per produce call. kafkajs sends all messages of one call for one partition as one record
 * batch, and the broker refuses a batch above `message.max.bytes` (1 MiB by default) with
 * MESSAGE_TOO_LARGE, a non-retriable error: a consumer that decides a large backlog in one go would
 * fail the same way on every restart. Half the broker default leaves room for batch overhead.
 */
export const DEFAULT_MAX_BYTES_PER_SEND = 512 * 1024;

function sizeOf(m: EncodedMessage): number {
  let n = Buffer.byteLength(m.key) + m.value.length + 70; // record overhead (varints, timestamps)
  for (const [k, v] of Object.entries(m.headers)) n += Buffer.byteLength(k) + Buffer.byteLength(v) + 8;
  return n;
}

/**
 * Splits messages (grouped by topic, order kept) into produce calls of at most `maxBytes` each; a
 * message larger than `maxBytes` goes alone. Every call's messages keep their relative order, and
 * calls are meant to be sent one after the other, so per-key order is kept.
 */
export function produceSlices(
  byTopic: Map<string, EncodedMessage[]>,
  maxBytes = DEFAULT_MAX_BYTES_PER_SEND,
): { topic: string; messages: EncodedMessage[] }[][] {
  const slices: { topic: string; messages: EncodedMessage[] }[][] = [];
  let current = new Map<string, EncodedMessage[]>();
  let bytes = 0;
  const flush = () => {
    if (current.size > 0) slices.push([...current].map(([topic, messages]) => ({ topic, messages })));
    current = new Map();
    bytes = 0;
  };
  for (const [topic, messages] of byTopic) {
    for (const m of messages) {
      const size = sizeOf(m);
      if (bytes > 0 && bytes + size > maxBytes) flush();
      const list = current.get(topic) ?? [];
      list.push(m);
      current.set(topic, list);
      bytes += size;
    }
  }
  flush();
  return slices;
}
