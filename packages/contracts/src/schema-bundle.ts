import { readFileSync } from 'node:fs';
import { dirname, resolve, sep } from 'node:path';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/**
 * Inlines every external `$ref` of a schema document of schemas/ (a relative file reference with an
 * optional JSON pointer, e.g. `../common/message-envelope.v1.schema.json#/$defs/identifier`): the
 * schema registry keeps each message schema as one self-contained document and resolves no
 * cross-document references, and a message schema registered today must stay the same text
 * (decision 0029). A `$ref` node becomes its target's keys followed by the node's own other keys.
 * Local references (`#/...`) are kept as they are; a target that holds one cannot be inlined and is
 * rejected, as is a reference leaving `root`.
 *
 * Written here rather than taken from a library (@apidevtools/json-schema-ref-parser): that one is
 * asynchronous and resolves any URL, while the loader is synchronous and must only read our own tree.
 */
export function bundleSchema<T>(
  schema: T,
  file: string,
  root: string,
  /** Documents already read, by absolute path: pass one map to bundle many schemas reading each once. */
  cache: Map<string, unknown> = new Map(),
): T {
  return inline(schema as Json, resolve(file), resolve(root), cache as Map<string, Json>, []) as T;
}

/** True when a document still holds a `$ref` to another document. */
export function hasExternalRef(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(hasExternalRef);
  if (node === null || typeof node !== 'object') return false;
  return Object.entries(node).some(
    ([key, value]) =>
      (key === '$ref' && typeof value === 'string' && !value.startsWith('#')) || hasExternalRef(value),
  );
}

function inline(node: Json, file: string, root: string, cache: Map<string, Json>, trail: string[]): Json {
  if (Array.isArray(node)) return node.map((item) => inline(item, file, root, cache, trail));
  if (node === null || typeof node !== 'object') return node;
  const { $ref: ref, ...rest } = node;
  if (typeof ref === 'string' && !ref.startsWith('#')) {
    const [path = '', fragment = ''] = ref.split('#', 2);
    const target = resolve(dirname(file), path);
    if (!target.startsWith(`${root}${sep}`))
      throw new Error(`schema bundle: ${ref} in ${file} leaves ${root}`);
    const key = `${target}#${fragment}`;
    if (trail.includes(key)) throw new Error(`schema bundle: ${ref} in ${file} refers to itself`);
    const resolved = inline(pointer(documentAt(target, cache), fragment, key), target, root, cache, [
      ...trail,
      key,
    ]);
    if (JSON.stringify(resolved).includes('"$ref":"#'))
      throw new Error(`schema bundle: ${ref} in ${file} holds a local $ref and cannot be inlined`);
    if (resolved === null || typeof resolved !== 'object' || Array.isArray(resolved))
      throw new Error(`schema bundle: ${ref} in ${file} is not a schema object`);
    return { ...resolved, ...inlineAll(rest, file, root, cache, trail) };
  }
  return inlineAll(node, file, root, cache, trail);
}

function inlineAll(
  node: { [key: string]: Json },
  file: string,
  root: string,
  cache: Map<string, Json>,
  trail: string[],
): { [key: string]: Json } {
  const out: { [key: string]: Json } = {};
  for (const [key, value] of Object.entries(node)) out[key] = inline(value, file, root, cache, trail);
  return out;
}

function documentAt(file: string, cache: Map<string, Json>): Json {
  let document = cache.get(file);
  if (document === undefined) {
    document = JSON.parse(readFileSync(file, 'utf8')) as Json;
    cache.set(file, document);
  }
  return document;
}

/** The node a JSON pointer (RFC 6901, `/$defs/identifier`) designates; the whole document when empty. */
function pointer(document: Json, fragment: string, ref: string): Json {
  let node = document;
  for (const raw of fragment.split('/').slice(1)) {
    const token = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    const next =
      node !== null && typeof node === 'object' && Object.prototype.hasOwnProperty.call(node, token)
        ? (node as Record<string, Json>)[token]
        : undefined;
    if (next === undefined) throw new Error(`schema bundle: ${ref} designates nothing`);
    node = next;
  }
  return node;
}
