import {
  assessmentCommandId,
  overrideExpired,
  overrideExpiryKey,
  reevaluationCommandId,
} from './message-ids';

describe('message ids', () => {
  it('are derived from their cause, so a replay yields the same ids', () => {
    expect(assessmentCommandId('cmd-1.2')).toBe(assessmentCommandId('cmd-1.2'));
    expect(assessmentCommandId('cmd-1.2')).not.toBe(assessmentCommandId('cmd-1.3'));
    expect(reevaluationCommandId('act-1', 'DEMO:c1')).not.toBe(reevaluationCommandId('act-2', 'DEMO:c1'));
    expect(overrideExpiryKey('DEMO:c1', '2025-01-01T00:00:00Z', '2025-02-01')).not.toBe(
      overrideExpiryKey('DEMO:c1', '2025-01-05T00:00:00Z', '2025-02-01'),
    );
  });

  it('treats an override as expired from its expiresAt on, as the decider does (dates and date-times)', () => {
    expect(overrideExpired('2025-06-13', '2025-06-12T23:59:59.999Z')).toBe(false);
    expect(overrideExpired('2025-06-13', '2025-06-13T00:00:00.000Z')).toBe(true);
    expect(overrideExpired('2025-06-13T10:00:00.000Z', '2025-06-13T09:59:59.000Z')).toBe(false);
    expect(overrideExpired('2025-06-13T10:00:00.000Z', '2025-06-13T10:00:00.000Z')).toBe(true);
  });
});
