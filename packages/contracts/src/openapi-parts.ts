import type { Scope } from '@crs/auth/scopes';

/** A JSON object of the OpenAPI document. */
export type Json = Record<string, unknown>;

// The building blocks every path of the OpenAPI document uses (openapi.ts assembles the document).
export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
export const json = (schema: Json, description: string) => ({
  description,
  content: { 'application/json': { schema } },
});
export const commonErrors = {
  '401': { $ref: '#/components/responses/Unauthorized' },
  '403': { $ref: '#/components/responses/Forbidden' },
  '413': { $ref: '#/components/responses/PayloadTooLarge' },
  '415': { $ref: '#/components/responses/UnsupportedMediaType' },
  '503': { $ref: '#/components/responses/ServiceUnavailable' },
};
export const readErrors = {
  '401': commonErrors['401'],
  '403': commonErrors['403'],
  '503': commonErrors['503'],
};
export const secured = (scope: Scope) => [{ bearerAuth: [scope] }];
export const text = (maxLength: number) => ({ type: 'string', minLength: 1, maxLength });
export const query = (name: string, required: boolean, description: string, schema: Json = text(255)) => ({
  name,
  in: 'query',
  required,
  description,
  schema,
});
export const pathParam = (name: string, description: string, schema: Json = text(255)) => ({
  name,
  in: 'path',
  required: true,
  description,
  schema,
});
export const businessUnitQuery = (required: boolean) =>
  query(
    'businessUnit',
    required,
    required
      ? 'Business unit identifier.'
      : "Business unit identifier; defaults to the token's only business unit (400 when the token has several).",
  );

export function classifierPath(name: string, entry: string) {
  return {
    get: {
      operationId: `getClassifier${name.charAt(0).toUpperCase()}${name.slice(1)}`,
      summary: `List the ${name} classifier of a business unit`,
      description: `Entries carry ${entry}.`,
      tags: ['classifiers'],
      security: secured('classifiers:read'),
      parameters: [businessUnitQuery(false)],
      responses: {
        '200': json({ type: 'array', items: ref('ClassifierEntry') }, 'The entries, ordered by code.'),
        '400': json(ref('ErrorBody'), 'businessUnit missing while the token has several, or invalid.'),
        ...readErrors,
      },
    },
  };
}
