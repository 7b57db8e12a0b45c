import { toAlpha2 } from 'i18n-iso-countries';

/**
 * ISO 3166-1 alpha-2 code for an alpha-2, alpha-3 or numeric code, in any case; undefined when the
 * value is not a known country code. Country names are not accepted: they are ambiguous across languages.
 */
export function normaliseCountry(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const code = value.trim().toUpperCase();
  if (!/^(?:[A-Z]{2,3}|\d{3})$/.test(code)) return undefined;
  return toAlpha2(code);
}
