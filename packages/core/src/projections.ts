/**
 * The `read_state` projections and multi-path batches (seed "Response shape", "Projections").
 *
 * | projection | single path          | multi-path (positional)        |
 * | ---------- | -------------------- | ------------------------------ |
 * | `value`    | `{ value }`          | `{ value: [...] }`             |
 * | `keys`     | `{ meta, keys }`     | `{ meta: [...], keys: [...] }` |
 * | `patch`    | `{ patch }`          | `{ patch: [...] }`             |
 *
 * `keys` is always the last property. Nothing else (path, projection, revision) is echoed.
 */
import { StateflowError } from './errors.js';
import { isJsonObject, kindOf } from './json.js';
import type { JsonKind, JsonValue } from './json.js';
import { defineData } from './internal/define-data.js';

/** The three projections of `read_state`; `value` is the default. */
export type Projection = 'value' | 'keys' | 'patch';

/** Every projection name. */
export const PROJECTIONS: readonly Projection[] = ['value', 'keys', 'patch'];

/**
 * The closed structural metadata of the `keys` projection: `type` always; `size` (immediate
 * named-key count) for objects only; `length` for arrays (items) and strings (UTF-16 code
 * units, JavaScript string length) only. No other field ever appears.
 */
export interface KeysMeta {
  type: JsonKind;
  size?: number;
  length?: number;
}

/** Immediate key → child kind map of an object (own keys, in the object's key order). */
export type KeyKinds = Record<string, JsonKind>;

/** The `keys` projection of one value: `meta` first, `keys` last; `keys` is `[]` for non-objects. */
export interface KeysResult {
  meta: KeysMeta;
  keys: KeyKinds | [];
}

/** The single-path result of each projection. */
export interface ProjectionResults {
  value: { value: JsonValue };
  keys: KeysResult;
  patch: { patch: JsonValue };
}

/** The multi-path result of each projection: each field becomes a positional array. */
export interface BatchResults {
  value: { value: JsonValue[] };
  keys: { meta: KeysMeta[]; keys: (KeyKinds | [])[] };
  patch: { patch: JsonValue[] };
}

/** Result fields of each projection, in output order (`keys` last). */
const FIELDS: { [P in Projection]: readonly (keyof ProjectionResults[P])[] } = {
  value: ['value'],
  keys: ['meta', 'keys'],
  patch: ['patch'],
};

/** True when `name` is one of the {@link PROJECTIONS}. */
export function isProjection(name: unknown): name is Projection {
  return typeof name === 'string' && (PROJECTIONS as readonly string[]).includes(name);
}

/**
 * The immediate own keys of an object with each child's kind (`object`, `array`, `string`,
 * `number`, `boolean`; `null` only for non-state input). Keys such as `__proto__` are data.
 */
export function keyKinds(object: Record<string, JsonValue>): KeyKinds {
  const kinds: KeyKinds = {};
  for (const key of Object.keys(object)) defineData(kinds, key, kindOf(object[key] as JsonValue));
  return kinds;
}

/**
 * The `keys` projection (seed "`keys`"): closed structural `meta` followed by the complete
 * immediate key → kind map for objects, or `[]` for arrays and scalars.
 *
 * @example projectKeys({ ranges: 'x', publication: {} })
 * // → { meta: { type: 'object', size: 2 }, keys: { ranges: 'string', publication: 'object' } }
 * @example projectKeys(['a', 'b']) // → { meta: { type: 'array', length: 2 }, keys: [] }
 * @example projectKeys(42) // → { meta: { type: 'number' }, keys: [] }
 */
export function projectKeys(value: JsonValue): KeysResult {
  if (isJsonObject(value)) {
    const keys = keyKinds(value);
    return { meta: { type: 'object', size: Object.keys(keys).length }, keys };
  }
  const type = kindOf(value);
  if (Array.isArray(value) || typeof value === 'string') return { meta: { type, length: value.length }, keys: [] };
  return { meta: { type }, keys: [] };
}

/**
 * Runs one projection over an ordered path list and returns positionally aligned arrays
 * under that projection's fields (seed "Request shape", "Response shape").
 *
 * Results keep request order; duplicate paths give duplicate results. `readOne` is called for
 * every path in order; the first path that throws fails the whole batch with its error, and
 * no partial result is ever returned. The caller makes `readOne` read one captured state view.
 *
 * @example readBatch(['cwd.lazy.memory', 'cwd.lazy.rules'], 'keys', read)
 * // → { meta: [{ type: 'array', length: 10000 }, { type: 'object', size: 2 }], keys: [[], { ... }] }
 * @param readOne reads one path and returns its single-path projection result.
 * @throws StateflowError `INPUT_INVALID` (details `{ field: 'paths', reason }`) for an empty list;
 *   otherwise whatever `readOne` throws (for example `PATH_SYNTAX`, `PATH_NOT_FOUND`).
 */
export function readBatch<P extends Projection>(
  paths: readonly string[],
  projection: P,
  readOne: (path: string) => ProjectionResults[P],
): BatchResults[P] {
  if (paths.length === 0) {
    throw new StateflowError('INPUT_INVALID', 'paths must list at least one path; use path for a single read.', {
      field: 'paths',
      reason: 'empty',
    });
  }
  const results = paths.map((path) => readOne(path));
  const batch: Record<string, unknown[]> = {};
  for (const field of FIELDS[projection]) {
    batch[field as string] = results.map((result) => result[field]);
  }
  return batch as unknown as BatchResults[P];
}
