/**
 * The patch walker as it was before states became trees (`../internal/tree.ts`): a plain
 * copy-on-write merge that copies every container it changes, kept here unchanged as the oracle
 * of the property tests (`state-tree.prop.test.ts`). Test-only: not built, not exported.
 */
import { freeze } from 'immer';
import type { JsonArray, JsonObject, JsonValue } from '../json.js';
import { hasOwn, isJsonObject, jsonEqual, kindOf } from '../json.js';
import { classifyKey } from '../internal/index-key.js';
import { defineData } from '../internal/define-data.js';
import { patchInvalid } from '../patch-error.js';
import { assertWritableValue, patchObjectShape } from '../internal/patch-shape.js';
import { childPointer } from '../json-pointer.js';
import { snapshotJson } from '../json-snapshot.js';
import type { PatchOptions } from '../patch-options.js';
import { refusesEmptyObjects } from '../patch-options.js';

function copyObject(source: JsonObject): JsonObject {
  return { ...source };
}

function ownValue(object: JsonObject, key: string): JsonValue | undefined {
  return hasOwn(object, key) ? object[key] : undefined;
}

const EMPTY: JsonObject = Object.freeze({});

/** How one application of a patch walks: see {@link mergeValue}. */
interface MergeOptions {
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
export function legacyMergeValue(target: JsonValue | undefined, patch: JsonValue, at: string, options: MergeOptions = {}): JsonValue {
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
    const next = legacyMergeValue(current, member, childPointer(at, key), options);
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
    const next = legacyMergeValue(current, patch[key] as JsonValue, elementAt, options);
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

/** A validated patch: its frozen JSON snapshot and the (unfrozen) result of applying it. */
interface CheckedPatch {
  patch: JsonObject;
  result: JsonObject;
}

/**
 * Snapshots `patch`, checks the top-level rules and applies it to `state` with the checking
 * walker. Shared by `validatePatch`, `applyPatch`, `netPatch` and `patchSeries` so that
 * "valid" means exactly "applies". `options`: see {@link mergeValue}; `options.frozen` skips the
 * snapshot of a patch the caller knows is one already (a series over stored patches).
 *
 * @throws StateflowError `PATCH_INVALID` (every reason).
 */
function checkPatch(state: JsonObject, patch: unknown, options: MergeOptions & { frozen?: boolean } = {}): CheckedPatch {
  if (!isJsonObject(patch)) {
    const what = patch === null ? 'null' : Array.isArray(patch) ? 'an array' : `a ${typeof patch}`;
    throw patchInvalid(`a patch must be a JSON object, got ${what}`, { reason: 'not-object', at: '' });
  }
  // `frozen`: the caller vouches that `patch` is already a deeply frozen snapshot of plain JSON.
  const snapshot = options.frozen === true ? patch : (snapshotJson(patch, '') as JsonObject);
  if (Object.keys(snapshot).length === 0) {
    throw patchInvalid('the empty patch {} is an invalid no-op; send at least one key', { reason: 'empty', at: '' });
  }
  return { patch: snapshot, result: legacyMergeValue(state, snapshot, '', options) as JsonObject };
}

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
export function legacyNetPatch(before: JsonObject, patch: JsonObject, options?: PatchOptions): JsonObject {
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
  if (!isJsonObject(target)) return legacyMergeValue(undefined, patch, '');
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

/**
 * A sequence of patches applied to one state ({@link patchSeries}): replay of a stored history
 * from a checkpoint (DESIGN.md "Store model": historical reads).
 */
interface PatchSeries {
  /**
   * Applies the next patch, exactly as {@link applyPatch} would to the state left by the
   * patches before it (same validation, same `PATCH_INVALID` details).
   * @throws StateflowError `PATCH_INVALID`; after a throw the series is unusable (every later
   *   call throws an `Error`), since the failed patch may have changed its private copies.
   */
  apply(patch: JsonObject): void;
  /**
   * The state after every patch applied so far: deeply frozen, equal (as JSON, key order
   * included) to folding {@link applyPatch} over the same patches; the base itself when no
   * patch changed anything. The series stays usable: later patches copy on write again.
   * @throws Error when an earlier `apply` threw.
   */
  state(): JsonObject;
}

/** Options of {@link patchSeries}. */
interface PatchSeriesOptions {
  /**
   * Every patch given to `apply` is already deeply frozen plain JSON — as the store's decoder
   * returns stored patches — so it is applied without the defensive snapshot (a deep copy and
   * freeze) that {@link applyPatch} takes of a caller's patch. Validation is unchanged. Passing a
   * patch that is not such a value with this option is a caller bug: later mutation of it could
   * then reach the state.
   */
  frozenPatches?: boolean;
}

/**
 * Starts a patch series on `base`: N patches cost one copy of each container they touch and
 * one deep freeze at the end, instead of N copies and N freezes of the touched containers as
 * N calls of {@link applyPatch} would (a wide object changed by 63 small patches is copied
 * once, not 63 times). `base` is never mutated; containers the series copied are private to it
 * and are changed in place by later patches until {@link PatchSeries.state} freezes them.
 *
 * Semantics are those of {@link applyPatch} for every patch (DESIGN.md "Patches"); the one
 * difference is freezing: only what survives into the returned state is frozen (an unfrozen
 * subtree of `base` that a later patch replaces is left as it was).
 */
export function legacyPatchSeries(base: JsonObject, options: PatchSeriesOptions = {}): PatchSeries {
  const frozen = options.frozenPatches === true;
  let current = base;
  let owned = new Set<object>();
  let failed = false;
  const usable = (): void => {
    if (failed) throw new Error('this patch series is unusable: an earlier patch failed');
  };
  return {
    apply(patch: JsonObject): void {
      usable();
      try {
        current = checkPatch(current, patch, { owned, frozen }).result;
      } catch (err) {
        failed = true;
        throw err;
      }
    },
    state(): JsonObject {
      usable();
      if (owned.size > 0) owned = new Set();
      return freeze(current, true);
    },
  };
}

/** applyPatch as it was. */
export function legacyApplyPatch(state: JsonObject, patch: JsonObject, options?: PatchOptions): JsonObject {
  return freeze(checkPatch(state, patch, { refuseEmptyObjects: refusesEmptyObjects(options) }).result, true);
}
