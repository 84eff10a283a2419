/**
 * Fitting a patch to a state it was not written against (store README "Undo"): an undo replays
 * the other writers' stored net patches over a state without the undone writer's changes, where
 * an indexed element (`"[N]"`) a patch addresses may not exist.
 */
import { freeze } from 'immer';
import type { JsonObject, JsonValue } from './json.js';
import { isJsonObject } from './json.js';
import { defineData } from './internal/define-data.js';
import { classifyKey } from './internal/index-key.js';
import { ownValue } from './internal/own-property.js';
import { patchObjectShape } from './internal/patch-shape.js';

/**
 * The part of a valid patch (DESIGN.md "Patches") that applies to `state`: every `"[N]"` write
 * whose target is not an array of more than N elements is left out, with the objects that held
 * only such writes; everything else is kept as it is. `applyPatch(state, fitPatch(state, patch))`
 * never fails on an index; `{}` when nothing of the patch applies. When `patch` applies to
 * `state` whole, the result is `patch` itself.
 *
 * @example fitPatch({ a: [1] }, { a: { '[0]': 2, '[3]': 4 }, b: 1 }) // { a: { '[0]': 2 }, b: 1 }
 */
export function fitPatch(state: JsonObject, patch: JsonObject): JsonObject {
  const fitted = fitMembers(state, patch, false);
  return fitted === patch ? patch : freeze(fitted ?? {}, true);
}

/** The fitted patch value at one location (`undefined`: nothing of it applies). */
function fitValue(target: JsonValue | undefined, patch: JsonValue): JsonValue | undefined {
  if (!isJsonObject(patch)) return patch;
  if (patchObjectShape(patch, '') === 'index') {
    if (!Array.isArray(target)) return undefined;
    return fitMembers(target, patch, true);
  }
  return fitMembers(isJsonObject(target) ? target : undefined, patch, false);
}

/** The members of an object or index patch that apply; the patch itself when all of them do. */
function fitMembers(target: JsonObject | JsonValue[] | undefined, patch: JsonObject, indexed: boolean): JsonObject | undefined {
  let out: JsonObject | null = null;
  const keys = Object.keys(patch);
  keys.forEach((key, n) => {
    const member = patch[key] as JsonValue;
    const current = indexed ? elementAt(target as JsonValue[], key) : target === undefined ? undefined : ownValue(target as JsonObject, key);
    const outOfRange = indexed && current === undefined;
    const fitted = outOfRange ? undefined : member === null ? null : fitValue(current, member);
    if (fitted === member && out === null) return;
    if (out === null) {
      out = {};
      for (const earlier of keys.slice(0, n)) defineData(out, earlier, patch[earlier] as JsonValue);
    }
    if (fitted !== undefined) defineData(out, key, fitted);
  });
  if (out === null) return patch;
  return Object.keys(out).length === 0 ? undefined : out;
}

function elementAt(array: JsonValue[], key: string): JsonValue | undefined {
  const classified = classifyKey(key) as { index: number };
  return classified.index < array.length ? array[classified.index] : undefined;
}
