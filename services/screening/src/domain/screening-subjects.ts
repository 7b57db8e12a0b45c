import type { CustomerData } from '@crs/contracts/types';
import type { EntityType, Identifier, ScreeningQuery } from '@crs/screening-core/matcher';
import { SEALED_FIELD } from '@crs/privacy/rules';

/** Who is screened: the customer itself or one of its related entities, with what is known about them. */
export interface ScreeningSubject {
  /** `CUSTOMER` or `listRelatedEntity[i]`, the form the decider's hit keys use. */
  key: string;
  entityType: EntityType;
  /** Names to screen (an organisation's title and trading name); the best hit per entry wins. */
  names: string[];
  birthDate?: string;
  countries?: string[];
  identifiers?: Identifier[];
}

type Rec = Record<string, unknown>;

function text(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
}

function present<T>(values: (T | undefined)[]): T[] {
  return values.filter((v): v is T => v !== undefined);
}

function uniq(values: string[]): string[] {
  return [...new Set(values)];
}

function identifiers(rec: Rec, nationalCodeType: string): Identifier[] {
  const out: Identifier[] = [];
  const nationalCode = text(rec.nationalCode);
  if (nationalCode) out.push({ type: nationalCodeType, value: nationalCode });
  const lei = text(rec.lei);
  if (lei) out.push({ type: 'LEI', value: lei });
  return out;
}

function subjectOf(rec: Rec, key: string, extraCountries: string[]): ScreeningSubject | undefined {
  const org = rec.entityType === 'ORGANIZATION';
  const names = org
    ? present([text(rec.title), text(rec.tradingName)])
    : present([[text(rec.firstName), text(rec.lastName)].filter(Boolean).join(' ') || undefined]);
  if (names.length === 0) return undefined;
  const countries = uniq(
    present(
      (org
        ? ['registrationCountry', 'country', ...extraCountries]
        : [
            'citizenshipCountry',
            'secondCitizenshipCountry',
            'birthCountry',
            'permanentResidenceCountry',
            'country',
            ...extraCountries,
          ]
      ).map((f) => text(rec[f])),
    ),
  );
  const ids = identifiers(rec, org ? 'REGISTRATION' : 'NATIONAL_ID');
  const birthDate = org ? undefined : text(rec.birthDate);
  return {
    key,
    entityType: org ? 'ORGANIZATION' : 'INDIVIDUAL',
    names: uniq(names),
    ...(birthDate ? { birthDate } : {}),
    ...(countries.length > 0 ? { countries } : {}),
    ...(ids.length > 0 ? { identifiers: ids } : {}),
  };
}

/** What `subjectOf` reads of a party (the customer, or one related entity). */
const SUBJECT_FIELDS = [
  'entityType',
  'firstName',
  'lastName',
  'title',
  'tradingName',
  'birthDate',
  'nationalCode',
  'lei',
  'registrationCountry',
  'citizenshipCountry',
  'secondCitizenshipCountry',
  'birthCountry',
  'permanentResidenceCountry',
  'country',
] as const;

function pick(rec: Rec): Rec {
  const out: Rec = {};
  for (const f of SUBJECT_FIELDS) if (rec[f] !== undefined) out[f] = rec[f];
  return out;
}

/**
 * The part of a customer record that `screeningSubjects` reads: each party's names, birth date, national
 * code / LEI and countries; related entities keep their positions (the subject keys name them). The
 * screening service decrypts only this (not addresses, contacts, documents: docs/privacy.md) and keeps
 * only this of the customers on its internal list. Of a sealed record, the sealed field goes along: it
 * is opened in memory, and only the placeholders picked here come out as values.
 */
export function screenedFields(customer: CustomerData | Rec): Rec {
  const out = pick(customer);
  // A sealed record's personal values are all in one field at its root (decision 0054): kept, so the
  // placeholders picked here still decrypt; the values of the fields not picked stay sealed in it.
  const sealed = (customer as Rec)[SEALED_FIELD];
  if (sealed !== undefined) out[SEALED_FIELD] = sealed;
  if (Array.isArray(customer.listRelatedEntity))
    out.listRelatedEntity = (customer.listRelatedEntity as unknown[]).map((r) =>
      r !== null && typeof r === 'object' && !Array.isArray(r) ? pick(r as Rec) : r,
    );
  return out;
}

/**
 * The parties of a customer record to screen: the customer (persons by first and last name, organisations
 * by title and trading name) and each related entity, with birth date, countries and national code / LEI as
 * qualifiers. Parties without a name are skipped; their position still names the related entity.
 */
export function screeningSubjects(customer: CustomerData | Rec): ScreeningSubject[] {
  const out: ScreeningSubject[] = [];
  const own = subjectOf(customer, 'CUSTOMER', []);
  if (own) out.push(own);
  const related = Array.isArray(customer.listRelatedEntity) ? (customer.listRelatedEntity as unknown[]) : [];
  related.forEach((r, i) => {
    if (r === null || typeof r !== 'object') return;
    const s = subjectOf(r as Rec, `listRelatedEntity[${i}]`, []);
    if (s) out.push(s);
  });
  return out;
}

/** The queries of one subject (one per name). */
export function subjectQueries(subject: ScreeningSubject): ScreeningQuery[] {
  return subject.names.map((name) => ({
    name,
    entityType: subject.entityType,
    ...(subject.birthDate ? { birthDate: subject.birthDate } : {}),
    ...(subject.countries ? { countries: subject.countries } : {}),
    ...(subject.identifiers ? { identifiers: subject.identifiers } : {}),
  }));
}
