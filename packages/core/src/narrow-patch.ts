import { freeze } from 'immer';
import { StateflowError } from './errors.js';
import type { JsonObject, JsonValue } from './json.js';
import { isJsonObject, jsonEqual } from './json.js';
import { diffValue } from './internal/diff-value.js';
import { indexKey } from './internal/index-key.js';
import { snapshotJson } from './json-snapshot.js';
import { mergeValue } from './internal/merge.js';
import { plainOf } from './internal/tree.js';
import { ownValue } from './internal/own-property.js';
import { patchObjectShape } from './internal/patch-shape.js';

/**
 * One step of a path for {@link narrowPatch}: an object member or an array index. Step objects
 * may carry extra fields (a parser's `column`, …); they are ignored. Range steps are not
 * allowed: the `patch` projection addresses one value.
 */
export type PatchPathStep = { kind: 'key'; key: string } | { kind: 'index'; index: number };

/**
 * The `patch` projection's form for "the value here became `{}`" where it was absent, a scalar or
 * an array (an element of an array written whole, or history written with RFC 7396's reading):
 * an object patch that deletes the key `""`. Read as RFC 7396 reads any object patch of a
 * non-object, it starts from `{}` and deletes a key `{}` does not have, so applied to the old
 * value it gives exactly `{}` — while `{}` itself means "no change" in the seed's shapes, and
 * `null` deletion. Of every object patch with that effect (deletions only) it is the shortest, and
 * `""` is outside the path key grammar, so it never reads as the deletion of a member a path
 * could name. (RFC 7396's own Appendix A creates `{"bb": {}}` with `{"bb": {"ccc": null}}`.)
 */
export const BECAME_EMPTY_OBJECT: JsonObject = freeze({ '': null });

/**
 * The patch at `path` for the `patch` projection (seed "Projections › patch"): what the
 * (net) `patch` did to the value at `path`, expressed so that applying it to the old value there
 * gives the new value there, with RFC 7396 reading (a non-object target of an object patch
 * counts as `{}`).
 *
 * Shapes:
 * - `{}` — nothing changed at `path` (also: nothing there before or after);
 * - `null` — the value at `path` existed and was deleted (its key, an enclosing key, or its
 *   element removed by an enclosing whole-array replacement);
 * - `{"[1]": …}` — an indexed change of the array at `path` (as written in the patch);
 * - an array or scalar — the new value, replacing the old one whole (`["a", "b"]`);
 * - an object — a recursive object patch of the object at `path`, or, where the value was
 *   created or replaced a non-object, the new object itself;
 * - {@link BECAME_EMPTY_OBJECT} `{"": null}` — the value became `{}` where no object was (it was
 *   absent, a scalar or an array).
 *
 * {@link applyNarrowedPatch} is the exact reading: `null` deletes, `{}` keeps the old value,
 * another object patches it (RFC 7396: a non-object counts as `{}`), anything else replaces it.
 *
 * When `path` descends into a value the patch wrote whole (a replacement or creation above
 * `path`), the result is computed from `before` and the new value at `path` with `diff`'s rules
 * (equal → `{}`, absent after → `null`, absent before → the new value, objects → recursive patch,
 * same-length arrays → index patch, otherwise the new value).
 *
 * So the result is `{}` exactly when nothing changed at `path` (seed "Projections › patch":
 * "No change to the selected path at that boundary: `{ "patch": {} }`"), and
 * `applyNarrowedPatch(before, narrowPatch(patch, path, before))` is the value after, in every case.
 *
 * @param patch a valid patch (normally the stored net patch of one transition).
 * @param path key and index steps from the patch's root (the stream state); `[]` is the root.
 * @param before the value at `path` in the state the patch was applied to, `undefined` when
 *   `path` did not exist there (the caller resolves it on the historical state).
 * @returns a deeply frozen JSON value (shares subtrees with `patch`).
 * @throws StateflowError `INPUT_INVALID` (`{ field: 'path', reason: 'range-step' }`) for a step
 *   that is neither a key nor an index.
 */
export function narrowPatch(patch: JsonObject, path: ReadonlyArray<PatchPathStep>, before: JsonValue | undefined): JsonValue {
  return freeze(narrow(patch, path, before), true);
}

/** Where the walk is: still inside the patch (relative to the old value), or inside a value written whole. */
type Cursor = { inPatch: true; patch: JsonValue | undefined } | { inPatch: false; value: JsonValue | undefined };

function narrow(patch: JsonObject, path: ReadonlyArray<PatchPathStep>, before: JsonValue | undefined): JsonValue {
  let cursor: Cursor = { inPatch: true, patch };
  for (const step of path) cursor = advance(cursor, step);
  if (!cursor.inPatch) return compare(before, cursor.value);
  const here = cursor.patch;
  if (here === undefined) return {};
  if (here === null) return before === undefined ? {} : null;
  if (!isJsonObject(here)) return before !== undefined && jsonEqual(before, here) ? {} : here;
  if (patchObjectShape(here, '') === 'keys' && !isJsonObject(before)) return created(plainOf(mergeValue(undefined, here, '')));
  return here;
}

/** A value the patch put where no object was: `{}` there is a change, not "no change". */
function created(value: JsonValue): JsonValue {
  return isJsonObject(value) && Object.keys(value).length === 0 ? BECAME_EMPTY_OBJECT : value;
}

function advance(cursor: Cursor, step: PatchPathStep): Cursor {
  if (step.kind !== 'key' && step.kind !== 'index') {
    throw new StateflowError(
      'INPUT_INVALID',
      `The patch projection addresses one value: a path step of kind "${String((step as { kind: unknown }).kind)}" (such as a range) is not allowed`,
      { field: 'path', reason: 'range-step' },
    );
  }
  if (!cursor.inPatch) return { inPatch: false, value: child(cursor.value, step) };
  const here = cursor.patch;
  if (here === undefined) return cursor;
  // Deleted, or written whole (scalar/array): what lies below is the new value, not a patch.
  if (here === null || !isJsonObject(here)) return { inPatch: false, value: here === null ? undefined : child(here, step) };
  const shape = patchObjectShape(here, '');
  if (step.kind === 'index' && shape === 'index') return { inPatch: true, patch: ownValue(here, indexKey(step.index)) };
  if (step.kind === 'key' && shape === 'keys') return { inPatch: true, patch: ownValue(here, step.key) };
  // The value here became an array (index patch) or an object (object patch): the other kind of step finds nothing.
  return { inPatch: false, value: undefined };
}

function child(value: JsonValue | undefined, step: PatchPathStep): JsonValue | undefined {
  if (step.kind === 'key') return isJsonObject(value) ? ownValue(value, step.key) : undefined;
  return Array.isArray(value) ? value[step.index] : undefined;
}

function compare(before: JsonValue | undefined, after: JsonValue | undefined): JsonValue {
  if (after === undefined) return before === undefined ? {} : null;
  if (before === undefined) return created(after);
  const patch = diffValue(before, after);
  if (patch === undefined) return {};
  return isJsonObject(before) ? patch : created(patch);
}

/**
 * Reads a {@link narrowPatch} result against the old value at its path and returns the new
 * value there (`undefined` = absent): `null` → absent; `{}` → `old` unchanged; another object →
 * applied as a patch (`"[N]"` keys to an array; ordinary keys merged into `old`, or into `{}`
 * when `old` is not an object); a scalar or array → replaces `old`. The result is deeply frozen.
 *
 * @throws StateflowError `PATCH_INVALID` when `narrowed` does not fit `old` (for example an
 *   index patch for a value that is not an array), as {@link applyPatch} would.
 */
export function applyNarrowedPatch(old: JsonValue | undefined, narrowed: JsonValue): JsonValue | undefined {
  if (narrowed === null) return undefined;
  if (isJsonObject(narrowed) && Object.keys(narrowed).length === 0) return old;
  return freeze(plainOf(mergeValue(old, snapshotJson(narrowed, ''), '')), true);
}
