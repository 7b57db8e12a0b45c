import { countryRiskIndex, type CountryRiskIndex } from './country-risk-index';
import { evaluateFactor, type RelatedEntityRating } from './factor-evaluation';
import { conditionHolds, type ConditionSubject } from './floor-condition';
import { levelAtRank, levelRank, RISK_LEVELS, type RiskLevel } from './risk-level';
import type { RaisedLevel, RiskMatrix, RiskThresholds, SubjectRole } from './risk-matrix';
import { RiskMatrixEntityTypeUnsupportedError } from './risk-matrix-entity-type-unsupported-error';
import type { EntityType, RiskContext, RiskSubject, ScreeningResults } from './risk-subject';
import { asNumber, asText, listItems, type SubjectRecord } from './subject-facts';

export interface FactorAssessment {
  id: string;
  label: string;
  kind: string;
  riskCategory?: string;
  /** The values the factor looked at, as found in the record. */
  inputValue: unknown;
  /** 0..100; 0 when not applicable. */
  score: number;
  /** Normalised weight: the factor's share of the total weight of the factors for this entity type and role. */
  weight: number;
  /** score x weight, rounded to 2 decimals (the total is summed before rounding). */
  contribution: number;
  explanation: string;
  applicable: boolean;
}

export interface FloorHit {
  id: string;
  level: RaisedLevel;
  reason: string;
}

export interface WhiteListReliefApplied {
  scoreBefore: number;
  scoreAfter: number;
  reason: string;
}

interface SubjectAssessment {
  entityType: EntityType;
  /** Weighted score 0..100 with 2 decimals, after white-list relief. */
  score: number;
  /** Level of the score alone. */
  scoreLevel: RiskLevel;
  /** Final level: the score level raised by the highest matching floor. */
  level: RiskLevel;
  /** The floor that raised the level above scoreLevel, when one did. */
  floorApplied?: FloorHit;
  /** Every floor whose condition held, in matrix order. */
  floorsMatched: FloorHit[];
  whiteListRelief?: WhiteListReliefApplied;
  factors: FactorAssessment[];
}

export interface RelatedEntityAssessment extends SubjectAssessment {
  /** Index in listRelatedEntity. */
  index: number;
  /** extId, or `#<index>` when there is none; also the key of its screening results in the context. */
  key: string;
  relationType?: string;
  name?: string;
  share?: number;
}

export interface Assessment extends SubjectAssessment {
  matrixId: string;
  matrixVersion: number;
  today: string;
  relatedEntities: RelatedEntityAssessment[];
}

function round2(value: number): number {
  return Math.round(value * 100) / 100;
}

/** Level of a score: the highest level whose threshold the score reaches (thresholds are inclusive). */
export function levelForScore(score: number, thresholds: RiskThresholds): RiskLevel {
  let level: RiskLevel = 'NONE';
  for (const candidate of RISK_LEVELS) {
    if (candidate !== 'NONE' && score >= thresholds[candidate]) level = candidate;
  }
  return level;
}

function thresholdOf(level: RiskLevel, thresholds: RiskThresholds): number {
  return level === 'NONE' ? 0 : thresholds[level];
}

function resolveEntityType(record: SubjectRecord, fallback: readonly EntityType[]): EntityType {
  const declared = asText(record.entityType)?.toUpperCase();
  if (declared === 'INDIVIDUAL' || declared === 'ORGANIZATION') return declared;
  if (fallback.length === 1 && fallback[0] !== undefined) return fallback[0];
  return asText(record.title) !== undefined ? 'ORGANIZATION' : 'INDIVIDUAL';
}

function screeningOf(value: unknown): ScreeningResults {
  return typeof value === 'object' && value !== null ? (value as ScreeningResults) : {};
}

interface SubjectRun {
  record: SubjectRecord;
  entityType: EntityType;
  role: SubjectRole;
  screening: ScreeningResults;
  related: readonly { rating: RelatedEntityRating; condition: ConditionSubject }[];
}

function assessSubject(
  run: SubjectRun,
  matrix: RiskMatrix,
  today: string,
  countries: CountryRiskIndex,
): SubjectAssessment {
  const factors = matrix.factors.filter(
    (factor) =>
      factor.appliesTo.entityTypes.includes(run.entityType) && factor.appliesTo.roles.includes(run.role),
  );
  const totalWeight = factors.reduce((sum, factor) => sum + factor.weight, 0);
  const input = {
    record: run.record,
    screening: run.screening,
    today,
    countries,
    related: run.related.map((each) => each.rating),
  };
  let raw = 0;
  const assessed: FactorAssessment[] = factors.map((factor) => {
    const outcome = evaluateFactor(factor, input);
    const weight = totalWeight > 0 ? factor.weight / totalWeight : 0;
    const contribution = outcome.score * weight;
    raw += contribution;
    return {
      id: factor.id,
      label: factor.label,
      kind: factor.kind,
      ...(factor.riskCategory ? { riskCategory: factor.riskCategory } : {}),
      inputValue: outcome.inputValue,
      score: round2(outcome.score),
      weight: Math.round(weight * 10000) / 10000,
      contribution: round2(contribution),
      explanation: outcome.explanation,
      applicable: outcome.applicable,
    };
  });

  // The level is derived from the rounded score so that the reported score and level always agree.
  let score = round2(Math.min(100, Math.max(0, raw)));
  let scoreLevel = levelForScore(score, matrix.thresholds);
  let whiteListRelief: WhiteListReliefApplied | undefined;
  const relief = matrix.scoring.whiteListRelief;
  if (relief && asText(run.record.listPurpose)?.toUpperCase() === 'WHITE') {
    const lowestLevel = levelAtRank(levelRank(scoreLevel) - relief.maxLevelsDown);
    const relieved = round2(
      Math.max(score - relief.scorePoints, thresholdOf(lowestLevel, matrix.thresholds)),
    );
    const relievedScore = Math.min(score, relieved);
    whiteListRelief = {
      scoreBefore: score,
      scoreAfter: relievedScore,
      reason: `listPurpose WHITE lowers the score by up to ${relief.scorePoints} points and at most ${relief.maxLevelsDown} level(s)`,
    };
    score = relievedScore;
    scoreLevel = levelForScore(score, matrix.thresholds);
  }

  const conditionSubject: ConditionSubject = {
    record: run.record,
    entityType: run.entityType,
    screening: run.screening,
    related: run.related.map((each) => each.condition),
  };
  const floorsMatched: FloorHit[] = matrix.floors
    .filter((floor) => conditionHolds(floor.when, conditionSubject, countries))
    .map(({ id, level, reason }) => ({ id, level, reason }));
  let level = scoreLevel;
  let floorApplied: FloorHit | undefined;
  for (const floor of floorsMatched) {
    if (levelRank(floor.level) > levelRank(level)) {
      level = floor.level;
      floorApplied = floor;
    }
  }
  return {
    entityType: run.entityType,
    score,
    scoreLevel,
    level,
    ...(floorApplied ? { floorApplied } : {}),
    floorsMatched,
    ...(whiteListRelief ? { whiteListRelief } : {}),
    factors: assessed,
  };
}

/**
 * How an explanation names a related entity: an organisation by its title; a person never by name
 * (docs/privacy.md): assessments are stored and sent in plain, so a person is named by the key
 * (`extId`, or the position) the record gives it.
 */
function displayName(record: SubjectRecord): string | undefined {
  return asText(record.title);
}

/**
 * Assesses a customer against a validated matrix. Pure and deterministic: the same subject, matrix and
 * context always give the same assessment. Missing or mistyped fields make their factors not applicable;
 * the only error is a matrix that does not assess the subject's entity type.
 *
 * @throws RiskMatrixEntityTypeUnsupportedError
 */
export function evaluateRisk(subject: RiskSubject, matrix: RiskMatrix, context: RiskContext): Assessment {
  const record = subject as SubjectRecord;
  const entityType = resolveEntityType(record, matrix.entityTypes);
  if (!matrix.entityTypes.includes(entityType)) {
    throw new RiskMatrixEntityTypeUnsupportedError(matrix.matrixId, matrix.version, entityType);
  }
  const countries = countryRiskIndex(matrix.countryRisk);
  const today = typeof context.today === 'string' ? context.today : '';
  const relatedScreening = screeningOf(context.relatedEntityScreening) as Record<string, unknown>;

  const relatedEntities: RelatedEntityAssessment[] = [];
  const related: { rating: RelatedEntityRating; condition: ConditionSubject }[] = [];
  listItems(record.listRelatedEntity).forEach((item, index) => {
    const relatedRecord = item as SubjectRecord;
    const key = asText(item['extId']) ?? `#${index}`;
    const run: SubjectRun = {
      record: relatedRecord,
      entityType: resolveEntityType(relatedRecord, []),
      role: 'RELATED_ENTITY',
      screening: screeningOf(relatedScreening[key]),
      related: [],
    };
    const assessment = assessSubject(run, matrix, today, countries);
    const relationType = asText(item['relationType']);
    const name = displayName(relatedRecord);
    const shares = [asNumber(item['share']), asNumber(item['votePercentage'])].filter(
      (value): value is number => value !== undefined && value >= 0,
    );
    const share = shares.length === 0 ? undefined : Math.max(...shares);
    relatedEntities.push({
      index,
      key,
      ...(relationType !== undefined ? { relationType } : {}),
      ...(name !== undefined ? { name } : {}),
      ...(share !== undefined ? { share } : {}),
      ...assessment,
    });
    related.push({
      rating: { key, relationType, name, share, level: assessment.level },
      condition: { record: relatedRecord, entityType: run.entityType, screening: run.screening, related: [] },
    });
  });

  const assessment = assessSubject(
    { record, entityType, role: 'CUSTOMER', screening: screeningOf(context.screening), related },
    matrix,
    today,
    countries,
  );
  return { matrixId: matrix.matrixId, matrixVersion: matrix.version, today, ...assessment, relatedEntities };
}
