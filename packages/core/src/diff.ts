import { freeze } from 'immer';
import type { JsonObject } from './json.js';
import { diffValue } from './internal/diff-value.js';

/**
 * The minimal patch that turns `before` into `after` (DESIGN.md "Patches"):
 * `applyPatch(before, diff(before, after))` deep-equals `after`.
 *
 * - objects: recursive; a key missing from `after` becomes `null` (deletion); a new key carries
 *   `after`'s value;
 * - arrays of the same length whose elements changed: an index patch with one `"[N]"` key per
 *   changed element, each diffed by the same rule (object elements → recursive object patch,
 *   same-length array elements → nested index patch, otherwise the new element);
 * - arrays of different length, or a change of kind: `after`'s value replaces whole;
 * - documents equal as JSON values (key order ignored, `4.0` = `4`): `{}`.
 *
 * Both arguments must be null-free states (as every stored state is) without `[…]` keys.
 * The result is deeply frozen and shares subtrees with `after` (which are frozen too).
 */
export function diff(before: JsonObject, after: JsonObject): JsonObject {
  return freeze((diffValue(before, after) as JsonObject | undefined) ?? {}, true);
}
