import { loadBundledMatrices, type RiskMatrix } from '@crs/risk-engine';
import { activationOf, matrixOfActivation } from './matrix-activation';

const [persons] = loadBundledMatrices() as [RiskMatrix];
const meta = { eventId: 'a-1', activatedAt: '2025-06-13T10:00:00.000Z', activatedBy: 'officer' };

describe('matrix activation', () => {
  it('round-trips a valid matrix', () => {
    const activation = activationOf(persons, meta);
    expect(activation).toMatchObject({
      type: 'RiskMatrixActivated',
      matrixId: 'demo-persons',
      version: 1,
      businessUnit: 'DEMO',
      activatedBy: 'officer',
    });
    const checked = matrixOfActivation(JSON.parse(JSON.stringify(activation)));
    expect(checked.ok && checked.matrix).toEqual(persons);
  });

  it('rejects a matrix that does not validate', () => {
    const broken = {
      ...structuredClone(persons),
      thresholds: { LOW: 50, MEDIUM: 20, HIGH: 35, EXTREME: 60 },
    };
    const checked = matrixOfActivation(activationOf(broken, meta));
    expect(checked.ok).toBe(false);
  });

  it('rejects an activation whose identity differs from its matrix', () => {
    const checked = matrixOfActivation({ ...activationOf(persons, meta), version: 7 });
    expect(checked).toEqual({ ok: false, errors: [expect.stringContaining('version 7')] });
  });
});
