/** Risk levels in ascending order of risk. */
export const RISK_LEVELS = ['NONE', 'LOW', 'MEDIUM', 'HIGH', 'EXTREME'] as const;
export type RiskLevel = (typeof RISK_LEVELS)[number];

export function isRiskLevel(value: unknown): value is RiskLevel {
  return typeof value === 'string' && (RISK_LEVELS as readonly string[]).includes(value);
}

/** Position of a level in {@link RISK_LEVELS}; comparisons between levels go through it. */
export function levelRank(level: RiskLevel): number {
  return RISK_LEVELS.indexOf(level);
}

export function levelAtRank(rank: number): RiskLevel {
  const clamped = Math.max(0, Math.min(RISK_LEVELS.length - 1, Math.trunc(rank)));
  return RISK_LEVELS[clamped] ?? 'NONE';
}

export function higherLevel(a: RiskLevel, b: RiskLevel): RiskLevel {
  return levelRank(a) >= levelRank(b) ? a : b;
}
