import Validator from '@seriousme/openapi-schema-validator';
import { buildOpenApi } from './openapi';
import { schemaDocuments } from './generated/schemas.generated';

type Json = Record<string, unknown>;
const doc = buildOpenApi() as Json & {
  paths: Record<string, Record<string, Json>>;
  components: { schemas: Record<string, Json> };
};

function refsOf(node: unknown, found: string[] = []): string[] {
  if (Array.isArray(node)) node.forEach((item) => refsOf(item, found));
  else if (node !== null && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') found.push(value);
      else refsOf(value, found);
    }
  }
  return found;
}

function resolvePointer(pointer: string): unknown {
  let node: unknown = doc;
  for (const part of pointer.replace(/^#\//, '').split('/'))
    node = (node as Json | undefined)?.[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  return node;
}

describe('buildOpenApi', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc));
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('resolves every $ref inside the document', () => {
    const refs = refsOf(doc);
    expect(refs.length).toBeGreaterThan(50);
    for (const ref of refs) {
      expect(ref.startsWith('#/')).toBe(true);
      expect(resolvePointer(ref)).toBeDefined();
    }
  });

  it('gives every operation a unique operationId and documents auth failures on secured ones', () => {
    const ids: string[] = [];
    for (const operations of Object.values(doc.paths)) {
      for (const operation of Object.values(operations)) {
        ids.push(String(operation.operationId));
        const responses = operation.responses as Json;
        const secured = (operation.security as unknown[] | undefined)?.length !== 0;
        if (secured) expect(Object.keys(responses)).toEqual(expect.arrayContaining(['401', '403', '503']));
      }
    }
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toHaveLength(24);
  });

  it('covers the interface endpoints with their spec bodies', () => {
    const batch = doc.paths['/core-ws-rest/validate-batch-customers']?.post as {
      responses: Record<string, Json>;
    };
    expect(refsOf(batch.responses['404'])).toEqual(['#/components/schemas/BatchNotFoundError']);
    expect(refsOf(batch.responses['400'])).toEqual(['#/components/schemas/BadRequestError']);
    const simplified = doc.paths['/core-ws-rest/simplifiedCustomer']?.post as {
      responses: Record<string, Json>;
    };
    expect(refsOf(simplified.responses['500'])).toEqual(['#/components/schemas/SimplifiedInternalError']);
    for (const name of [
      'paymentPurposeType',
      'accountType',
      'addressType',
      'sourceOfWealth',
      'currency',
      'country',
    ]) {
      expect(doc.paths[`/classifier/${name}`]?.get).toBeDefined();
    }
    expect(doc.paths['/api/integration-services/v1/discard-operations']?.delete?.security).toEqual([
      { bearerAuth: ['operations:archive'] },
    ]);
  });

  it('takes component schemas from schemas/http instead of copying fields by hand', () => {
    const customerFields = schemaDocuments.find((d) =>
      String(d.$id).endsWith('/customer-parts.v1.schema.json'),
    )?.$defs as Record<string, Json>;
    const component = doc.components.schemas.CustomerFields as Json;
    expect(Object.keys(component.properties as Json)).toEqual(
      Object.keys((customerFields.CustomerFields as Json).properties as Json),
    );
    expect(JSON.stringify(doc)).not.toContain('schemas.crs.local');
  });
});
