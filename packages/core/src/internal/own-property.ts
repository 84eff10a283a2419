import type { JsonObject, JsonValue } from '../json.js';
import { hasOwn } from '../json.js';
import { defineData } from './define-data.js';

/** A fresh, unfrozen shallow copy of `source` that keeps every own key as data (including `__proto__`). */
export function copyObject(source: JsonObject): JsonObject {
  const copy: JsonObject = {};
  for (const key of Object.keys(source)) defineData(copy, key, source[key] as JsonValue);
  return copy;
}

/** The own value of `key`, or `undefined` when `key` is not an own property (inherited members are never data). */
export function ownValue(object: JsonObject, key: string): JsonValue | undefined {
  return hasOwn(object, key) ? object[key] : undefined;
}
