import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import { normaliseCountry } from './country-code';
import { RISK_LEVELS } from './risk-level';
import type { FloorCondition, RiskFactor, RiskMatrix, SubjectRole } from './risk-matrix';
import { ENTITY_TYPES, type EntityType } from './risk-subject';

export type MatrixValidation = { ok: true; matrix: RiskMatrix } | { ok: false; errors: string[] };

/** Weighted scores are compared after rounding to 2 decimals; this absorbs floating-point noise in the checks. */
const EPSILON = 1e-9;

let compiled: ValidateFunction | undefined;

function schemaValidator(): ValidateFunction {
  if (!compiled) {
    // The schema lives in schemas/ at the repository root, the single source of truth; a runtime require
    // (rather than an import) keeps it outside this package's rootDir and resolves the same from src/ and dist/.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const schema: unknown = require('../../../schemas/risk/risk-matrix.v1.schema.json');
    const ajv = new Ajv2020({ allErrors: true, strict: true, strictTypes: false });
    compiled = ajv.compile(schema as object);
  }
  return compiled;
}

function formatSchemaError(error: ErrorObject): string {
  const where = error.instancePath === '' ? '/' : error.instancePath;
  const extra =
    error.keyword === 'additionalProperties'
      ? ` (${String((error.params as { additionalProperty?: unknown }).additionalProperty)})`
      : error.keyword === 'enum'
        ? ` (${JSON.stringify((error.params as { allowedValues?: unknown }).allowedValues)})`
        : '';
  return `${where} ${error.message ?? error.keyword}${extra}`;
}

/** Largest score a factor can produce; the reachability check assumes every factor at its maximum. */
export function maxFactorScore(factor: RiskFactor, matrix: RiskMatrix): number {
  switch (factor.kind) {
    case 'country': {
      const table = matrix.countryRisk;
      return Math.max(
        table.defaultScore,
        table.unknownCountryScore,
        ...Object.values(table.lists).map((list) => list?.score ?? table.defaultScore),
        ...Object.values(table.countryScores ?? {}),
      );
    }
    case 'flags':
      return Math.max(...factor.flags.map((flag) => Math.max(flag.whenTrue, flag.whenFalse)));
    case 'codes':
      return Math.max(factor.defaultScore, ...Object.values(factor.scores));
    case 'bands':
      return Math.max(...factor.bands.map((band) => band.score));
    case 'screening':
      return Math.max(
        factor.flagScore ?? 0,
        factor.confirmedMatchScore,
        factor.potentialMatchScore,
        factor.noMatchScore,
      );
    case 'list-purpose':
      return Math.max(factor.blackScore, factor.whiteScore);
    case 'related-entities':
      return Math.max(...RISK_LEVELS.map((level) => factor.levelScores[level]));
    default: {
      const unknownFactor: never = factor;
      return unknownFactor;
    }
  }
}

function conditionErrors(condition: FloorCondition, listIds: readonly string[], where: string): string[] {
  if ('anyOf' in condition)
    return condition.anyOf.flatMap((each, i) => conditionErrors(each, listIds, `${where}/anyOf/${i}`));
  if ('allOf' in condition)
    return condition.allOf.flatMap((each, i) => conditionErrors(each, listIds, `${where}/allOf/${i}`));
  if ('relatedEntity' in condition)
    return conditionErrors(condition.relatedEntity, listIds, `${where}/relatedEntity`);
  if ('countryIn' in condition) {
    return condition.countryIn
      .filter((listId) => !listIds.includes(listId))
      .map((listId) => `${where}/countryIn refers to unknown country list ${listId}`);
  }
  return [];
}

function semanticErrors(matrix: RiskMatrix): string[] {
  const errors: string[] = [];
  const { thresholds } = matrix;
  const ordered = [thresholds.LOW, thresholds.MEDIUM, thresholds.HIGH, thresholds.EXTREME];
  if (ordered.some((value, i) => i > 0 && value <= ordered[i - 1]!)) {
    errors.push('/thresholds must increase strictly: LOW < MEDIUM < HIGH < EXTREME');
  }

  const seenFactors = new Set<string>();
  for (const factor of matrix.factors) {
    if (seenFactors.has(factor.id)) errors.push(`/factors: duplicate factor id ${factor.id}`);
    seenFactors.add(factor.id);
    if (factor.kind === 'bands') {
      const open = factor.bands.filter((band) => band.below === undefined).length;
      const last = factor.bands.at(-1);
      if (open !== 1 || last?.below !== undefined) {
        errors.push(`/factors/${factor.id}: exactly the last band must have no "below"`);
      }
      const bounds = factor.bands.flatMap((band) => (band.below === undefined ? [] : [band.below]));
      if (bounds.some((bound, i) => i > 0 && bound <= bounds[i - 1]!)) {
        errors.push(`/factors/${factor.id}: band bounds must increase strictly`);
      }
    }
    if (factor.kind === 'screening' && factor.flagField !== undefined && factor.flagScore === undefined) {
      errors.push(`/factors/${factor.id}: flagField needs flagScore`);
    }
  }

  const seenFloors = new Set<string>();
  const listIds = Object.keys(matrix.countryRisk.lists);
  matrix.floors.forEach((floor, i) => {
    if (seenFloors.has(floor.id)) errors.push(`/floors: duplicate floor id ${floor.id}`);
    seenFloors.add(floor.id);
    errors.push(...conditionErrors(floor.when, listIds, `/floors/${i}/when`));
  });

  for (const [listId, list] of Object.entries(matrix.countryRisk.lists)) {
    if (list === undefined) continue;
    for (const code of list.countries) {
      if (normaliseCountry(code) === undefined)
        errors.push(`/countryRisk/lists/${listId}: unknown country code ${code}`);
    }
  }
  for (const code of Object.keys(matrix.countryRisk.countryScores ?? {})) {
    if (normaliseCountry(code) === undefined)
      errors.push(`/countryRisk/countryScores: unknown country code ${code}`);
  }

  const relatedScored = matrix.factors.some((factor) => factor.kind === 'related-entities');
  const groups: Array<{ entityType: EntityType; role: SubjectRole; required: boolean }> = [
    ...matrix.entityTypes.map((entityType) => ({ entityType, role: 'CUSTOMER' as const, required: true })),
    ...ENTITY_TYPES.map((entityType) => ({
      entityType,
      role: 'RELATED_ENTITY' as const,
      required: relatedScored,
    })),
  ];
  for (const { entityType, role, required } of groups) {
    const factors = matrix.factors.filter(
      (factor) => factor.appliesTo.entityTypes.includes(entityType) && factor.appliesTo.roles.includes(role),
    );
    const subject = `${role} ${entityType}`;
    if (factors.length === 0) {
      if (required) errors.push(`no factor applies to ${subject}`);
      continue;
    }
    const total = factors.reduce((sum, factor) => sum + factor.weight, 0);
    const cap = matrix.scoring.maxFactorWeightShare;
    for (const factor of factors) {
      const share = factor.weight / total;
      if (share > cap + EPSILON) {
        errors.push(
          `factor ${factor.id} dominates ${subject}: ${(share * 100).toFixed(2)}% of the weight exceeds the cap of ${(cap * 100).toFixed(2)}%`,
        );
      }
    }
    if (role === 'CUSTOMER') {
      const maxScore = factors.reduce(
        (sum, factor) => sum + (maxFactorScore(factor, matrix) * factor.weight) / total,
        0,
      );
      if (Math.round(maxScore * 100) / 100 < thresholds.HIGH - EPSILON) {
        errors.push(
          `HIGH is unreachable for ${subject}: the highest attainable score ${maxScore.toFixed(2)} is below the HIGH threshold ${thresholds.HIGH}`,
        );
      }
    }
  }
  return errors;
}

/**
 * Validates a matrix document against schemas/risk/risk-matrix.v1.schema.json (JSON Schema 2020-12), then
 * checks what the schema cannot: strictly increasing thresholds, the weight cap per entity type and role,
 * HIGH reachable by score alone for every customer entity type, band order, unique ids, known country
 * codes and country-list references.
 */
export function validateMatrix(doc: unknown): MatrixValidation {
  const validate = schemaValidator();
  if (!validate(doc)) {
    return { ok: false, errors: (validate.errors ?? []).map(formatSchemaError) };
  }
  const matrix = doc as RiskMatrix;
  const errors = semanticErrors(matrix);
  return errors.length === 0 ? { ok: true, matrix } : { ok: false, errors };
}
