import type { AssessmentData, CustomerEventData, RiskLevel } from '@crs/contracts/types';
import {
  RiskMatrixEntityTypeUnsupportedError,
  evaluateRisk,
  type Assessment,
  type FactorAssessment,
  type RiskSubject,
  type ScreeningResults,
} from '@crs/risk-engine';
import { toJsonValue } from './json-value';
import { matrixFor, type MatrixSet } from './matrix-set';

export type EvaluationRequest = CustomerEventData['RiskEvaluationRequested'];

export type EvaluationFailureReason = 'NO_CUSTOMER' | 'NO_MATRIX' | 'ENTITY_TYPE_UNSUPPORTED';

export type EvaluationOutcome =
  | { kind: 'ASSESSED'; assessment: AssessmentData; fallback: boolean }
  | { kind: 'FAILED'; reason: EvaluationFailureReason; message: string };

export interface EvaluationPolicy {
  /** YYYY-MM-DD: the evaluation date (the engine reads no clock). */
  today: string;
  /** Level recorded when no matrix serves the customer; undefined records nothing. */
  noMatrixLevel?: RiskLevel;
}

function factorView(f: FactorAssessment) {
  return {
    id: f.id,
    label: f.label,
    kind: f.kind,
    ...(f.riskCategory ? { riskCategory: f.riskCategory } : {}),
    applicable: f.applicable,
    inputValue: f.inputValue ?? null,
    score: f.score,
    weight: f.weight,
    contribution: f.contribution,
    explanation: f.explanation,
  };
}

/**
 * The engine's full breakdown, as recorded with the assessment and sent to the client: every factor
 * with its input, score, normalised weight and contribution, the floors that matched and the one that
 * raised the level. Related entities keep their own breakdown but not their names (the client has them).
 */
export function explanationOf(a: Assessment): Record<string, unknown> {
  // JSON values only: the explanation travels through a JSON Schema registry and MongoDB.
  return toJsonValue({
    matrixId: a.matrixId,
    matrixVersion: a.matrixVersion,
    evaluatedOn: a.today,
    entityType: a.entityType,
    score: a.score,
    scoreLevel: a.scoreLevel,
    level: a.level,
    floorApplied: a.floorApplied ?? null,
    floorsMatched: a.floorsMatched,
    whiteListRelief: a.whiteListRelief ?? null,
    factors: a.factors.map(factorView),
    relatedEntities: a.relatedEntities.map((r) => ({
      index: r.index,
      key: r.key,
      relationType: r.relationType ?? null,
      share: r.share ?? null,
      entityType: r.entityType,
      score: r.score,
      scoreLevel: r.scoreLevel,
      level: r.level,
      floorApplied: r.floorApplied ?? null,
      factors: r.factors.map(factorView),
    })),
  });
}

/**
 * The screening summary the decider sends ({ matched, hitCount, confirmed }) in the engine's terms:
 * confirmed true is a reviewer-confirmed match, false a dismissed one, absent a match not reviewed yet.
 */
function screeningOf(request: EvaluationRequest): ScreeningResults {
  const out: ScreeningResults = {};
  for (const [list, r] of Object.entries(request.screening ?? {})) {
    if (r && typeof r.matched === 'boolean')
      out[list as keyof ScreeningResults] = {
        matched: r.matched,
        ...(typeof r.confirmed === 'boolean' ? { confirmed: r.confirmed } : {}),
      };
  }
  return out;
}

/**
 * Evaluates one RiskEvaluationRequested against the active matrices. Pure: the request carries the
 * whole subject (record, latest screening, internal-list purpose), the matrices and the date are
 * arguments. A customer no matrix serves is a failure unless the policy names a level for it.
 */
export function assessRequest(
  request: EvaluationRequest,
  businessUnit: string,
  matrices: MatrixSet,
  policy: EvaluationPolicy,
): EvaluationOutcome {
  const customer = request.customer;
  if (!customer)
    return { kind: 'FAILED', reason: 'NO_CUSTOMER', message: 'the request carries no customer record' };
  const category =
    typeof customer.riskManagementCategory === 'string' ? customer.riskManagementCategory : undefined;
  const matrix = matrixFor(matrices, businessUnit, category);
  if (!matrix) {
    const message = `no risk matrix of business unit ${businessUnit} serves category ${category ?? '(none)'}`;
    if (!policy.noMatrixLevel) return { kind: 'FAILED', reason: 'NO_MATRIX', message };
    return {
      kind: 'ASSESSED',
      fallback: true,
      assessment: {
        source: 'EVALUATE',
        level: policy.noMatrixLevel,
        explanation: {
          fallback: true,
          reason: 'NO_MATRIX',
          description: `${message}; the configured default level applies`,
          evaluatedOn: policy.today,
        },
      },
    };
  }
  const subject = {
    ...customer,
    ...(request.listPurpose ? { listPurpose: request.listPurpose } : {}),
  } as RiskSubject;
  let assessed: Assessment;
  try {
    assessed = evaluateRisk(subject, matrix, { today: policy.today, screening: screeningOf(request) });
  } catch (err) {
    if (err instanceof RiskMatrixEntityTypeUnsupportedError) {
      return { kind: 'FAILED', reason: 'ENTITY_TYPE_UNSUPPORTED', message: err.message };
    }
    throw err;
  }
  return {
    kind: 'ASSESSED',
    fallback: false,
    assessment: {
      source: 'EVALUATE',
      level: assessed.level,
      score: assessed.score,
      matrixId: assessed.matrixId,
      matrixVersion: assessed.matrixVersion,
      explanation: explanationOf(assessed),
    },
  };
}
