/**
 * Input validation of `Store.merge` (validate first, then touch storage): every field read once
 * into a normalised copy. The resolutions' contents are core's to check (`threeWayMerge`), once
 * the conflicts are known.
 */
import { StateflowError, describeInput, isJsonObject } from '@stateflow/core';
import type { JsonObject } from '@stateflow/core';
import type { MergeInput } from '../types.js';
import { checkCount, checkExpected, checkSettlement, checkStream, jsonObjectCopy } from './validate.js';

/** Meta keys the store writes itself: a caller's merge cannot claim another lineage. */
const LINEAGE_KEYS = ['merge', 'fork'];

/**
 * Check a merge input and return the normalised copy.
 * @throws INPUT_INVALID (the input not an object, from = into, a bad `fromRev`, `expected`,
 *   `id`, `dryRun`, `prefer`, a `resolve` that is not plain JSON, a `meta` that is not or that
 *   holds `merge`/`fork`), STREAM_INVALID
 */
export function checkMergeInput(input: unknown): MergeInput {
  if (!isJsonObject(input)) throw new StateflowError('INPUT_INVALID', `merge input must be an object, got ${describeInput(input)}`, { field: 'input' });
  const { from, into, fromRev, expected, resolve, prefer, dryRun, id, principal, meta } = input as unknown as Record<string, unknown>;
  checkStream(from);
  checkStream(into);
  if (from === into) throw new StateflowError('INPUT_INVALID', `merge needs two different streams, got ${from} twice`, { field: 'into' });
  const checked: MergeInput = { from, into };
  if (fromRev !== undefined) {
    checkCount(fromRev, 'fromRev');
    checked.fromRev = fromRev;
  }
  if (expected !== undefined) {
    checkExpected('expected', expected);
    checked.expected = expected;
  }
  if (resolve !== undefined) checked.resolve = jsonObjectCopy(resolve, 'resolve') as MergeInput['resolve'];
  checkSettlement({ prefer, dryRun, id, principal }, checked);
  if (meta !== undefined) checked.meta = callerMeta(jsonObjectCopy(meta, 'meta'));
  return checked;
}

function callerMeta(meta: JsonObject): JsonObject {
  const claimed = LINEAGE_KEYS.find((key) => Object.hasOwn(meta, key));
  if (claimed !== undefined) {
    throw new StateflowError('INPUT_INVALID', `meta.${claimed} is written by the store (the merge records its own lineage); put your metadata under another key`, {
      field: `meta.${claimed}`,
      reason: 'reserved',
    });
  }
  return meta;
}
