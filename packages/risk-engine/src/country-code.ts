import { isValid, toAlpha2 } from 'i18n-iso-countries';

// Inputs are at most three characters, so this cache is bounded (under 20,000 entries) and saves the
// library lookup on every evaluation.
const normalised = new Map<string, string | undefined>();

/**
 * ISO 3166-1 alpha-2 code for an alpha-2, alpha-3 or numeric code, in any case; undefined when the
 * value is not a known country code. Country names are not accepted: they are ambiguous across languages.
 */
export function normaliseCountry(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const code = value.trim().toUpperCase();
  if (!/^(?:[A-Z]{2,3}|\d{3})$/.test(code)) return undefined;
  if (normalised.has(code)) return normalised.get(code);
  const alpha2 = isValid(code) ? toAlpha2(code) : undefined;
  normalised.set(code, alpha2);
  return alpha2;
}
