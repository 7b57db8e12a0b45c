import type { CountryRiskIndex } from './country-risk-index';
import type { FloorCondition } from './risk-matrix';
import type { EntityType, ScreeningResults } from './risk-subject';
import { screeningStatus } from './screening-status';
import { asText, codesOf, countriesOf, OWN_COUNTRY_SOURCES, type SubjectRecord } from './subject-facts';

export interface ConditionSubject {
  record: SubjectRecord;
  entityType: EntityType;
  screening: ScreeningResults;
  /** Related entities with their screening; empty for a related entity itself. */
  related: readonly ConditionSubject[];
}

export function conditionHolds(
  condition: FloorCondition,
  subject: ConditionSubject,
  countries: CountryRiskIndex,
): boolean {
  if ('anyOf' in condition) return condition.anyOf.some((each) => conditionHolds(each, subject, countries));
  if ('allOf' in condition) return condition.allOf.every((each) => conditionHolds(each, subject, countries));
  if ('relatedEntity' in condition) {
    return subject.related.some((related) => conditionHolds(condition.relatedEntity, related, countries));
  }
  if ('screening' in condition) {
    const status = screeningStatus(subject.screening[condition.screening]);
    if (condition.status === 'CONFIRMED') return status === 'CONFIRMED';
    if (condition.status === 'POTENTIAL') return status === 'POTENTIAL';
    return status === 'CONFIRMED' || status === 'POTENTIAL';
  }
  if ('countryIn' in condition) {
    const facts = countriesOf(subject.record, condition.sources ?? OWN_COUNTRY_SOURCES);
    return facts.some((fact) => countries.isOnList(fact.value, condition.countryIn));
  }
  if ('codeIn' in condition) {
    const wanted = condition.codes.map((code) => code.trim().toUpperCase());
    return codesOf(subject.record, condition.codeIn).some((code) => wanted.includes(code));
  }
  const actual =
    condition.field === 'entityType'
      ? subject.entityType
      : (subject.record as Record<string, unknown>)[condition.field];
  if (typeof condition.equals === 'boolean') return actual === condition.equals;
  return asText(actual)?.toUpperCase() === condition.equals.trim().toUpperCase();
}
