/**
 * Every scope the API checks, with what it allows (the OpenAPI document lists them); docs/auth.md says
 * which endpoint needs which. Also the package's pure entry point `@crs/auth/scopes`.
 */
export const ScopeDescriptions = {
  'customers:write': 'Import customers (single, batch, simplified) and validate batches.',
  'customers:read': 'Read customers, their assessments and communication events.',
  'classifiers:read': 'Read the classifier lists of a business unit.',
  'operations:archive': 'Move operations to the archive.',
  'screening:search': 'Search the screening lists.',
  'screening:decide': 'Resolve pending screening matches.',
  'risk:override': 'Override the risk level of an assessment.',
  'callbacks:redeliver': 'Resend callbacks.',
  'customers:erase': "Erase a customer's personal data once its retention period is over.",
  'customers:erase:override':
    "Erase a customer's personal data while a retention hold applies (with customers:erase).",
} as const;

export type Scope = keyof typeof ScopeDescriptions;

/** Every scope, in the order of ScopeDescriptions. */
export const Scopes = Object.keys(ScopeDescriptions) as readonly Scope[];

const known: ReadonlySet<string> = new Set(Scopes);

export function isScope(value: string): value is Scope {
  return known.has(value);
}
