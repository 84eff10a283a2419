import { freeze } from 'immer';
import type { JsonObject, JsonValue } from './json.js';
import { isJsonObject } from './json.js';
import { defineData } from './internal/define-data.js';
import { copyObject, ownValue } from './internal/own-property.js';

/**
 * The effective overlay of scope states (DESIGN.md "Effective overlay and planes"; seed
 * "Effective lazy overlay"), layers ordered low → high priority, e.g.
 * `overlay(global, cwd, session)`. `undefined` layers (unselected or absent owners) are skipped.
 *
 * Objects overlay recursively; a non-object value from a higher layer replaces the lower one
 * (arrays replace whole, an object replaces a scalar and vice versa); a key absent from a
 * higher layer reveals the lower layer's value (scope-local deletion reveals what is beneath).
 * With no layers the result is `{}`; with one, that layer. The result is deeply frozen and
 * shares unchanged subtrees with the layers (which are frozen in place); no layer is mutated.
 */
export function overlay(...layers: Array<JsonObject | undefined>): JsonObject {
  let result: JsonObject = {};
  for (const layer of layers) if (layer !== undefined) result = overlayObject(result, layer);
  return freeze(result, true);
}

function overlayObject(lower: JsonObject, upper: JsonObject): JsonObject {
  if (Object.keys(upper).length === 0) return lower;
  if (Object.keys(lower).length === 0) return upper;
  const result = copyObject(lower);
  for (const key of Object.keys(upper)) {
    const high = upper[key] as JsonValue;
    const low = ownValue(lower, key);
    defineData(result, key, isJsonObject(low) && isJsonObject(high) ? overlayObject(low, high) : high);
  }
  return result;
}
