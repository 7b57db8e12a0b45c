import { looksEncrypted, looksSealed, SEALED_FIELD, sealedIndex, sealedPlaceholder } from './encrypted-value';
import { FieldPathInvalidError } from './errors';
import { decryptValue, encryptValue, type DataKey } from './field-cipher';
import type { DataKeySource } from './data-key-store';

/**
 * A record after decryption. Erased and invalid values are replaced by `null` (the documented marker,
 * docs/privacy.md): a reader never gets ciphertext, garbage or an exception for them, and `null` cannot
 * be mistaken for a real name or date by a downstream system. The paths say which fields they were.
 */
export interface DecryptedRecord<T> {
  /** The record with every encrypted value replaced by its plaintext, or by null (erased/invalid). */
  record: T;
  /** True when at least one value was erased: show the customer's personal data as erased. */
  erased: boolean;
  /** Generalized paths (`listAddress[].city`) of the erased values. */
  erasedPaths: string[];
  /** Paths of values that are malformed or do not authenticate (tampered or moved): alert on these. */
  invalidPaths: string[];
}

type Segment = { key: string; each: boolean };

const PATH = /^[A-Za-z0-9_$-]+(\[\])?(\.[A-Za-z0-9_$-]+(\[\])?)*$/;
const parsedPaths = new Map<string, Segment[]>();

/**
 * A field path pattern relative to the record root: dot-separated keys, `[]` after a key for every
 * element of that array (`listRelatedEntity[].listAddress[].city`). The pattern, not the concrete index,
 * is bound into the ciphertext, so arrays may be copied or re-indexed by projections.
 */
function parsePath(path: string): Segment[] {
  let segments = parsedPaths.get(path);
  if (segments) return segments;
  if (!PATH.test(path)) throw new FieldPathInvalidError(path);
  segments = path
    .split('.')
    .map((part) =>
      part.endsWith('[]') ? { key: part.slice(0, -2), each: true } : { key: part, each: false },
    );
  parsedPaths.set(path, segments);
  return segments;
}

/**
 * The paths of one call as a tree (`listAddress[].city` and `listAddress[].zipCode` share `listAddress`),
 * so a record is walked once whatever the number of paths. Kept per paths array (they are constants).
 */
interface PathNode {
  /** The key of the value in its holder (`listAddress` for `listAddress[]`). */
  name: string;
  /** The full path pattern when a value at this node is encrypted (it is bound into the ciphertext). */
  leaf?: string;
  /** Whether the value here is an array whose every element the children (or the leaf) apply to. */
  each: boolean;
  /** An array, not a map: every record of a batch walks them (decision 0054's rewrite is per customer). */
  children: PathNode[];
}

const pathTrees = new WeakMap<readonly string[], PathNode[]>();

function pathTree(paths: readonly string[]): PathNode[] {
  let root = pathTrees.get(paths);
  if (root) return root;
  root = [];
  for (const path of paths) {
    let level = root;
    const segments = parsePath(path);
    segments.forEach((segment, i) => {
      let node = level.find((n) => n.name === segment.key && n.each === segment.each);
      if (!node) {
        node = { name: segment.key, each: segment.each, children: [] };
        level.push(node);
      }
      if (i === segments.length - 1) node.leaf = path;
      level = node.children;
    });
  }
  pathTrees.set(paths, root);
  return root;
}

/**
 * The record with the value at each of `paths` replaced by `leaf(value, path)`. The input is not changed:
 * the objects and arrays on the way to a replaced value are copied, the rest of the record is shared with
 * the input (a copy of the whole record per customer was a tenth of the ingress's CPU in batch imports).
 */
function replaceLeaves<T>(
  record: T,
  paths: readonly string[],
  leaf: (value: unknown, path: string) => unknown,
): T {
  const rewrite = (node: unknown, level: readonly PathNode[]): unknown => {
    if (node === null || typeof node !== 'object' || Array.isArray(node)) return node;
    const holder = node as Record<string, unknown>;
    let copy: Record<string, unknown> | undefined;
    for (const child of level) {
      const name = child.name;
      if (!(name in holder)) continue;
      const value = holder[name];
      let next: unknown;
      if (child.each) {
        if (!Array.isArray(value)) continue;
        next = value.map((item: unknown) => {
          let out = item;
          if (child.children.length > 0) out = rewrite(out, child.children);
          return child.leaf === undefined ? out : leaf(out, child.leaf);
        });
      } else {
        next = value;
        if (child.children.length > 0) next = rewrite(next, child.children);
        if (child.leaf !== undefined) next = leaf(next, child.leaf);
      }
      if (next === value) continue;
      copy ??= { ...holder };
      copy[name] = next;
    }
    return copy ?? node;
  };
  return rewrite(record, pathTree(paths)) as T;
}

/** Absent, null, already encrypted or already sealed: a value that encryption leaves as it is. */
function keptAsIs(value: unknown): boolean {
  return value === undefined || value === null || looksEncrypted(value) || looksSealed(value);
}

/**
 * Encrypts the values at `paths` of a JSON record (as received or about to be published: no Dates or
 * driver types) with one customer's key, each value on its own. The input is not changed (only the
 * containers on the way to a value are copied). Absent and null values stay as they are; values that
 * are already encrypted (or sealed) are left alone, so encrypting twice (a reactor copying an encrypted
 * record) changes nothing. A value may be any JSON value: an object or array at a path is encrypted whole.
 */
export function encryptFieldsWith<T>(key: DataKey, streamId: string, record: T, paths: readonly string[]): T {
  return replaceLeaves(record, paths, (value, path) =>
    keptAsIs(value) ? value : encryptValue(key, streamId, path, value),
  );
}

/**
 * Seals the values at `paths` of a JSON record (decision 0054): each value is replaced by a placeholder
 * and all of them are encrypted together, once, into the record's `SEALED_FIELD` (the format of
 * encrypted-value.ts, bound to the customer and that field name). Same rules as `encryptFieldsWith`
 * otherwise: the input is not changed, absent and null values stay, encrypted and sealed values are left
 * alone. A record that is sealed already gets any plain personal value that was added since encrypted on
 * its own; a record that is not an object, or has no personal value, is returned as `encryptFieldsWith`
 * would. `decryptFieldsWith` reads both forms.
 */
export function sealFieldsWith<T>(key: DataKey, streamId: string, record: T, paths: readonly string[]): T {
  if (!isPlainObject(record) || SEALED_FIELD in record)
    return encryptFieldsWith(key, streamId, record, paths);
  const sealed: Record<string, unknown[]> = {};
  const out = replaceLeaves(record, paths, (value, path) => {
    if (keptAsIs(value)) return value;
    const values = (sealed[path] ??= []);
    values.push(value);
    return sealedPlaceholder(values.length - 1);
  });
  if (Object.keys(sealed).length === 0) return out;
  // A value was replaced, so `out` is replaceLeaves' copy (every holder on the way to a replaced value is
  // copied, the root included), not the caller's record: the sealed field is added to it in place.
  (out as Record<string, unknown>)[SEALED_FIELD] = encryptValue(key, streamId, SEALED_FIELD, sealed);
  return out;
}

/** What the sealed values of a record decrypted to: the values by path pattern, or why there are none. */
type Sealed =
  | { status: 'ok'; values: Record<string, unknown> }
  | { status: 'erased' }
  | { status: 'invalid' };

function openSealed(key: DataKey | undefined, streamId: string, record: unknown): Sealed {
  const sealed = isPlainObject(record) ? record[SEALED_FIELD] : undefined;
  if (typeof sealed !== 'string') return { status: 'invalid' };
  const result = decryptValue(key, streamId, SEALED_FIELD, sealed);
  if (result.status !== 'ok') return { status: result.status };
  return isPlainObject(result.value) ? { status: 'ok', values: result.value } : { status: 'invalid' };
}

/**
 * Decrypts every encrypted value found anywhere in a record (a copy), binding each to the generalized
 * path where it is found, and every sealed value (decision 0054) from the record's one sealed field,
 * checking that each placeholder's path and index name a value sealed for that path. `key` is the
 * customer's current key, undefined when it has none (erased). Values that are not encrypted (records
 * written before encryption was wired in) pass unchanged; the sealed field itself is not in the result.
 */
export function decryptFieldsWith<T>(
  key: DataKey | undefined,
  streamId: string,
  record: T,
): DecryptedRecord<T> {
  const erasedPaths: string[] = [];
  const invalidPaths: string[] = [];
  let sealed: Sealed | undefined;
  const unseal = (placeholder: string, path: string): unknown => {
    sealed ??= openSealed(key, streamId, record);
    if (sealed.status === 'ok') {
      const values = sealed.values[path];
      const index = sealedIndex(placeholder);
      if (Array.isArray(values) && index !== undefined && index < values.length) return values[index];
      invalidPaths.push(path);
    } else {
      (sealed.status === 'erased' ? erasedPaths : invalidPaths).push(path);
    }
    return null;
  };
  const walk = (node: unknown, path: string): unknown => {
    if (looksEncrypted(node)) {
      const result = decryptValue(key, streamId, path, node);
      if (result.status === 'ok') return result.value;
      (result.status === 'erased' ? erasedPaths : invalidPaths).push(path);
      return null;
    }
    if (looksSealed(node)) return unseal(node, path);
    if (Array.isArray(node)) return node.map((item) => walk(item, `${path}[]`));
    if (isPlainObject(node)) {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(node)) {
        if (path === '' && k === SEALED_FIELD) continue;
        out[k] = walk(v, path === '' ? k : `${path}.${k}`);
      }
      return out;
    }
    return node;
  };
  // The sealed field is opened at the first placeholder only: a part of a record without one (an
  // organisation's screened fields) costs no decryption.
  return {
    record: walk(record, '') as T,
    erased: erasedPaths.length > 0,
    erasedPaths: [...new Set(erasedPaths)],
    invalidPaths: [...new Set(invalidPaths)],
  };
}

/** Field encryption with keys from a key store: the API the services use. */
export class PersonalDataCipher {
  constructor(private readonly keys: DataKeySource) {}

  /** Encrypts the personal fields of one customer's record, creating the customer's key if needed. */
  async encryptFields<T>(streamId: string, record: T, paths: readonly string[]): Promise<T> {
    return encryptFieldsWith(await this.keys.keyFor(streamId), streamId, record, paths);
  }

  /** Seals the personal fields of one customer's record (`sealFieldsWith`), creating its key if needed. */
  async sealFields<T>(streamId: string, record: T, paths: readonly string[]): Promise<T> {
    return sealFieldsWith(await this.keys.keyFor(streamId), streamId, record, paths);
  }

  /** Decrypts one customer's record, either form; erased values come back as null (DecryptedRecord). */
  async decryptFields<T>(streamId: string, record: T): Promise<DecryptedRecord<T>> {
    if (!containsEncrypted(record)) {
      return { record, erased: false, erasedPaths: [], invalidPaths: [] };
    }
    return decryptFieldsWith(await this.keys.currentKey(streamId), streamId, record);
  }
}

/** Whether a record holds any encrypted value (no key look-up is needed otherwise). */
export function containsEncrypted(node: unknown): boolean {
  if (looksEncrypted(node) || looksSealed(node)) return true;
  if (Array.isArray(node)) return node.some(containsEncrypted);
  if (isPlainObject(node)) return Object.values(node).some(containsEncrypted);
  return false;
}

/**
 * Only plain objects are walked: a document read from MongoDB also holds Dates, ObjectIds and binary
 * values, which pass through as they are.
 */
function isPlainObject(node: unknown): node is Record<string, unknown> {
  if (node === null || typeof node !== 'object') return false;
  // Any realm's Object.prototype (structuredClone and jest's VM differ) has no prototype itself.
  const proto = Object.getPrototypeOf(node) as object | null;
  return proto === null || Object.getPrototypeOf(proto) === null;
}
