import { freeze } from 'immer';
import type { JsonObject } from './json.js';
import { checkPatch } from './internal/checked-patch.js';

/**
 * A sequence of patches applied to one state ({@link patchSeries}): replay of a stored history
 * from a checkpoint (DESIGN.md "Store model": historical reads).
 */
export interface PatchSeries {
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
export interface PatchSeriesOptions {
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
export function patchSeries(base: JsonObject, options: PatchSeriesOptions = {}): PatchSeries {
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
