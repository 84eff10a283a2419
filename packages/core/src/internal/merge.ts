import type { JsonArray, JsonObject, JsonValue } from '../json.js';
import { isJsonObject, kindOf } from '../json.js';
import { classifyKey } from './index-key.js';
import { defineData } from './define-data.js';
import { copyObject, ownValue } from './own-property.js';
import { patchInvalid } from '../patch-error.js';
import { assertWritableValue, patchObjectShape } from './patch-shape.js';
import { childPointer } from '../json-pointer.js';

const EMPTY: JsonObject = Object.freeze({});

/** How one application of a patch walks: see {@link mergeValue}. */
export interface MergeOptions {
  /** Containers private to a patch series, changed in place ({@link PatchSeries}). */
  owned?: Set<object> | undefined;
  /** Refuse an object patch that would create or replace a value with `{}` (PatchOptions.emptyObjects 'refuse'). */
  refuseEmptyObjects?: boolean;
}

/**
 * The one walker that defines patch semantics (DESIGN.md "Patches"): applies the patch value
 * `patch` (already a frozen JSON snapshot) to `target` (`undefined` = absent) by copy-on-write.
 * Nothing is mutated: unchanged subtrees are returned by reference, changed ones are fresh
 * unfrozen containers whose new leaves are the snapshot's frozen values. Because it is pure, a
 * throw half-way produces nothing, so it doubles as the complete validator.
 *
 * - scalar or array: replaces (arrays are checked by {@link assertWritableValue});
 * - ordinary object patch: merges into an object target, or into `{}` when the target is absent
 *   or not an object (RFC 7396); `null` members delete keys (absent keys: no-op);
 * - index patch (`"[N]"` keys only): addresses existing elements of an array target.
 *
 * With `options.owned` (a patch series, {@link PatchSeries}): containers in `owned` were created
 * by earlier patches of the same series and are not shared with anyone, so they are changed in
 * place instead of copied again; every fresh copy is added to `owned`. Without it nothing is
 * ever mutated. With `options.refuseEmptyObjects`, an ordinary object patch that lands on an
 * absent or non-object value and leaves an empty object there (`{}`, or only deletions) is
 * refused: the `patch` projection would read that change as `{}`, "no change".
 *
 * @throws StateflowError `PATCH_INVALID` (any reason except `not-object`, `empty`, `not-json`).
 */
export function mergeValue(target: JsonValue | undefined, patch: JsonValue, at: string, options: MergeOptions = {}): JsonValue {
  if (!isJsonObject(patch)) {
    assertWritableValue(patch, at);
    return patch;
  }
  if (patchObjectShape(patch, at) === 'index') {
    if (!Array.isArray(target)) {
      const kind = target === undefined ? undefined : kindOf(target);
      const what = kind === undefined ? 'absent' : `${kind === 'object' ? 'an' : 'a'} ${kind}, not an array`;
      throw patchInvalid(`"[N]" selectors address elements of an existing array, but the value here is ${what}`, {
        reason: 'index-on-non-array',
        at,
      });
    }
    return mergeArray(target, patch, at, options);
  }
  if (isJsonObject(target)) return mergeObject(target, patch, at, options);
  const created = mergeObject(EMPTY, patch, at, options);
  if (options.refuseEmptyObjects === true && Object.keys(created).length === 0) {
    const what = target === undefined ? 'creates' : `replaces ${kindOf(target) === 'array' ? 'an array' : `a ${kindOf(target)}`} with`;
    throw patchInvalid(
      `this object patch ${what} an empty object, which the patch projection could not tell from "no change"; ` +
        'write an empty object only inside an array, or give the object a member',
      { reason: 'empty-object', at },
    );
  }
  return created;
}

function mergeObject(target: JsonObject, patch: JsonObject, at: string, options: MergeOptions): JsonObject {
  const owned = options.owned;
  let result = target;
  let mine = owned?.has(target) === true;
  const writable = (): JsonObject => {
    if (!mine) {
      result = copyObject(target);
      owned?.add(result);
      mine = true;
    }
    return result;
  };
  for (const key of Object.keys(patch)) {
    const member = patch[key] as JsonValue;
    const current = ownValue(target, key);
    if (member === null) {
      if (current !== undefined) delete writable()[key];
      continue;
    }
    const next = mergeValue(current, member, childPointer(at, key), options);
    if (next !== current) defineData(writable(), key, next);
  }
  return result;
}

function mergeArray(target: JsonArray, patch: JsonObject, at: string, options: MergeOptions): JsonArray {
  const owned = options.owned;
  let result = target;
  let mine = owned?.has(target) === true;
  for (const key of Object.keys(patch)) {
    const selector = classifyKey(key);
    if (selector.kind !== 'index') throw new Error(`unreachable: "${key}" in an index patch`);
    const elementAt = childPointer(at, key);
    if (selector.index >= target.length) {
      throw patchInvalid(
        `"${key}" addresses no element: the array has length ${target.length}` +
          (target.length === 0 ? '' : ` (valid selectors "[0]".."[${target.length - 1}]")`) +
          '; to insert or remove elements, replace the whole array',
        { reason: 'index-out-of-range', at: elementAt, index: key, length: target.length },
      );
    }
    const current = target[selector.index] as JsonValue;
    const next = mergeValue(current, patch[key] as JsonValue, elementAt, options);
    if (next !== current) {
      if (!mine) {
        result = target.slice();
        owned?.add(result);
        mine = true;
      }
      result[selector.index] = next;
    }
  }
  return result;
}
