import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { bundleSchema } from './schema-bundle';

/** A message type with its registry subject and its JSON Schema (read from schemas/, the single source of truth). */
export interface MessageSchema {
  kind: 'events' | 'commands' | 'operations' | 'matrices' | 'lists';
  type: string;
  subject: string;
  schema: { title: string; $id?: string; [k: string]: unknown };
}

/** The repository's schemas/ folder, from src/ (tests) and dist/ (runtime) alike. */
export function schemasDir(): string {
  return process.env.CRS_SCHEMAS_DIR ?? join(__dirname, '..', '..', '..', 'schemas');
}

/**
 * Every message schema under schemas/{events,commands,operations,matrices,lists}, keyed by its message
 * type (title), each bundled: the shared definitions it refers to (schemas/common/) inlined, so that
 * the registry gets one self-contained document, the same as before they were shared (decision 0029).
 */
export function loadMessageSchemas(dir = schemasDir()): MessageSchema[] {
  const out: MessageSchema[] = [];
  const shared = new Map<string, unknown>(); // schemas/common/ read once for all
  for (const kind of ['events', 'commands', 'operations', 'matrices', 'lists'] as const) {
    let files: string[];
    try {
      files = readdirSync(join(dir, kind)).filter((f) => f.endsWith('.schema.json'));
    } catch {
      continue;
    }
    for (const f of files.sort()) {
      const file = join(dir, kind, f);
      const schema = bundleSchema(
        JSON.parse(readFileSync(file, 'utf8')) as MessageSchema['schema'],
        file,
        dir,
        shared,
      );
      const props = schema.properties as { type?: { const?: string } } | undefined;
      const type = props?.type?.const ?? schema.title;
      out.push({ kind, type, subject: `crs.${kind}.${type}`, schema });
    }
  }
  return out;
}
