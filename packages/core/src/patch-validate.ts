import type { JsonObject } from './json.js';
import { checkPatch } from './internal/checked-patch.js';
import { classifyKey } from './internal/index-key.js';
import { childPointer } from './json-pointer.js';
import { patchInvalid } from './patch-error.js';
import { elidePath } from './path-echo.js';
import { isPathKey } from './path-grammar.js';
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


/**
 * Checks that every member `patch` writes has a name a `read_state` path can reach (seed
 * "Limits and change authority": "Names must fit the shared path grammar"; DESIGN.md "Paths":
 * `key := [A-Za-z_$][A-Za-z0-9_$-]*`), at any depth: members of object patches and the keys of
 * objects inside values written whole (array elements). What is not a name is left alone:
 * `"[N]"` selectors are patch syntax (malformed ones, and `[…]` keys inside values, are
 * {@link validatePatch}'s to refuse), and a member deleted with `null` may have any key —
 * deleting it makes nothing unreachable, and data stored another way (an imported document with
 * `"lodash.merge"` or `"Use Single Sign On to continue"` keys) must stay deletable.
 *
 * The store does not apply this rule: it stores any JSON object key. The agent surface
 * (`patch_state` in `@stateflow/tools`) does, since what an agent writes it must be able to read.
 *
 * @param patch the patch (any JSON value is walked; non-objects have no names).
 * @param at the RFC 6901 pointer of `patch` inside the caller's input (`""`: it is the input).
 * @throws StateflowError `PATCH_INVALID` `{ reason: 'unreachable-key', at }`, `at` the pointer of
 *   the first such key (object keys in insertion order, depth first); the message names the key
 *   and the grammar rule.
 */
export function validatePatchKeys(patch: unknown, at = ''): void {
  walkKeys(patch, at, true);
}

function walkKeys(value: unknown, at: string, inPatch: boolean): void {
  if (Array.isArray(value)) {
    value.forEach((element, i) => walkKeys(element, childPointer(at, String(i)), false));
    return;
  }
  if (value === null || typeof value !== 'object') return;
  for (const [key, member] of Object.entries(value)) {
    const kind = classifyKey(key).kind;
    const here = childPointer(at, key);
    if (kind !== 'key') {
      // A selector in a patch addresses an element: its value is a patch of that element.
      if (inPatch && kind === 'index') walkKeys(member, here, true);
      continue;
    }
    if (inPatch && member === null) continue;
    if (!isPathKey(key)) {
      throw patchInvalid(
        `the key ${JSON.stringify(elidePath(key))} cannot be read by any read_state path: names must fit the shared path grammar, ` +
          'where keys match [A-Za-z_$][A-Za-z0-9_$-]*; rename it with ASCII letters, digits, "_", "$" and "-" only, not starting with a digit',
        { reason: 'unreachable-key', at: here },
      );
    }
    walkKeys(member, here, inPatch);
  }
}
