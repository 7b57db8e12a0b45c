/**
 * Ids of the commands the evaluation service sends, derived from what caused them, so a batch
 * processed again after a crash, or a re-evaluation job resumed, yields the same ids.
 */
export function assessmentCommandId(eventId: string): string {
  return `${eventId}:assessment`;
}

export function reevaluationCommandId(activationEventId: string, streamId: string): string {
  return `matrix:${activationEventId}:${streamId}`;
}

/** One expiry of one override: a later override of the same customer is a new key. */
export function overrideExpiryKey(streamId: string, setAt: string, expiresAt: string): string {
  return `${streamId}|${setAt}|${expiresAt}`;
}

export function overrideExpiryCommandId(key: string): string {
  return `override-expired:${key}`;
}

/** An override applies on days (or until the instant) before expiresAt; both forms compare as ISO strings. */
export function overrideExpired(expiresAt: string, nowIso: string): boolean {
  return expiresAt <= nowIso;
}
