import { StateflowError } from '../errors.js';

/**
 * Stable slugs for `PATCH_INVALID` `details.reason` (DESIGN.md "Patches", "Decisions").
 * Callers may switch on these; they are never renamed.
 */
export type PatchInvalidReason =
  /** The top-level patch is not a JSON object (array, scalar, `null`, `undefined`). */
  | 'not-object'
  /** The top-level patch is `{}`: an invalid no-op. */
  | 'empty'
  /** Not representable as JSON: `undefined`, NaN, ±Infinity, functions, symbols, bigints, class instances, sparse arrays, cycles. */
  | 'not-json'
  /** Containers nested more than 512 levels deep (an operational bound, not a semantic one). */
  | 'too-deep'
  /** `null` inside a value being written (an array, or an indexed element), where it is not a deletion marker. */
  | 'null-in-value'
  /** A key of the form `[…]` that is not a canonical non-negative decimal index (`[01]`, `[+1]`, `[ 1]`, `[1.0]`, `[]`). */
  | 'bad-index-syntax'
  /** An `[N]` key inside an object that is written as a value (inside an array), where it would be stored as data. */
  | 'index-key-in-value'
  /** One patch object mixes `"[N]"` keys with ordinary keys. */
  | 'mixed-index-and-keys'
  /** `"[N]"` keys addressed at a value that is not an array (an object, a scalar, or an absent key). */
  | 'index-on-non-array'
  /** `"[N]"` addresses an element that does not exist (N ≥ length). */
  | 'index-out-of-range'
  /** An object patch would create or replace a value with `{}` (only with `emptyObjects: 'refuse'`). */
  | 'empty-object';

/**
 * Details of a `PATCH_INVALID` error: `at` is an RFC 6901 pointer into the patch (`""` = the
 * whole patch); `problem` is the message's own words without the location prefix, for callers
 * that report the same problem about another input (tool inputs, `meta`, slate values).
 */
export interface PatchInvalidDetails {
  reason: PatchInvalidReason;
  at?: string;
  index?: string;
  length?: number;
  problem?: string;
}

/** Builds the `PATCH_INVALID` error; the message always names the location. */
export function patchInvalid(problem: string, details: Omit<PatchInvalidDetails, 'problem'>): StateflowError<'PATCH_INVALID'> {
  const where = details.at === undefined ? '' : ` (at "${details.at === '' ? '/' : details.at}")`;
  return new StateflowError('PATCH_INVALID', `Invalid patch${where}: ${problem}`, { ...details, problem });
}
