import {
  ScreeningThresholdInvalidError,
  parseThresholdOverrides,
  resolveThreshold,
  thresholdsFor,
} from './thresholds';

describe('threshold resolution', () => {
  const overrides = parseThresholdOverrides(
    JSON.stringify({ '*': { PEP: 0.9, '*': 0.88 }, 'BANK-A': { SANCTIONS: 0.8, '*': 0.95 } }),
  );

  it('prefers business unit + list, then business unit, then any unit + list, then any unit, then the base', () => {
    expect(resolveThreshold(0.86, overrides, 'BANK-A', 'SANCTIONS')).toBe(0.8);
    expect(resolveThreshold(0.86, overrides, 'BANK-A', 'PEP')).toBe(0.95);
    expect(resolveThreshold(0.86, overrides, 'BANK-B', 'PEP')).toBe(0.9);
    expect(resolveThreshold(0.86, overrides, 'BANK-B', 'ADVERSE_MEDIA')).toBe(0.88);
    expect(resolveThreshold(0.86, {}, 'BANK-B', 'ADVERSE_MEDIA')).toBe(0.86);
    expect(thresholdsFor(0.86, overrides, 'BANK-A')).toEqual({
      SANCTIONS: 0.8,
      PEP: 0.95,
      ADVERSE_MEDIA: 0.95,
      INTERNAL_LIST: 0.95,
    });
  });

  it('rejects unknown lists, thresholds outside (0, 1] and malformed JSON; empty means none', () => {
    expect(parseThresholdOverrides('')).toEqual({});
    expect(() => parseThresholdOverrides('{"A":{"WATCH":0.9}}')).toThrow(ScreeningThresholdInvalidError);
    expect(() => parseThresholdOverrides('{"A":{"PEP":1.5}}')).toThrow(ScreeningThresholdInvalidError);
    expect(() => parseThresholdOverrides('{"A":0.9}')).toThrow(ScreeningThresholdInvalidError);
    expect(() => parseThresholdOverrides('{')).toThrow(ScreeningThresholdInvalidError);
  });
});
