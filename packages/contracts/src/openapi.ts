import { ScopeDescriptions } from '@crs/auth/scopes';
import { schemaDocuments } from './generated/schemas.generated';
import { interfacePaths } from './openapi-interface-paths';
import { json, ref, type Json } from './openapi-parts';
import { productPaths } from './openapi-product-paths';

const HTTP_PREFIX = 'https://schemas.crs.local/http/';

/**
 * Components from the HTTP schemas: each document becomes a component named by its title and each
 * `$defs` entry a component of its own; `$ref`s are rewritten to point at components, `$id` and `$schema`
 * are dropped so that no reference resolves against another base.
 */
function componentsFromSchemas(): { schemas: Record<string, Json>; refByUrl: Map<string, string> } {
  const http = schemaDocuments.filter((document) => String(document.$id).startsWith(HTTP_PREFIX));
  const refByUrl = new Map<string, string>();
  const pending: Array<[string, Json, string]> = [];
  const claim = (name: string, url: string) => {
    if ([...refByUrl.values()].includes(`#/components/schemas/${name}`))
      throw new Error(`Component name ${name} is used twice`);
    refByUrl.set(url, `#/components/schemas/${name}`);
  };
  for (const document of http) {
    const id = String(document.$id);
    const { $id: _id, $schema: _schema, $defs, ...rest } = document as Json;
    for (const [name, def] of Object.entries(($defs as Record<string, Json> | undefined) ?? {})) {
      claim(name, `${id}#/$defs/${name}`);
      pending.push([name, def, id]);
    }
    // A document that only holds $defs has no shape of its own.
    if ('type' in rest || 'allOf' in rest || 'properties' in rest) {
      claim(String(document.title), id);
      pending.push([String(document.title), rest, id]);
    }
  }
  const rewrite = (node: unknown, base: string): unknown => {
    if (Array.isArray(node)) return node.map((item) => rewrite(item, base));
    if (node === null || typeof node !== 'object') return node;
    const out: Json = {};
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') {
        const target = refByUrl.get(new URL(value, base).toString());
        if (target === undefined) throw new Error(`Unresolvable $ref ${value} in ${base}`);
        out[key] = target;
      } else out[key] = rewrite(value, base);
    }
    return out;
  };
  const schemas: Record<string, Json> = {};
  for (const [name, schema, base] of pending.sort(([a], [b]) => a.localeCompare(b)))
    schemas[name] = rewrite(schema, base) as Json;
  return { schemas, refByUrl };
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

/**
 * Every operation can be refused by the HTTP server before its route runs: a request line (the URL) and
 * headers over 16 KiB answer 431 `REQUEST_HEADERS_TOO_LARGE` (packages/http, `answerClientError`).
 */
function withParserErrors(paths: Json): Json {
  for (const item of Object.values(paths) as Json[])
    for (const method of HTTP_METHODS) {
      const op = item[method] as { responses?: Json } | undefined;
      if (op?.responses && !('431' in op.responses))
        op.responses['431'] = { $ref: '#/components/responses/RequestHeadersTooLarge' };
    }
  return paths;
}

/**
 * The OpenAPI 3.1 document of the service, with every body schema taken from schemas/http. Scopes are
 * listed per operation in the security requirement (OpenAPI 3.1 allows role names for any scheme).
 */
export function buildOpenApi(): Json {
  const { schemas } = componentsFromSchemas();
  return {
    openapi: '3.1.0',
    info: {
      title: 'Customer Risk Import Service',
      version: 'v0',
      description:
        'Customer import, risk evaluation and screening. Decisions on points interface.md leaves open: docs/api.md.',
    },
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    tags: [
      { name: 'customers' },
      { name: 'classifiers' },
      { name: 'operations' },
      { name: 'screening' },
      { name: 'risk' },
      { name: 'callbacks' },
      { name: 'health' },
    ],
    security: [{ bearerAuth: [] }],
    paths: withParserErrors({ ...interfacePaths(), ...productPaths() }),
    components: {
      schemas,
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: `Verified JWT bound to business units. Scopes: ${Object.entries(ScopeDescriptions)
            .map(([scope, meaning]) => `${scope} (${meaning})`)
            .join('; ')}`,
        },
      },
      responses: {
        Unauthorized: json(ref('ErrorBody'), 'AUTH_MISSING_TOKEN or AUTH_INVALID_TOKEN.'),
        Forbidden: json(ref('ErrorBody'), 'AUTH_FORBIDDEN_SCOPE or AUTH_FORBIDDEN_BUSINESS_UNIT.'),
        PayloadTooLarge: json(
          ref('ErrorBody'),
          'PAYLOAD_TOO_LARGE: body over the configured size (more customers than the batch limit is a 400).',
        ),
        RequestHeadersTooLarge: json(
          ref('ErrorBody'),
          'REQUEST_HEADERS_TOO_LARGE: the request line (the URL with its query) and headers are over 16 KiB together; refused before the operation runs.',
        ),
        UnsupportedMediaType: json(
          ref('ErrorBody'),
          'UNSUPPORTED_MEDIA_TYPE: the body must be application/json.',
        ),
        ServiceUnavailable: json(
          ref('ErrorBody'),
          'SERVICE_UNAVAILABLE: Kafka or the store is unreachable; retry later.',
        ),
      },
    },
  };
}
