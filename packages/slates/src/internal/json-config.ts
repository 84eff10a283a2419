/**
 * The JSON gate of ladder configs: a config — given as an object, or parsed from YAML, whose
 * core schema also yields `.nan`/`.inf` numbers — must be plain JSON data before the structural
 * schema, the cross-reference rules or ajv's schema compiler walk it (a cycle or a 10,000-level
 * nesting would overflow their recursion; a BigInt or a function has no JSON meaning).
 */

/**
 * Deepest container nesting accepted in a ladder config (the config object is level 1). Real
 * configs, author JSON Schemas included, stay far below; the bound keeps every recursive walk
 * (yaml's composer, ajv, the rules) far from the call-stack limit.
 */
export const MAX_CONFIG_DEPTH = 128;

// With the `u` flag a surrogate class matches only unpaired surrogates: paired ones are one code point.
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/** Where a config stops being JSON: an RFC 6901 pointer and what is wrong there. */
export interface NonJson {
  pointer: string;
  problem: string;
}

/**
 * The first place `value` is not plain JSON data, or `undefined` when it all is: strings
 * without lone surrogates, finite numbers, booleans, `null`, dense plain arrays, plain objects
 * (prototype `Object.prototype` or `null`, no symbol keys), no cycles, at most
 * {@link MAX_CONFIG_DEPTH} levels. Keys such as `__proto__` are data (own properties). An
 * object member whose value is `undefined` counts as absent (as `JSON.stringify` treats it,
 * and as configs built in code write an optional key); `undefined` in an array is a problem.
 * A getter or proxy trap that throws is reported as a problem at the root, never rethrown.
 */
export function findNonJson(value: unknown): NonJson | undefined {
  try {
    return walk(value, '', new Set());
  } catch (err) {
    return { pointer: '', problem: `cannot be read as JSON (${String((err as Error)?.message ?? err)})` };
  }
}

function walk(value: unknown, pointer: string, ancestors: Set<object>): NonJson | undefined {
  switch (typeof value) {
    case 'boolean':
      return undefined;
    case 'string':
      return LONE_SURROGATE.test(value) ? { pointer, problem: 'is a string with an unpaired UTF-16 surrogate (not encodable as UTF-8)' } : undefined;
    case 'number':
      return Number.isFinite(value) ? undefined : { pointer, problem: `is ${String(value)}, not a JSON number` };
    case 'object':
      if (value === null) return undefined;
      break;
    default:
      return { pointer, problem: `is a ${typeof value}, not a JSON value` };
  }
  if (ancestors.has(value)) return { pointer, problem: 'contains a cycle' };
  if (ancestors.size >= MAX_CONFIG_DEPTH) return { pointer, problem: `nests more than ${MAX_CONFIG_DEPTH} levels deep` };
  ancestors.add(value);
  const found = Array.isArray(value) ? walkArray(value, pointer, ancestors) : walkObject(value, pointer, ancestors);
  ancestors.delete(value);
  return found;
}

function walkArray(value: unknown[], pointer: string, ancestors: Set<object>): NonJson | undefined {
  if (Object.getPrototypeOf(value) !== Array.prototype) return { pointer, problem: 'is an array subclass, not a JSON array' };
  for (let i = 0; i < value.length; i++) {
    if (!(i in value)) return { pointer: `${pointer}/${i}`, problem: 'is a hole in a sparse array' };
    const found = walk(value[i], `${pointer}/${i}`, ancestors);
    if (found !== undefined) return found;
  }
  return undefined;
}

function walkObject(value: object, pointer: string, ancestors: Set<object>): NonJson | undefined {
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return { pointer, problem: 'is a class instance (Date, Map, …), not a plain JSON object' };
  if (Object.getOwnPropertySymbols(value).length > 0) return { pointer, problem: 'has symbol keys' };
  for (const key of Object.keys(value)) {
    const child = `${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    if (LONE_SURROGATE.test(key)) return { pointer: child, problem: 'is a key with an unpaired UTF-16 surrogate (not encodable as UTF-8)' };
    const member = (value as Record<string, unknown>)[key];
    const found = member === undefined ? undefined : walk(member, child, ancestors);
    if (found !== undefined) return found;
  }
  return undefined;
}
