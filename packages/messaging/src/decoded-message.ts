/** A consumed message after schema-registry decoding, with its Kafka coordinates. */
export interface DecodedMessage<T = unknown> {
  topic: string;
  partition: number;
  offset: string;
  key: string;
  type: string;
  value: T;
}

/** A message to produce: topic, key (keeps per-aggregate order), type (selects the schema) and value. */
export interface OutgoingMessage {
  topic: string;
  key: string;
  type: string;
  value: unknown;
  headers?: Record<string, string>;
}

export function headerString(headers: Record<string, unknown> | undefined, name: string): string | undefined {
  const v = headers?.[name];
  if (v === undefined || v === null) return undefined;
  return Buffer.isBuffer(v) ? v.toString('utf8') : String(v);
}
