import type { CountryRiskIndex } from './country-risk-index';
import type { RiskLevel } from './risk-level';
import type {
  BandsFactor,
  CodesFactor,
  CountryFactor,
  FlagsFactor,
  ListPurposeFactor,
  RelatedEntitiesFactor,
  RiskFactor,
  ScreeningFactor,
} from './risk-matrix';
import type { ScreeningResults } from './risk-subject';
import { screeningStatus } from './screening-status';
import { asBoolean, asText, bandValueOf, codesOf, countriesOf, type SubjectRecord } from './subject-facts';

/** What a related entity contributes to the related-entities factor of its customer. */
export interface RelatedEntityRating {
  key: string;
  relationType: string | undefined;
  name: string | undefined;
  share: number | undefined;
  level: RiskLevel;
}

export interface FactorInput {
  record: SubjectRecord;
  screening: ScreeningResults;
  today: string;
  countries: CountryRiskIndex;
  related: readonly RelatedEntityRating[];
}

export interface FactorOutcome {
  applicable: boolean;
  score: number;
  inputValue: unknown;
  explanation: string;
}

const NOT_APPLICABLE = (explanation: string): FactorOutcome => ({
  applicable: false,
  score: 0,
  inputValue: null,
  explanation,
});

export function evaluateFactor(factor: RiskFactor, input: FactorInput): FactorOutcome {
  switch (factor.kind) {
    case 'country':
      return countryFactor(factor, input);
    case 'flags':
      return flagsFactor(factor, input);
    case 'codes':
      return codesFactor(factor, input);
    case 'bands':
      return bandsFactor(factor, input);
    case 'screening':
      return screeningFactor(factor, input);
    case 'list-purpose':
      return listPurposeFactor(factor, input);
    case 'related-entities':
      return relatedEntitiesFactor(factor, input);
    default: {
      const unknownFactor: never = factor;
      return NOT_APPLICABLE(`unknown factor kind ${String((unknownFactor as { kind?: unknown }).kind)}`);
    }
  }
}

function countryFactor(factor: CountryFactor, input: FactorInput): FactorOutcome {
  const facts = countriesOf(input.record, factor.sources);
  if (facts.length === 0) return NOT_APPLICABLE(`no country given in ${factor.sources.join(', ')}`);
  const rated = facts.map((fact) => ({ ...fact, ...input.countries.rate(fact.value) }));
  let worst = rated[0]!;
  for (const each of rated) if (each.score > worst.score) worst = each;
  const why =
    worst.code === undefined
      ? `unrecognised country code "${worst.value}"`
      : worst.lists.length > 0
        ? `${worst.code} is on ${worst.lists.join(', ')}`
        : `${worst.code} is on no listed jurisdiction list`;
  return {
    applicable: true,
    score: worst.score,
    inputValue: rated.map(({ source, value, code, score, lists }) => ({
      source,
      value,
      code: code ?? null,
      score,
      lists,
    })),
    explanation: `highest country risk ${worst.score} from ${worst.source}: ${why}`,
  };
}

function flagsFactor(factor: FlagsFactor, input: FactorInput): FactorOutcome {
  const present = factor.flags
    .map((flag) => ({ flag, value: asBoolean((input.record as Record<string, unknown>)[flag.field]) }))
    .filter((each): each is { flag: (typeof each)['flag']; value: boolean } => each.value !== undefined);
  if (present.length === 0) return NOT_APPLICABLE(`${factor.flags.map((f) => f.field).join(', ')} not given`);
  const scored = present.map(({ flag, value }) => ({
    field: flag.field,
    value,
    score: value ? flag.whenTrue : flag.whenFalse,
  }));
  let worst = scored[0]!;
  for (const each of scored) if (each.score > worst.score) worst = each;
  return {
    applicable: true,
    score: worst.score,
    inputValue: Object.fromEntries(scored.map((each) => [each.field, each.value])),
    explanation: `${worst.field} is ${worst.value}: score ${worst.score}`,
  };
}

function codesFactor(factor: CodesFactor, input: FactorInput): FactorOutcome {
  const codes = codesOf(input.record, factor.source);
  if (codes.length === 0) return NOT_APPLICABLE(`no code given in ${factor.source}`);
  const table = new Map(
    Object.entries(factor.scores).map(([code, score]) => [code.trim().toUpperCase(), score]),
  );
  const scored = codes.map((code) => ({
    code,
    score: table.get(code) ?? factor.defaultScore,
    known: table.has(code),
  }));
  let worst = scored[0]!;
  for (const each of scored) if (each.score > worst.score) worst = each;
  return {
    applicable: true,
    score: worst.score,
    inputValue: codes,
    explanation: `highest code ${worst.code}: score ${worst.score}${worst.known ? '' : ' (code not in the table, default)'}`,
  };
}

function bandsFactor(factor: BandsFactor, input: FactorInput): FactorOutcome {
  const value = bandValueOf(input.record, factor.source, input.today);
  if (value === undefined) return NOT_APPLICABLE(`${factor.source} not given or not computable`);
  const band =
    factor.bands.find((each) => each.below === undefined || value < each.below) ?? factor.bands.at(-1);
  const score = band?.score ?? 0;
  const range = band?.below === undefined ? 'the open top band' : `the band below ${band.below}`;
  return {
    applicable: true,
    score,
    inputValue: value,
    explanation: `${factor.source} ${value} falls in ${range}: score ${score}`,
  };
}

function screeningFactor(factor: ScreeningFactor, input: FactorInput): FactorOutcome {
  const flag = factor.flagField
    ? asBoolean((input.record as Record<string, unknown>)[factor.flagField])
    : undefined;
  const result = input.screening[factor.list];
  const status = screeningStatus(result);
  if (flag === undefined && status === undefined) {
    return NOT_APPLICABLE(`no ${factor.flagField ?? 'flag'} and no ${factor.list} screening result`);
  }
  const flagScore = flag === true ? (factor.flagScore ?? 0) : 0;
  const screeningScore =
    status === 'CONFIRMED'
      ? factor.confirmedMatchScore
      : status === 'POTENTIAL'
        ? factor.potentialMatchScore
        : status === undefined
          ? 0
          : factor.noMatchScore;
  const parts: string[] = [];
  if (flag !== undefined) parts.push(`${factor.flagField} is ${flag}`);
  if (status !== undefined) {
    const top = typeof result?.topScore === 'number' ? `, top score ${result.topScore}` : '';
    parts.push(`${factor.list} screening ${status}${top}`);
  }
  const score = Math.max(flagScore, screeningScore);
  return {
    applicable: true,
    score,
    inputValue: { flag: flag ?? null, screening: status ?? null, topScore: result?.topScore ?? null },
    explanation: `${parts.join('; ')}: score ${score}`,
  };
}

function listPurposeFactor(factor: ListPurposeFactor, input: FactorInput): FactorOutcome {
  const purpose = asText(input.record.listPurpose)?.toUpperCase();
  if (purpose !== 'BLACK' && purpose !== 'WHITE') return NOT_APPLICABLE('listPurpose not given');
  const score = purpose === 'BLACK' ? factor.blackScore : factor.whiteScore;
  return {
    applicable: true,
    score,
    inputValue: purpose,
    explanation: `listPurpose ${purpose}: score ${score}`,
  };
}

function relatedEntitiesFactor(factor: RelatedEntitiesFactor, input: FactorInput): FactorOutcome {
  const wanted = factor.relationTypes?.map((type) => type.trim().toUpperCase());
  const considered = input.related.filter(
    (each) =>
      wanted === undefined ||
      (each.relationType !== undefined && wanted.includes(each.relationType.toUpperCase())),
  );
  if (considered.length === 0) return NOT_APPLICABLE('no related entity to consider');
  const rated = considered.map((each) => {
    const shareWeight =
      each.share === undefined
        ? 1
        : Math.min(1, Math.max(factor.share.minimumWeight, each.share / factor.share.fullWeightAtShare));
    return { ...each, shareWeight, score: factor.levelScores[each.level] * shareWeight };
  });
  let worst = rated[0]!;
  for (const each of rated) if (each.score > worst.score) worst = each;
  const who = `${worst.relationType ?? 'related entity'} ${worst.name ?? worst.key}`;
  return {
    applicable: true,
    score: worst.score,
    inputValue: rated.map(({ key, relationType, share, level, shareWeight, score }) => ({
      key,
      relationType: relationType ?? null,
      share: share ?? null,
      level,
      shareWeight,
      score,
    })),
    explanation: `highest related entity: ${who} at ${worst.level} x share weight ${worst.shareWeight.toFixed(2)} = ${worst.score.toFixed(2)}`,
  };
}
