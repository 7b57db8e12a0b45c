/**
 * What `JSON.parse(JSON.stringify(value))` gives, built in one walk without the text in between: the
 * explanation of every assessment went through that round trip (a tenth of the evaluation service's CPU
 * under load, measured; decision 0075), and is turned into JSON again by the registry's encoder anyway.
 * Same rules as JSON for data (plain objects and arrays, primitives, Dates, this realm's boxed primitives,
 * what JSON.parse gives): `toJSON` is called (Dates become strings), boxed primitives are unwrapped,
 * undefined, functions and symbols are left out of objects and become null in arrays, non-finite numbers
 * become null, only own enumerable string keys are kept, a BigInt or a cycle throws a TypeError. Values
 * that are not data differ (a function with its own `toJSON`, a boxed BigInt, another realm's boxed
 * primitive, a BigInt under a `BigInt.prototype.toJSON` polyfill, `undefined` at the top): not for those.
 */
export function toJsonValue<T>(value: T): T {
  return walk(value, '', new Set()) as T;
}

function walk(value: unknown, key: string, path: Set<object>): unknown {
  if (
    value !== null &&
    typeof value === 'object' &&
    typeof (value as { toJSON?: unknown }).toJSON === 'function'
  )
    value = (value as { toJSON: (key: string) => unknown }).toJSON(key);
  if (value instanceof Number || value instanceof String || value instanceof Boolean) value = value.valueOf();
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      // -0 is written as 0.
      return Number.isFinite(value) ? value + 0 : null;
    case 'bigint':
      throw new TypeError('Do not know how to serialize a BigInt');
    case 'object': {
      if (value === null) return null;
      if (path.has(value)) throw new TypeError('Converting circular structure to JSON');
      path.add(value);
      let out: unknown;
      if (Array.isArray(value)) {
        // A loop, not map: a hole of a sparse array is written as null too.
        const array: unknown[] = new Array<unknown>(value.length);
        for (let index = 0; index < value.length; index++)
          array[index] = walk(value[index], String(index), path) ?? null;
        out = array;
      } else {
        const object: Record<string, unknown> = {};
        for (const k of Object.keys(value)) {
          const v = walk((value as Record<string, unknown>)[k], k, path);
          if (v === undefined) continue;
          // JSON.parse makes `__proto__` an own property; an assignment would set the prototype instead.
          if (k === '__proto__')
            Object.defineProperty(object, k, {
              value: v,
              enumerable: true,
              writable: true,
              configurable: true,
            });
          else object[k] = v;
        }
        out = object;
      }
      path.delete(value);
      return out;
    }
    default:
      // undefined, functions and symbols: left out of an object, null in an array (the caller's `?? null`).
      return undefined;
  }
}
