import { freeze } from 'immer';
import type { JsonObject, JsonValue } from './json.js';
import { defineData } from './internal/define-data.js';
import { patchInvalid } from './patch-error.js';
import { childPointer } from './json-pointer.js';

/**
 * A deep, deeply frozen copy of a caller's value as pure JSON, read exactly once.
 *
 * Patches are snapshotted before validation so that validation and application see the same
 * data (getters run once), later mutation of the caller's object cannot change stored state
 * (immer's rule: patch values are cloned and frozen when applied), and `-0` becomes `0`.
 *
 * @throws StateflowError `PATCH_INVALID` with `reason: 'not-json'` and the pointer `at` of the
 *   first value that is not JSON: `undefined`, NaN, ±Infinity, a function, symbol or bigint, a
 *   class instance (any prototype other than `Object.prototype`, `null` or `Array.prototype`),
 *   a sparse array, a cycle, a symbol-keyed member (which `JSON.stringify` would drop silently),
 *   or a string or key holding a lone surrogate (RFC 8785 and UTF-8
 *   storage cannot represent one); `reason: 'too-deep'` beyond {@link MAX_PATCH_DEPTH} levels.
 */
export function snapshotJson(value: unknown, at = ''): JsonValue {
  return freeze(copy(value, { at, path: [], ancestors: new Set() }), true);
}

/**
 * Deepest container nesting accepted in a patch (the top-level object is level 1). An
 * operational bound that keeps every recursive walk far from the call-stack limit, so deep
 * input fails as `PATCH_INVALID` instead of a `RangeError`.
 */
export const MAX_PATCH_DEPTH = 512;

const LONE_SURROGATE = /\p{Cs}/u;

/**
 * Where the copy is: the caller's pointer `at`, the keys walked below it (the pointer text is
 * built only for an error, not for every member), and the containers on the way (cycles).
 */
interface Walk {
  at: string;
  path: string[];
  ancestors: Set<object>;
}

function pointer(walk: Walk): string {
  let at = walk.at;
  for (const key of walk.path) at = childPointer(at, key);
  return at;
}

function copy(value: unknown, walk: Walk): JsonValue {
  switch (typeof value) {
    case 'string':
      if (LONE_SURROGATE.test(value)) throw notJson(walk, 'a string with a lone surrogate is not valid Unicode text');
      return value;
    case 'boolean':
      return value;
    case 'number':
      if (!Number.isFinite(value)) throw notJson(walk, `${String(value)} is not a JSON number`);
      return value === 0 ? 0 : value;
    case 'object':
      if (value === null) return null;
      break;
    default:
      throw notJson(walk, `a ${typeof value} is not a JSON value`);
  }
  const { ancestors } = walk;
  if (ancestors.has(value)) throw notJson(walk, 'the value contains a cycle');
  if (ancestors.size >= MAX_PATCH_DEPTH) {
    throw patchInvalid(`containers are nested more than ${MAX_PATCH_DEPTH} levels deep`, { reason: 'too-deep', at: pointer(walk) });
  }
  ancestors.add(value);
  const result = Array.isArray(value) ? copyArray(value, walk) : copyObject(value, walk);
  ancestors.delete(value);
  return result;
}

function copyArray(value: unknown[], walk: Walk): JsonValue[] {
  if (Object.getPrototypeOf(value) !== Array.prototype) throw notJson(walk, 'an array subclass is not a JSON array');
  const result: JsonValue[] = [];
  for (let i = 0; i < value.length; i++) {
    walk.path.push(String(i));
    if (!(i in value)) throw notJson(walk, 'a sparse array (hole) is not JSON');
    result.push(copy(value[i], walk));
    walk.path.pop();
  }
  return result;
}

function copyObject(value: object, walk: Walk): JsonObject {
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) {
    const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
    throw notJson(walk, `an instance of ${typeof name === 'string' ? name : 'a class'} is not a plain JSON object`);
  }
  for (const symbol of Object.getOwnPropertySymbols(value)) {
    if (Object.prototype.propertyIsEnumerable.call(value, symbol)) throw notJson(walk, `a symbol-keyed member (${String(symbol)}) is not JSON`);
  }
  const result: JsonObject = {};
  for (const key of Object.keys(value)) {
    walk.path.push(key);
    if (LONE_SURROGATE.test(key)) throw notJson(walk, 'a key with a lone surrogate is not valid Unicode text');
    const member = copy((value as Record<string, unknown>)[key], walk);
    // Assignment is much faster than defining; only `__proto__` would reach the prototype setter.
    if (key === '__proto__') defineData(result, key, member);
    else result[key] = member;
    walk.path.pop();
  }
  return result;
}

function notJson(walk: Walk, message: string): Error {
  return patchInvalid(message, { reason: 'not-json', at: pointer(walk) });
}
