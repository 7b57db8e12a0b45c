import { loadBundledMatrices, loadExampleCountryRisk } from './bundled-matrices';
import { demoMatrices, fiveFlagMatrix } from './matrix.fixtures';
import type { RiskMatrix } from './risk-matrix';
import { validateMatrix } from './validate-matrix';

function errorsOf(doc: unknown): string[] {
  const result = validateMatrix(doc);
  return result.ok ? [] : result.errors;
}

describe('validateMatrix', () => {
  it('accepts the bundled DEMO matrices', () => {
    const matrices = loadBundledMatrices();
    expect(matrices.map((matrix) => `${matrix.businessUnit}/${matrix.matrixId}@${matrix.version}`)).toEqual([
      'DEMO/demo-persons@1',
      'DEMO/demo-organizations@1',
    ]);
    for (const matrix of matrices) expect(validateMatrix(matrix)).toEqual({ ok: true, matrix });
  });

  it('serves the DEMO categories IND, IND_OCCASIONAL and ORG', () => {
    const { persons, organizations } = demoMatrices();
    expect(persons.riskManagementCategories).toEqual(['IND', 'IND_OCCASIONAL']);
    expect(organizations.riskManagementCategories).toEqual(['ORG']);
  });

  it('embeds the example country-risk lists unchanged in every bundled matrix', () => {
    const example = loadExampleCountryRisk();
    for (const matrix of loadBundledMatrices()) {
      expect(matrix.countryRisk.lists).toEqual(example.lists);
      expect(matrix.countryRisk.asOf).toBe(example.asOf);
    }
  });

  it('ships the FATF lists of the June 2025 plenary in the example table', () => {
    const { lists, asOf } = loadExampleCountryRisk();
    expect(asOf).toBe('2025-06-13');
    expect(lists['FATF_CALL_FOR_ACTION']?.countries).toEqual(['IR', 'KP', 'MM']);
    expect(lists['FATF_INCREASED_MONITORING']?.countries).toHaveLength(24);
    expect(lists['EU_HIGH_RISK_THIRD_COUNTRY']?.countries).toHaveLength(26);
  });

  it('rejects a document that does not match the schema, naming the place', () => {
    const { thresholds: _dropped, ...withoutThresholds } = fiveFlagMatrix();
    expect(errorsOf(withoutThresholds)).toEqual(["/ must have required property 'thresholds'"]);
    expect(errorsOf({ ...fiveFlagMatrix(), version: 0 })).toEqual(['/version must be >= 1']);
    const unknownKind = fiveFlagMatrix();
    (unknownKind.factors[0] as { kind: string }).kind = 'magic';
    expect(errorsOf(unknownKind).join('\n')).toContain(
      '/factors/0/kind must be equal to one of the allowed values',
    );
  });

  it('rejects a factor whose weight exceeds the cap', () => {
    const matrix = fiveFlagMatrix();
    matrix.factors[0]!.weight = 2; // 2 of 6 = 33% against a cap of 20%
    expect(errorsOf(matrix)).toEqual([
      'factor ISPEP dominates CUSTOMER INDIVIDUAL: 33.33% of the weight exceeds the cap of 20.00%',
    ]);
  });

  it('rejects a weight cap above one half in the schema', () => {
    const matrix = fiveFlagMatrix({ scoring: { maxFactorWeightShare: 0.6 } });
    expect(errorsOf(matrix)).toEqual(['/scoring/maxFactorWeightShare must be <= 0.5']);
  });

  it('rejects a matrix in which HIGH cannot be reached by score', () => {
    const matrix = fiveFlagMatrix();
    for (const factor of matrix.factors) if (factor.kind === 'flags') factor.flags[0]!.whenTrue = 50;
    expect(errorsOf(matrix)).toEqual([
      'HIGH is unreachable for CUSTOMER INDIVIDUAL: the highest attainable score 50.00 is below the HIGH threshold 60',
    ]);
  });

  it('accepts a matrix whose maximum score equals the HIGH threshold exactly', () => {
    const matrix = fiveFlagMatrix();
    for (const factor of matrix.factors) if (factor.kind === 'flags') factor.flags[0]!.whenTrue = 60;
    expect(validateMatrix(matrix).ok).toBe(true);
  });

  it('rejects thresholds that do not increase strictly', () => {
    const matrix = fiveFlagMatrix({ thresholds: { LOW: 20, MEDIUM: 20, HIGH: 60, EXTREME: 80 } });
    expect(errorsOf(matrix)).toEqual(['/thresholds must increase strictly: LOW < MEDIUM < HIGH < EXTREME']);
  });

  it('rejects an entity type without factors, unknown list references, bad codes and bad bands', () => {
    const matrix: RiskMatrix = fiveFlagMatrix({ entityTypes: ['INDIVIDUAL', 'ORGANIZATION'] });
    matrix.floors.push({ id: 'GREY', level: 'MEDIUM', reason: 'grey', when: { countryIn: ['GREY'] } });
    matrix.countryRisk.lists['BLACK']!.countries.push('QQ');
    matrix.factors.push({
      id: 'AGE',
      label: 'age',
      kind: 'bands',
      weight: 1,
      appliesTo: { entityTypes: ['ORGANIZATION'], roles: ['CUSTOMER'] },
      source: 'businessAgeYears',
      bands: [{ below: 5, score: 50 }, { below: 3, score: 20 }, { score: 0 }],
    });
    expect(errorsOf(matrix)).toEqual([
      '/factors/AGE: band bounds must increase strictly',
      '/floors/0/when/countryIn refers to unknown country list GREY',
      '/countryRisk/lists/BLACK: unknown country code QQ',
      'factor AGE dominates CUSTOMER ORGANIZATION: 100.00% of the weight exceeds the cap of 20.00%',
      'HIGH is unreachable for CUSTOMER ORGANIZATION: the highest attainable score 50.00 is below the HIGH threshold 60',
    ]);
  });

  it('requires related-entity factors for both entity types once related entities are scored', () => {
    const matrix = fiveFlagMatrix();
    for (const factor of matrix.factors) factor.weight = 4;
    matrix.factors.push({
      id: 'RELATED',
      label: 'related',
      kind: 'related-entities',
      weight: 4,
      appliesTo: { entityTypes: ['INDIVIDUAL'], roles: ['CUSTOMER'] },
      levelScores: { NONE: 0, LOW: 20, MEDIUM: 50, HIGH: 80, EXTREME: 100 },
      share: { fullWeightAtShare: 25, minimumWeight: 0.5 },
    });
    expect(errorsOf(matrix)).toEqual([
      'no factor applies to RELATED_ENTITY INDIVIDUAL',
      'no factor applies to RELATED_ENTITY ORGANIZATION',
    ]);
  });
});
