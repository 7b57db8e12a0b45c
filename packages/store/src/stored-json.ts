import type { AssessmentData } from '@crs/contracts/types';

/*
 * Parts of the read models stored as one JSON string instead of nested fields, and read back here in
 * both forms (the string, or the object that documents written before hold): a risk assessment's
 * explanation (decision 0043), a communication event's data (decision 0046) and the customer record
 * (decision 0049). FerretDB v1 converts, stores and on every update rewrites a document field by field;
 * nothing queries inside these parts.
 *
 * A risk assessment's explanation as the read models store it: one JSON string (decision 0043).
 * The explanation is the engine's whole breakdown (every factor with its inputs, weights and
 * contribution: about 230 fields). Nothing queries inside it, and FerretDB converts a document field
 * by field on every write and read, so as a nested object it was most of the field work of a
 * customer's documents (the assessment, the customer document's latest assessment, the event in
 * `communication_events`). Level, score, source and matrix stay fields of their own. Documents written
 * before keep the object: `readAssessment` takes both.
 */

/** An assessment's fields, the explanation as stored: a JSON string (or the object, written before 0043). */
export type StoredAssessmentData = Omit<AssessmentData, 'explanation'> & {
  explanation?: string | AssessmentData['explanation'];
};

/** The stored form of an assessment: its explanation as one JSON string. */
export function storeAssessment<T extends AssessmentData>(
  a: T,
): Omit<T, 'explanation'> & { explanation?: string } {
  const { explanation, ...rest } = a;
  return explanation === undefined ? rest : { ...rest, explanation: JSON.stringify(explanation) };
}

/** An assessment as read from a read model, its explanation an object again (either stored form). */
export function readAssessment<T extends StoredAssessmentData>(
  a: T,
): Omit<T, 'explanation'> & { explanation?: AssessmentData['explanation'] } {
  const { explanation, ...rest } = a;
  if (explanation === undefined) return rest;
  return {
    ...rest,
    explanation:
      typeof explanation === 'string'
        ? (JSON.parse(explanation) as AssessmentData['explanation'])
        : explanation,
  };
}

/**
 * The data of a `communication_events` document as the event carried it. Stored as one JSON string
 * since decision 0046; documents written before hold the object, a RiskAssessed event's assessment with
 * its explanation as a string (decision 0043) or, older still, as the object.
 */
export function readEventData(
  type: string,
  stored: string | Record<string, unknown>,
): Record<string, unknown> {
  if (typeof stored === 'string') return JSON.parse(stored) as Record<string, unknown>;
  const data = stored;
  if (type !== 'RiskAssessed' || typeof data.assessment !== 'object' || data.assessment === null) return data;
  return { ...data, assessment: readAssessment(data.assessment as StoredAssessmentData) };
}

/**
 * The customer record of a `customers` document (`CustomerDoc.data`). Stored as one JSON string since
 * decision 0049: FerretDB v1 converts, stores and on every update rewrites a document field by field, and
 * the record was about 30 of a customer document's fields (inserting customer documents went from 5,400 to
 * 9,400 a second, measured). Documents written before hold the object; `undefined` when the document has
 * no record (a stream that never got one).
 */
export function readCustomerRecord<T extends Record<string, unknown> = Record<string, unknown>>(
  stored: string | T | null | undefined,
): T | undefined {
  if (stored === undefined || stored === null) return undefined;
  return typeof stored === 'string' ? (JSON.parse(stored) as T) : stored;
}
