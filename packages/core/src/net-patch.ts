import { freeze } from 'immer';
import type { JsonObject, JsonValue } from './json.js';
import { isJsonObject, jsonEqual } from './json.js';
import { checkPatch } from './internal/checked-patch.js';
import type { PatchOptions } from './patch-options.js';
import { refusesEmptyObjects } from './patch-options.js';
import { classifyKey } from './internal/index-key.js';
import { mergeValue } from './internal/merge.js';
import { defineData } from './internal/define-data.js';
import { ownValue } from './internal/own-property.js';
import { patchObjectShape } from './internal/patch-shape.js';

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
 *
 * @throws StateflowError `PATCH_INVALID` when `patch` is not valid for `before` ({@link validatePatch},
 *   with the same `options`).
 */
export function netPatch(before: JsonObject, patch: JsonObject, options?: PatchOptions): JsonObject {
  const checked = checkPatch(before, patch, { refuseEmptyObjects: refusesEmptyObjects(options) });
  return freeze((netValue(before, checked.patch) as JsonObject | undefined) ?? {}, true);
}

/** The net part of a validated patch value at one location; `undefined` when it changes nothing. */
function netValue(target: JsonValue | undefined, patch: JsonValue): JsonValue | undefined {
  if (!isJsonObject(patch)) return target !== undefined && jsonEqual(target, patch) ? undefined : patch;
  if (patchObjectShape(patch, '') === 'index') {
    const elements = target as JsonValue[];
    return netMembers(patch, (key) => elements[(classifyKey(key) as { index: number }).index]);
  }
  if (!isJsonObject(target)) return mergeValue(undefined, patch, '');
  return netMembers(patch, (key) => ownValue(target, key));
}

function netMembers(patch: JsonObject, current: (key: string) => JsonValue | undefined): JsonObject | undefined {
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
