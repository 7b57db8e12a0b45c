/**
 * Reads the facts a factor needs from a loosely typed record. Every reader tolerates missing fields and
 * values of the wrong type (they yield nothing), which is what keeps evaluateRisk total.
 */
import type { BandSource, CodeSource, CountrySource } from './risk-matrix';
import type { RelatedEntity, RiskSubject } from './risk-subject';

/** A customer or a related entity: the related entity's own `country` field is read as well. */
export type SubjectRecord = RiskSubject & Pick<RelatedEntity, 'country'>;

export interface CountryFact {
  source: CountrySource;
  value: string;
}

export function asBoolean(value: unknown): boolean | undefined {
  return typeof value === 'boolean' ? value : undefined;
}

export function asText(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed;
}

export function asNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'string' && value.trim() !== '') {
    const parsed = Number(value.trim());
    return Number.isFinite(parsed) ? parsed : undefined;
  }
  return undefined;
}

/** Items of a list field that are objects; anything else in the array is ignored. */
export function listItems(value: unknown): Record<string, unknown>[] {
  if (!Array.isArray(value)) return [];
  return value.filter((item): item is Record<string, unknown> => typeof item === 'object' && item !== null);
}

function field(subject: SubjectRecord, name: string): unknown {
  return (subject as Record<string, unknown>)[name];
}

const SINGLE_COUNTRY_FIELDS = [
  'citizenshipCountry',
  'secondCitizenshipCountry',
  'permanentResidenceCountry',
  'birthCountry',
  'registrationCountry',
  'country',
] as const;

const RELATED_COUNTRY_SOURCES: readonly CountrySource[] = [
  'country',
  'citizenshipCountry',
  'birthCountry',
  'registrationCountry',
  'listAddress',
  'listCountryOfActivity',
];

/** The subject's own country sources (everything but relatedEntities). */
export const OWN_COUNTRY_SOURCES: readonly CountrySource[] = [
  'citizenshipCountry',
  'secondCitizenshipCountry',
  'permanentResidenceCountry',
  'birthCountry',
  'registrationCountry',
  'country',
  'listAddress',
  'listCountryOfActivity',
  'listPaymentCountry',
  'listCountryOfTaxPayment',
];

export function countriesOf(subject: SubjectRecord, sources: readonly CountrySource[]): CountryFact[] {
  const facts: CountryFact[] = [];
  for (const source of sources) {
    if ((SINGLE_COUNTRY_FIELDS as readonly string[]).includes(source)) {
      const value = asText(field(subject, source));
      if (value !== undefined) facts.push({ source, value });
    } else if (source === 'relatedEntities') {
      for (const related of listItems(subject.listRelatedEntity)) {
        for (const fact of countriesOf(related as SubjectRecord, RELATED_COUNTRY_SOURCES)) {
          facts.push({ source, value: fact.value });
        }
      }
    } else {
      for (const item of listItems(field(subject, source))) {
        const value = asText(item['country']);
        if (value !== undefined) facts.push({ source, value });
      }
    }
  }
  return facts;
}

const CODE_ITEM_FIELD: Record<Exclude<CodeSource, 'legalForm'>, string> = {
  listActivity: 'activityType',
  listOrderedService: 'serviceType',
  listIntroductionSource: 'introductionSource',
  listSourceOfWealth: 'code',
  listIncomeSource: 'incomeSourceType',
  listPaymentPurpose: 'paymentPurposeType',
};

/** Codes in record order, upper-cased; duplicates kept out so explanations stay short. */
export function codesOf(subject: SubjectRecord, source: CodeSource): string[] {
  const raw: string[] = [];
  if (source === 'legalForm') {
    const value = asText(subject.legalForm);
    if (value !== undefined) raw.push(value);
  } else {
    for (const item of listItems(field(subject, source))) {
      const value = asText(item[CODE_ITEM_FIELD[source]]);
      if (value !== undefined) raw.push(value);
    }
  }
  return [...new Set(raw.map((code) => code.toUpperCase()))];
}

/** Year, month and day of a valid YYYY-MM-DD date (a date-time is cut to its date), or undefined. */
export function parseIsoDate(value: unknown): { year: number; month: number; day: number } | undefined {
  if (typeof value !== 'string') return undefined;
  const match = /^(\d{4})-(\d{2})-(\d{2})/.exec(value.trim());
  if (!match) return undefined;
  const year = Number(match[1]);
  const month = Number(match[2]);
  const day = Number(match[3]);
  const check = new Date(Date.UTC(year, month - 1, day));
  if (check.getUTCFullYear() !== year || check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day) {
    return undefined;
  }
  return { year, month, day };
}

/** Completed years between two YYYY-MM-DD dates; undefined when either is invalid or `from` is after `to`. */
export function completedYears(from: unknown, to: unknown): number | undefined {
  const start = parseIsoDate(from);
  const end = parseIsoDate(to);
  if (!start || !end) return undefined;
  let years = end.year - start.year;
  if (end.month < start.month || (end.month === start.month && end.day < start.day)) years -= 1;
  return years < 0 ? undefined : years;
}

export function bandValueOf(subject: SubjectRecord, source: BandSource, today: string): number | undefined {
  switch (source) {
    case 'declaredTurnover': {
      const amounts = listItems(subject.listDeclaredTurnover)
        .map((item) => asNumber(item['to']) ?? asNumber(item['from']))
        .filter((amount): amount is number => amount !== undefined);
      return amounts.length === 0 ? undefined : Math.max(...amounts);
    }
    case 'businessAgeYears':
      return completedYears(subject.establishmentDate, today);
    case 'initialDepositAmount':
      return asNumber(subject.initialDepositAmount);
    case 'companyAssetValue':
      return asNumber(subject.companyAssetValue);
    default: {
      const unknownSource: never = source;
      return unknownSource;
    }
  }
}
