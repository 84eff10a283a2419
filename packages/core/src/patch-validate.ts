import type { JsonObject, JsonValue } from './json.js';
import { isJsonObject } from './json.js';
import { ownValue } from './internal/own-property.js';
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
 * Checks that every name `patch` adds can be reached by a `read_state` path (seed "Limits and
 * change authority": "Names must fit the shared path grammar"; DESIGN.md "Paths":
 * `key := [A-Za-z_$][A-Za-z0-9_$-]*`). A name is added by a member of an object patch that the
 * `basis` does not have (at any depth, following `"[N]"` selectors into elements), and by every
 * key of an object inside a value written whole (array elements). Not names, or not added:
 * `"[N]"` selectors (patch syntax; malformed ones, and `[…]` keys inside values, are
 * {@link validatePatch}'s to refuse), a member deleted with `null`, and a member the basis
 * already has — data stored another way (an imported document with `"lodash.merge"` or
 * `"Use Single Sign On to continue"` keys) stays editable and deletable, it only gains no new
 * unreachable names.
 *
 * The store does not apply this rule: it stores any JSON object key. The agent surface
 * (`patch_state` in `@stateflow/tools`) does, since what an agent adds it must be able to read.
 *
 * @param basis the value the patch applies to (a scope's captured state), `undefined` if none.
 * @param patch the patch (any JSON value is walked; non-objects add no names).
 * @param at the RFC 6901 pointer of `patch` inside the caller's input (`""`: it is the input).
 * @throws StateflowError `PATCH_INVALID` `{ reason: 'unreachable-key', at }`, `at` the pointer of
 *   the first such key (object keys in insertion order, depth first); the message names the key
 *   and the grammar rule.
 */
export function validatePatchKeys(basis: JsonValue | undefined, patch: unknown, at = ''): void {
  walkKeys(patch, basis, at, true);
}

/** `target` is the basis value under `value` while still inside the patch (`undefined`: nothing there, or a value written whole). */
function walkKeys(value: unknown, target: JsonValue | undefined, at: string, inPatch: boolean): void {
  if (Array.isArray(value)) {
    value.forEach((element, i) => walkKeys(element, undefined, childPointer(at, String(i)), false));
    return;
  }
  if (value === null || typeof value !== 'object') return;
  for (const [key, member] of Object.entries(value)) {
    const kind = classifyKey(key);
    const here = childPointer(at, key);
    if (kind.kind !== 'key') {
      // A selector in a patch addresses an element: its value is a patch of that element.
      if (inPatch && kind.kind === 'index') walkKeys(member, Array.isArray(target) ? target[kind.index] : undefined, here, true);
      continue;
    }
    if (inPatch && member === null) continue;
    const existing = inPatch && isJsonObject(target) ? ownValue(target, key) : undefined;
    if (existing === undefined && !isPathKey(key)) {
      throw patchInvalid(
        `the key ${JSON.stringify(elidePath(key))} cannot be read by any read_state path: names must fit the shared path grammar, ` +
          'where keys match [A-Za-z_$][A-Za-z0-9_$-]*; rename it with ASCII letters, digits, "_", "$" and "-" only, not starting with a digit',
        { reason: 'unreachable-key', at: here },
      );
    }
    walkKeys(member, existing, here, inPatch);
  }
}
