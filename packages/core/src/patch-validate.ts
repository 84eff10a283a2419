import type { JsonObject } from './json.js';
import { checkPatch } from './internal/checked-patch.js';
import type { PatchOptions } from './patch-options.js';
import { refusesEmptyObjects } from './patch-options.js';

/**
 * Checks that `patch` is a valid patch for `state` (DESIGN.md "Patches", "Decisions"; seed
 * "patch_state and arrays"), completely and without producing anything: either the whole patch
 * applies or this throws for the first problem found (object keys in insertion order, depth first).
 *
 * A valid patch is a non-empty JSON object whose
 * - object members merge recursively; scalars and arrays replace; `null` deletes an object key;
 * - `"[N]"` keys (canonical non-negative decimal only) address existing elements of an existing
 *   array, and are never mixed with ordinary keys in one object;
 * - arrays and indexed element values contain no `null` and no `[…]` keys;
 * - keys `__proto__`, `constructor`, `prototype` are ordinary data.
 *
 * Neither argument is mutated or frozen.
 *
 * @param state the JSON object the patch will be applied to (the captured basis).
 * @param patch the caller's value; any JavaScript value is accepted and checked.
 * @throws StateflowError `PATCH_INVALID` with `details` `{ reason, at?, index?, length? }`:
 *   `reason` is a {@link PatchInvalidReason} slug, `at` the RFC 6901 pointer into the patch
 *   (`""` = the whole patch; index selectors appear verbatim, `/memory/[4]`), `index` the
 *   offending `"[N]"` key text, `length` the addressed array's length (for `index-out-of-range`);
 *   with `options.emptyObjects: 'refuse'` also `empty-object` ({@link PatchOptions}).
 */
export function validatePatch(state: JsonObject, patch: unknown, options?: PatchOptions): asserts patch is JsonObject {
  checkPatch(state, patch, { refuseEmptyObjects: refusesEmptyObjects(options) });
}

