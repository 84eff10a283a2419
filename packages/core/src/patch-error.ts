import { StateflowError } from './errors.js';

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
  /** The patch applies but leaves an invalid state (the store: a non-object `lazy` plane in a scope stream). */
  | 'invalid-state'
  /** A tool patch mixes scope roots (`global`, `cwd`, `session`) with unscoped planes. */
  | 'mixed-scoped-and-unscoped'
  /** A tool patch without scope roots while more than one owner is selected. */
  | 'unscoped-ambiguous'
  /** A tool patch names a key that is not a plane (`intents`, `strategy`, `tactics`, `artifacts`, `response`, `lazy`). */
  | 'unknown-plane'
  /** A tool patch would make a scope's `lazy` plane something other than an object. */
  | 'lazy-root'
  /** A tool patch writes `response` outside the session (new answers go only to the session). */
  | 'response-owner'
  /** A tool patch writes `response` in Passive mode. */
  | 'response-passive';

/**
 * Details of a `PATCH_INVALID` error: `at` is an RFC 6901 pointer into the patch (`""` = the
 * whole patch); `problem` is the message's own words without the location prefix, for callers
 * that report the same problem about another input (tool inputs, `meta`, slate values).
 */
export interface PatchInvalidDetails {
  reason: PatchInvalidReason;
  at: string;
  index?: string;
  length?: number;
  problem?: string;
}

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
