import type { Assessment } from './evaluate-risk';
import { isRiskLevel, levelRank, type RiskLevel } from './risk-level';
import { parseIsoDate } from './subject-facts';

export interface RiskOverride {
  level: RiskLevel;
  reason: string;
  /** Who decided: kept for the audit trail. */
  setBy: string;
  /** YYYY-MM-DD or a date-time; the override applies on days before this date only. */
  expiresAt?: string;
}

export type OverrideStatus = 'APPLIED' | 'EXPIRED' | 'INVALID';

export interface RecordedOverride extends RiskOverride {
  status: OverrideStatus;
  direction: 'RAISED' | 'LOWERED' | 'UNCHANGED';
  /** The override sets a level below a floor that matched: a four-eyes review should follow. */
  belowFloor: boolean;
}

export type OverriddenAssessment = Assessment & {
  /** The level to act on: the override's level when one applies, otherwise the assessed level. */
  effectiveLevel: RiskLevel;
  /** The override that was offered, with whether it applied; absent when none was offered. */
  override?: RecordedOverride;
};

function dateKey(value: string): string | undefined {
  const date = parseIsoDate(value);
  if (!date) return undefined;
  return `${date.year}-${String(date.month).padStart(2, '0')}-${String(date.day).padStart(2, '0')}`;
}

/**
 * Records a manual override on an assessment and returns the effective level. Overrides may raise or
 * lower the level; an expired override (expiresAt on or before today) or a malformed one is recorded but
 * ignored. Day granularity: today is YYYY-MM-DD.
 */
export function applyOverride(
  assessment: Assessment,
  override: RiskOverride | undefined,
  today: string,
): OverriddenAssessment {
  if (override === undefined) return { ...assessment, effectiveLevel: assessment.level };
  const wellFormed =
    isRiskLevel(override.level) &&
    typeof override.reason === 'string' &&
    override.reason.trim() !== '' &&
    typeof override.setBy === 'string' &&
    override.setBy.trim() !== '' &&
    (override.expiresAt === undefined || dateKey(override.expiresAt) !== undefined);
  const todayKey = dateKey(today);
  const expiry = override.expiresAt === undefined ? undefined : dateKey(override.expiresAt);
  const expired = expiry !== undefined && (todayKey === undefined || todayKey >= expiry);
  const status: OverrideStatus = !wellFormed ? 'INVALID' : expired ? 'EXPIRED' : 'APPLIED';
  const level = isRiskLevel(override.level) ? override.level : assessment.level;
  const delta = levelRank(level) - levelRank(assessment.level);
  const highestFloor = assessment.floorsMatched.reduce(
    (highest, floor) => Math.max(highest, levelRank(floor.level)),
    -1,
  );
  const recorded: RecordedOverride = {
    ...override,
    status,
    direction: delta > 0 ? 'RAISED' : delta < 0 ? 'LOWERED' : 'UNCHANGED',
    belowFloor: levelRank(level) < highestFloor,
  };
  return {
    ...assessment,
    effectiveLevel: status === 'APPLIED' ? level : assessment.level,
    override: recorded,
  };
}
