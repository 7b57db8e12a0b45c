import type { ScreeningResult } from './risk-subject';

/** CONFIRMED: analyst confirmed; POTENTIAL: matched, not reviewed; DISMISSED: matched, reviewed as false positive. */
export type ScreeningStatus = 'CONFIRMED' | 'POTENTIAL' | 'DISMISSED' | 'NO_MATCH';

export function screeningStatus(result: ScreeningResult | undefined): ScreeningStatus | undefined {
  if (typeof result !== 'object' || result === null || typeof result.matched !== 'boolean') return undefined;
  if (!result.matched) return 'NO_MATCH';
  if (result.confirmed === true) return 'CONFIRMED';
  if (result.confirmed === false) return 'DISMISSED';
  return 'POTENTIAL';
}
