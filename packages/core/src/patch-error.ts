import { StateflowError } from './errors.js';
import type { PatchInvalidDetails } from './errors.js';

/** Builds the `PATCH_INVALID` error; the message always names the location. */
export function patchInvalid(problem: string, details: Omit<PatchInvalidDetails, 'problem'>, cause?: unknown): StateflowError<'PATCH_INVALID'> {
  return new StateflowError('PATCH_INVALID', `Invalid patch (at "${details.at === '' ? '/' : details.at}"): ${problem}`, { ...details, problem }, cause === undefined ? undefined : { cause });
}

/**
 * The same `PATCH_INVALID` about a patch that sits at pointer `prefix` inside a larger one (a
 * scope's patch inside a tool's patch): `at` and the message point into the larger patch.
 */
export function prefixPatchError(err: StateflowError<'PATCH_INVALID'>, prefix: string): StateflowError<'PATCH_INVALID'> {
  const { problem, ...details } = err.details;
  return patchInvalid(problem ?? err.message, { ...details, at: `${prefix}${details.at}` }, err);
}
