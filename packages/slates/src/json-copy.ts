/**
 * The JSON gate of ladder configs and run inputs: a config — given as an object, or parsed from
 * YAML, whose core schema also yields `.nan`/`.inf` numbers — must be plain JSON data before the
 * structural schema, the cross-reference rules or ajv's schema compiler walk it (a cycle or a
 * 10,000-level nesting would overflow their recursion; a BigInt or a function has no JSON
 * meaning). Core's {@link snapshotJson} (the one JSON copier) does the check; its
 * `PATCH_INVALID` becomes a problem here.
 */
import { isStateflowError, snapshotJson } from '@stateflow/core';
import type { JsonValue } from '@stateflow/core';

/** Where a value stops being JSON: an RFC 6901 pointer and what is wrong there. */
export interface NonJson {
  pointer: string;
  problem: string;
}

/**
 * A deep, frozen JSON copy of `value` read exactly once (getters run once), or where it is not
 * JSON: `undefined` (also as an object member), NaN, ±Infinity, a bigint, function or symbol,
 * a class instance, an array subclass, a sparse array, a cycle, a string or key with a lone
 * surrogate, or nesting deeper than core's `MAX_PATCH_DEPTH` (512). Keys such as `__proto__`
 * are data; symbol keys are not data and are left out. A getter or proxy trap that throws is a
 * problem at the root, never rethrown.
 */
export function jsonCopy(value: unknown): { value: JsonValue } | NonJson {
  try {
    return { value: snapshotJson(value) };
  } catch (err) {
    if (isStateflowError(err, 'PATCH_INVALID')) {
      return { pointer: err.details.at ?? '', problem: err.details.problem ?? err.message };
    }
    return { pointer: '', problem: `cannot be read as JSON (${err instanceof Error ? err.message : String(err)})` };
  }
}
