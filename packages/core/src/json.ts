/**
 * JSON value model shared by every Stateflow package (DESIGN.md "Decisions": values are JSON).
 *
 * States are plain JSON objects. Object keys are own enumerable properties only; inherited
 * members (`toString`, an array's `length`) are never data. Keys such as `__proto__` are data.
 */

/** A JSON scalar. `null` is a JSON value but is never retained inside stored state. */
export type JsonScalar = string | number | boolean | null;
/** A JSON object (own enumerable string keys only). */
export interface JsonObject {
  [key: string]: JsonValue;
}
/** A JSON array. */
export type JsonArray = JsonValue[];
/** Any JSON value. */
export type JsonValue = JsonScalar | JsonObject | JsonArray;

/** The kinds reported by the `keys` projection (`null` never occurs in stored state). */
export type JsonKind = 'object' | 'array' | 'string' | 'number' | 'boolean' | 'null';

/** True for a plain JSON object (not an array, not null). */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The JSON kind of a value. */
export function kindOf(value: JsonValue): JsonKind {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  switch (typeof value) {
    case 'object':
      return 'object';
    case 'string':
      return 'string';
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    default:
      throw new TypeError(`not a JSON value: ${typeof value}`);
  }
}

/** Own-property check that never consults the prototype chain (`__proto__` is data). */
export function hasOwn(object: object, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(object, key);
}

/**
 * Deep equality of two JSON values with object key order ignored (RFC 8259 semantics:
 * objects are unordered; `4.0` and `4` are the same number).
 */
export function jsonEqual(a: JsonValue, b: JsonValue): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i] as JsonValue, b[i] as JsonValue)) return false;
    return true;
  }
  if (isJsonObject(a)) {
    if (!isJsonObject(b) || Array.isArray(b)) return false;
    const ak = Object.keys(a);
    if (ak.length !== Object.keys(b).length) return false;
    for (const k of ak) {
      if (!hasOwn(b, k) || !jsonEqual(a[k] as JsonValue, b[k] as JsonValue)) return false;
    }
    return true;
  }
  return false;
}
