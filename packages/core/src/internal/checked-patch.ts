import type { JsonObject } from '../json.js';
import { isJsonObject } from '../json.js';
import { snapshotJson } from '../json-snapshot.js';
import { mergeValue } from './merge.js';
import type { MergeOptions } from './merge.js';
import { patchInvalid } from '../patch-error.js';
import type { ObjectNode } from './tree.js';

/** A validated patch: its frozen JSON snapshot and the state tree it leaves. */
export interface CheckedPatch {
  patch: JsonObject;
  result: ObjectNode;
}

/**
 * Snapshots `patch`, checks the top-level rules and applies it to the state tree `state` with
 * the checking walker. Shared by `validatePatch`, `applyPatch`, `netPatch`, `patchSeries` and
 * `StateTree` so that "valid" means exactly "applies". `options`: see {@link mergeValue};
 * `options.frozen` skips the snapshot of a patch the caller knows is one already (a series over
 * stored patches).
 *
 * @throws StateflowError `PATCH_INVALID` (every reason).
 */
export function checkPatch(state: ObjectNode, patch: unknown, options: MergeOptions & { frozen?: boolean } = {}): CheckedPatch {
  if (!isJsonObject(patch)) {
    const what = patch === null ? 'null' : Array.isArray(patch) ? 'an array' : `a ${typeof patch}`;
    throw patchInvalid(`a patch must be a JSON object, got ${what}`, { reason: 'not-object', at: '' });
  }
  // `frozen`: the caller vouches that `patch` is already a deeply frozen snapshot of plain JSON.
  const snapshot = options.frozen === true ? patch : (snapshotJson(patch, '') as JsonObject);
  if (Object.keys(snapshot).length === 0) {
    throw patchInvalid('the empty patch {} is an invalid no-op; send at least one key', { reason: 'empty', at: '' });
  }
  return { patch: snapshot, result: mergeValue(state, snapshot, '', options) as ObjectNode };
}
