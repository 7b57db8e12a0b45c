/** Every scope the API checks; see docs/auth.md for which endpoint needs which. */
export const Scopes = [
  'customers:write',
  'customers:read',
  'classifiers:read',
  'operations:archive',
  'screening:search',
  'screening:decide',
  'risk:override',
  'callbacks:redeliver',
  'customers:erase',
  'customers:erase:override',
] as const;

export type Scope = (typeof Scopes)[number];

const known: ReadonlySet<string> = new Set(Scopes);

export function isScope(value: string): value is Scope {
  return known.has(value);
}
