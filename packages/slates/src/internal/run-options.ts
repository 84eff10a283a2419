/**
 * The input gate of {@link runLadder}: checks the options an in-process caller passed before
 * anything is loaded, read or published, so a wrong type is `INPUT_INVALID` naming the option
 * instead of a `TypeError` from deep inside a step.
 */
import { StateflowError } from '@stateflow/core';
import type { RunLadderOptions } from '../run-ladder-types.js';
import { jsonCopy } from '../json-copy.js';

/**
 * @throws StateflowError `INPUT_INVALID` with `{ field, reason }` when `options` is not an
 *   object or cannot be read (a getter throws: reason `unreadable`), `store` is not a store, `model` has no `complete` function, `input` is neither a
 *   string nor a JSON object (BigInt, cycles, functions, lone surrogates … anywhere inside),
 *   `session` / `ladderId` / `encoding` are not non-empty strings, `clock` or `onOutput` is not a function,
 *   or `conflictRetries` is not an integer ≥ 0. (`ladder` is checked by loading it.)
 */
export function checkRunOptions(options: RunLadderOptions): void {
  if (typeof options !== 'object' || options === null) throw invalid('options', 'runLadder needs an options object { store, ladder, input, model, … }');
  // Read as untyped members: an in-process JavaScript caller may pass anything.
  let members: Record<string, unknown>;
  try {
    members = { ...options };
  } catch (err) {
    throw invalid('options', `runLadder could not read its options (a getter threw: ${(err as Error)?.message ?? String(err)}); pass a plain object`, 'unreadable');
  }
  const { store, model, input, session, ladderId, encoding, clock, conflictRetries, onOutput } = members;
  if (typeof store !== 'object' || store === null || !('view' in store) || !('publish' in store)) {
    throw invalid('store', 'runLadder options.store must be an open store (openStore or openMemoryStore)');
  }
  if (typeof model !== 'object' || model === null || typeof (model as { complete?: unknown }).complete !== 'function') {
    throw invalid('model', 'runLadder options.model must be a Model with a complete(request) function');
  }
  if (typeof input !== 'string' && (typeof input !== 'object' || input === null || Array.isArray(input))) {
    throw invalid('input', 'runLadder options.input must be a string or a JSON object');
  }
  const copy = jsonCopy(input);
  if (!('value' in copy)) {
    const at = copy.pointer === '' ? '' : ` at "${copy.pointer}"`;
    throw invalid('input', `runLadder options.input${at} is not JSON: ${copy.problem}`, 'not-json');
  }
  for (const [field, value] of Object.entries({ session, ladderId, encoding })) {
    if (value !== undefined && (typeof value !== 'string' || value === '')) throw invalid(field, `runLadder options.${field} must be a non-empty string`);
  }
  if (clock !== undefined && typeof clock !== 'function') throw invalid('clock', 'runLadder options.clock must be a function returning a Date');
  if (onOutput !== undefined && typeof onOutput !== 'function') throw invalid('onOutput', 'runLadder options.onOutput must be a function receiving text');
  if (conflictRetries !== undefined && (!Number.isSafeInteger(conflictRetries) || (conflictRetries as number) < 0)) {
    throw invalid('conflictRetries', 'runLadder options.conflictRetries must be an integer ≥ 0');
  }
}

function invalid(field: string, message: string, reason = 'type'): StateflowError<'INPUT_INVALID'> {
  return new StateflowError('INPUT_INVALID', `${message}.`, { field, reason });
}
