/**
 * The id of an aggregate's stream, also its Kafka key, its data key's id and its read models' `_id`:
 * `<businessUnit>:<extId>` (a customerExtId or an operationExtId), as the message schemas describe streamId.
 */
export function streamKey(businessUnit: string, extId: string): string {
  return `${businessUnit}:${extId}`;
}
