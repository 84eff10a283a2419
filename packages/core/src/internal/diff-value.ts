import type { JsonObject, JsonValue } from '../json.js';
import { isJsonObject, jsonEqual } from '../json.js';
import { indexKey } from './index-key.js';
import { defineData } from './define-data.js';
import { ownValue } from './own-property.js';

/**
 * The minimal patch value that turns `before` into `after` at one location, or `undefined`
 * when they are equal as JSON. Objects diff recursively (deleted keys → `null`); arrays of
 * equal length diff element-wise into an index patch (`"[N]"` keys, each element diffed by
 * this same rule); anything else is replaced by `after`. Shares `after`'s subtrees.
 */
export function diffValue(before: JsonValue, after: JsonValue): JsonValue | undefined {
  if (jsonEqual(before, after)) return undefined;
  if (isJsonObject(before) && isJsonObject(after)) return diffObject(before, after);
  if (Array.isArray(before) && Array.isArray(after) && before.length === after.length) {
    const patch: JsonObject = {};
    after.forEach((element, i) => {
      const part = diffValue(before[i] as JsonValue, element);
      if (part !== undefined) defineData(patch, indexKey(i), part);
    });
    return patch;
  }
  return after;
}

function diffObject(before: JsonObject, after: JsonObject): JsonObject {
  const patch: JsonObject = {};
  for (const key of Object.keys(before)) {
    if (ownValue(after, key) === undefined) defineData(patch, key, null);
  }
  for (const key of Object.keys(after)) {
    const next = after[key] as JsonValue;
    const previous = ownValue(before, key);
    const part = previous === undefined ? next : diffValue(previous, next);
    if (part !== undefined) defineData(patch, key, part);
  }
  return patch;
}
