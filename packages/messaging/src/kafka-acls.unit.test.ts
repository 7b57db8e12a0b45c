import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Topics } from './topics';

/**
 * The chart's ACL table (deploy/helm/customer-risk/files/kafka-acls.json, docs/kafka-acls.md) against the
 * topic catalogue: a renamed or new topic must show up in the table, or a service loses its access.
 */
interface AclEntry {
  type: string;
  name: string;
  patternType: string;
  operations: string[];
}
const table = JSON.parse(
  readFileSync(join(__dirname, '../../../deploy/helm/customer-risk/files/kafka-acls.json'), 'utf8'),
) as { principals: Record<string, { acls: AclEntry[] }> };
const entries = Object.entries(table.principals).flatMap(([principal, { acls }]) =>
  acls.map((acl) => ({ principal, ...acl })),
);
const catalogue = new Set<string>(Object.values(Topics).map((t) => t.name));
const unused = new Set<string>([Topics.callbackRetry.name, Topics.callbackDeadLetter.name]);

describe('Kafka ACL table of the chart', () => {
  it('names only topics of the catalogue, and covers every topic the services use', () => {
    const literal = entries.filter((e) => e.type === 'topic' && e.patternType === 'literal');
    expect(literal.filter((e) => !catalogue.has(e.name)).map((e) => `${e.principal}: ${e.name}`)).toEqual([]);
    const read = new Set(literal.filter((e) => e.operations.includes('Read')).map((e) => e.name));
    const written = new Set(literal.filter((e) => e.operations.includes('Write')).map((e) => e.name));
    for (const name of catalogue) {
      if (unused.has(name)) continue;
      expect({ name, read: read.has(name), written: written.has(name) }).toEqual({
        name,
        read: true,
        written: true,
      });
    }
  });

  it('gives every principal Describe on the topic prefix (the start-up topic check) and only known operations', () => {
    const known = new Set([
      'Read',
      'Write',
      'Create',
      'Delete',
      'Describe',
      'DescribeConfigs',
      'AlterConfigs',
      'IdempotentWrite',
    ]);
    for (const [principal, { acls }] of Object.entries(table.principals)) {
      if (principal === 'upstream') continue;
      expect({
        principal,
        describesAll: acls.some(
          (a) =>
            a.type === 'topic' &&
            a.name === 'crs.' &&
            a.patternType === 'prefix' &&
            a.operations.includes('Describe'),
        ),
      }).toEqual({ principal, describesAll: true });
    }
    for (const e of entries) {
      expect(['topic', 'group', 'transactionalId', 'cluster']).toContain(e.type);
      expect(['literal', 'prefix']).toContain(e.patternType);
      for (const op of e.operations) expect(known).toContain(op);
    }
  });

  it('lets no service but the decider write the customer events, and none but the edge and reactors write commands', () => {
    const writers = (topic: string) =>
      entries
        .filter((e) => e.type === 'topic' && e.name === topic && e.operations.includes('Write'))
        .map((e) => e.principal)
        .sort();
    expect(writers(Topics.customerEvents.name)).toEqual(['customer']);
    expect(writers(Topics.customerCommands.name)).toEqual(['evaluation', 'ingress', 'screening']);
    expect(writers(Topics.operationIngest.name)).toEqual(['upstream']);
  });
});
