import type { JsonObject } from './json.js';
import { checkPatch } from './internal/checked-patch.js';
import type { PatchOptions } from './patch-options.js';
import { refusesEmptyObjects } from './patch-options.js';
import { plainOf, stateNode } from './internal/tree.js';

/**
 * Applies a patch (DESIGN.md "Patches"; seed "patch_state and arrays") and returns the new
 * state: deeply frozen and structurally shared with `state` (unchanged subtrees are the same
 * references; if nothing changes, `state` itself is returned, frozen).
 *
 * The patch is validated completely first ({@link validatePatch}); a failing patch produces
 * nothing and leaves both arguments as they were. `state` is never mutated (an unfrozen `state`
 * that the patch applies to is deeply frozen in place, as immer's auto-freeze does). Patch values are copied before use,
 * so later mutation of the caller's patch cannot change the result.
 *
 * Semantics: objects merge recursively (into `{}` where the target is absent or not an object,
 * RFC 7396); scalars and arrays replace whole; `null` deletes an object key (absent key: no-op);
 * `"[N]"` replaces an existing array element with a scalar/array, or applies an object patch to it
 * (an object element merges, a non-object element is replaced); nested `{}` changes nothing where
 * an object exists, and where none does creates an empty object (or, with
 * `options.emptyObjects: 'refuse'`, is refused: see {@link PatchOptions}).
 *
 * Cost: every container the patch changes is copied once (a plain result is what this returns);
 * a caller that applies many patches to a large state and reads it rarely keeps it as a
 * {@link StateTree}, whose writes cost what they change.
 *
 * Implementation note: a copy-on-write walker rather than immer's `produce`, because immer
 * drafts cannot take an own `__proto__` key (assignment hits the prototype setter and immer
 * throws).
 *
 * @throws StateflowError `PATCH_INVALID` — see {@link validatePatch} for `details`.
 */
export function applyPatch(state: JsonObject, patch: JsonObject, options?: PatchOptions): JsonObject {
  const { result } = checkPatch(state, patch, { refuseEmptyObjects: refusesEmptyObjects(options) });
  // Frozen only once the patch applied: the result shares the unchanged members of `state`.
  stateNode(state);
  return plainOf(result) as JsonObject;
}
