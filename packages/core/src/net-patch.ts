import { freeze } from 'immer';
import type { JsonObject, JsonValue } from './json.js';
import { isJsonObject } from './json.js';
import { checkPatch } from './internal/checked-patch.js';
import type { PatchOptions } from './patch-options.js';
import { refusesEmptyObjects } from './patch-options.js';
import { classifyKey } from './internal/index-key.js';
import { mergeValue } from './internal/merge.js';
import { defineData } from './internal/define-data.js';
import { patchObjectShape } from './internal/patch-shape.js';
import type { ArrayNode, Node, ObjectNode } from './internal/tree.js';
import { elementOf, isObjectNode, memberOf, nodeEquals, plainOf } from './internal/tree.js';

/**
 * The net patch of `patch` against `before` (DESIGN.md "Store model": a transition stores the
 * net patch): `patch` without its no-op parts, such that `applyPatch(before, netPatch(before, patch))`
 * deep-equals `applyPatch(before, patch)`.
 *
 * Dropped: writes of a value equal (as JSON) to the current one, deletions of absent keys,
 * `{}` or any object patch that changes nothing inside an existing object, indexed writes of
 * equal elements, and index patches whose every element is unchanged. Kept as written: a whole
 * array replacement that changes the array (never rewritten to `"[N]"` form). Where a patch
 * object lands on an absent or non-object value, the net patch holds the object it creates
 * (its deletion markers dropped), e.g. `{a: {b: null, c: 1}}` on `{}` nets to `{a: {c: 1}}`.
 *
 * Returns `{}` when nothing changes (an empty patch, which `applyPatch` refuses: publish no
 * transition). The result is deeply frozen and shares no objects with the caller's `patch`.
 * Cost: what `patch` names, never the rest of `before`.
 *
 * @throws StateflowError `PATCH_INVALID` when `patch` is not valid for `before` ({@link validatePatch},
 *   with the same `options`).
 */
export function netPatch(before: JsonObject, patch: JsonObject, options?: PatchOptions): JsonObject {
  return netOf(before, checkPatch(before, patch, { refuseEmptyObjects: refusesEmptyObjects(options) }).patch);
}

/** The deeply frozen net patch of a validated patch snapshot against the state tree `before`. */
export function netOf(before: ObjectNode, snapshot: JsonObject): JsonObject {
  return freeze((netValue(before, snapshot) as JsonObject | undefined) ?? {}, true);
}

/** The net part of a validated patch value at one location; `undefined` when it changes nothing. */
function netValue(target: Node | undefined, patch: JsonValue): JsonValue | undefined {
  if (!isJsonObject(patch)) return target !== undefined && nodeEquals(target, patch) ? undefined : patch;
  if (patchObjectShape(patch, '') === 'index') {
    const elements = target as ArrayNode;
    return netMembers(patch, (key) => elementOf(elements, (classifyKey(key) as { index: number }).index));
  }
  // An object patch on a non-object creates a plain object (its members are all new).
  if (!isObjectNode(target)) return plainOf(mergeValue(undefined, patch, ''));
  return netMembers(patch, (key) => memberOf(target, key));
}

function netMembers(patch: JsonObject, current: (key: string) => Node | undefined): JsonObject | undefined {
  const net: JsonObject = {};
  let changed = false;
  for (const key of Object.keys(patch)) {
    const member = patch[key] as JsonValue;
    const value = current(key);
    const part = member === null ? (value === undefined ? undefined : null) : netValue(value, member);
    if (part !== undefined) {
      defineData(net, key, part);
      changed = true;
    }
  }
  return changed ? net : undefined;
}
