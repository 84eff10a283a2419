import type { JsonObject } from './json.js';
import { checkPatch } from './internal/checked-patch.js';
import { plainOf, stateNode } from './internal/tree.js';
import type { ObjectNode } from './internal/tree.js';

/**
 * A sequence of patches applied to one state ({@link patchSeries}): replay of a stored history
 * from a checkpoint (DESIGN.md "Store model": historical reads).
 */
export interface PatchSeries {
  /**
   * Applies the next patch, exactly as {@link applyPatch} would to the state left by the
   * patches before it (same validation, same `PATCH_INVALID` details).
   * @throws StateflowError `PATCH_INVALID`; after a throw the series is unusable (every later
   *   call throws an `Error`), as a caller replaying a stored tail must stop at a patch that
   *   does not apply.
   */
  apply(patch: JsonObject): void;
  /**
   * The state after every patch applied so far: deeply frozen, equal (as JSON, key order
   * included) to folding {@link applyPatch} over the same patches; the base itself when no
   * patch changed anything. The series stays usable.
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
 * Starts a patch series on `base`: the patches are applied to a state tree (README "State
 * trees"), so each costs what it changes, and {@link PatchSeries.state} builds each container
 * the patches changed once — a wide object changed by 63 small patches is copied once, not 63
 * times. `base` is never mutated (an unfrozen `base` is deeply frozen in place, as by
 * {@link applyPatch}).
 *
 * Semantics are those of {@link applyPatch} for every patch (DESIGN.md "Patches").
 */
export function patchSeries(base: JsonObject, options: PatchSeriesOptions = {}): PatchSeries {
  const frozen = options.frozenPatches === true;
  let current: ObjectNode = stateNode(base);
  let failed = false;
  const usable = (): void => {
    if (failed) throw new Error('this patch series is unusable: an earlier patch failed');
  };
  return {
    apply(patch: JsonObject): void {
      usable();
      try {
        current = checkPatch(current, patch, { frozen }).result;
      } catch (err) {
        failed = true;
        throw err;
      }
    },
    state(): JsonObject {
      usable();
      return plainOf(current) as JsonObject;
    },
  };
}
