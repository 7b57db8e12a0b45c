import { applyOverride } from './apply-override';
import { evaluateRisk } from './evaluate-risk';
import { demoMatrices, minimalRiskPerson, TODAY } from './matrix.fixtures';

const { persons } = demoMatrices();
const low = evaluateRisk(minimalRiskPerson(), persons, { today: TODAY });
const pep = evaluateRisk({ ...minimalRiskPerson(), isPEP: true }, persons, { today: TODAY });

describe('applyOverride', () => {
  it('keeps the assessed level without an override', () => {
    const result = applyOverride(low, undefined, TODAY);
    expect(result.effectiveLevel).toBe('NONE');
    expect(result.override).toBeUndefined();
  });

  it('applies an override that has not expired and records who set it and why', () => {
    const override = {
      level: 'HIGH' as const,
      reason: 'Unusual transfers',
      setBy: 'analyst-7',
      expiresAt: '2025-06-14',
    };
    const result = applyOverride(low, override, TODAY);
    expect(result.effectiveLevel).toBe('HIGH');
    expect(result.level).toBe('NONE');
    expect(result.override).toEqual({
      ...override,
      status: 'APPLIED',
      direction: 'RAISED',
      belowFloor: false,
    });
  });

  it('ignores an override on or after its expiry date, but records it', () => {
    const override = { level: 'HIGH' as const, reason: 'r', setBy: 's', expiresAt: TODAY };
    const result = applyOverride(low, override, TODAY);
    expect(result.effectiveLevel).toBe('NONE');
    expect(result.override?.status).toBe('EXPIRED');
    expect(
      applyOverride(low, { ...override, expiresAt: '2025-06-13T23:59:59Z' }, '2025-06-14').override?.status,
    ).toBe('EXPIRED');
  });

  it('flags an override that lowers the level below a matched floor', () => {
    const result = applyOverride(
      pep,
      { level: 'LOW', reason: 'Former PEP, > 12 months', setBy: 'mlro' },
      TODAY,
    );
    expect(result.effectiveLevel).toBe('LOW');
    expect(result.override).toMatchObject({ direction: 'LOWERED', belowFloor: true, status: 'APPLIED' });
  });

  it('ignores a malformed override', () => {
    const bad = { level: 'CRITICAL', reason: '', setBy: 'x' } as unknown as Parameters<
      typeof applyOverride
    >[1];
    const result = applyOverride(low, bad, TODAY);
    expect(result.effectiveLevel).toBe('NONE');
    expect(result.override?.status).toBe('INVALID');
  });
});
