import { SCREENING_LISTS, type ScreeningList } from '@crs/screening-core/matcher';

/**
 * Threshold overrides: business unit (or `*`) -> list (or `*`) -> threshold, e.g.
 * `{ "*": { "PEP": 0.9 }, "BANK-A": { "SANCTIONS": 0.8, "*": 0.88 } }`.
 */
export type ThresholdOverrides = Readonly<Record<string, Readonly<Record<string, number>>>>;

export class ScreeningThresholdInvalidError extends Error {
  readonly code = 'SCREENING_THRESHOLD_INVALID';
  constructor(message: string) {
    super(message);
    this.name = 'ScreeningThresholdInvalidError';
  }
}

const validThreshold = (v: unknown): v is number =>
  typeof v === 'number' && Number.isFinite(v) && v > 0 && v <= 1;

/** Parses and checks the overrides JSON; every threshold must lie in (0, 1] and every list be known. */
export function parseThresholdOverrides(json: string): ThresholdOverrides {
  if (json.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch (err) {
    throw new ScreeningThresholdInvalidError(`threshold overrides are not JSON: ${(err as Error).message}`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new ScreeningThresholdInvalidError(
      'threshold overrides must be an object of business unit -> list -> threshold',
    );
  }
  const out: Record<string, Record<string, number>> = {};
  for (const [bu, byList] of Object.entries(parsed)) {
    if (byList === null || typeof byList !== 'object' || Array.isArray(byList)) {
      throw new ScreeningThresholdInvalidError(
        `threshold overrides of ${bu} must be an object of list -> threshold`,
      );
    }
    out[bu] = {};
    for (const [list, t] of Object.entries(byList as Record<string, unknown>)) {
      if (list !== '*' && !SCREENING_LISTS.includes(list as ScreeningList)) {
        throw new ScreeningThresholdInvalidError(`unknown list ${list} in the threshold overrides of ${bu}`);
      }
      if (!validThreshold(t))
        throw new ScreeningThresholdInvalidError(`threshold ${bu}/${list} must be a number in (0, 1]`);
      out[bu]![list] = t;
    }
  }
  return out;
}

/** Most specific wins: business unit + list, business unit, any unit + list, any unit, then the base. */
export function resolveThreshold(
  base: number,
  overrides: ThresholdOverrides,
  businessUnit: string,
  list: ScreeningList,
): number {
  return (
    overrides[businessUnit]?.[list] ??
    overrides[businessUnit]?.['*'] ??
    overrides['*']?.[list] ??
    overrides['*']?.['*'] ??
    base
  );
}

/** The per-list thresholds of one business unit, in the shape `screen()` takes. */
export function thresholdsFor(
  base: number,
  overrides: ThresholdOverrides,
  businessUnit: string,
): Record<ScreeningList, number> {
  return Object.fromEntries(
    SCREENING_LISTS.map((l) => [l, resolveThreshold(base, overrides, businessUnit, l)]),
  ) as Record<ScreeningList, number>;
}
