/**
 * The three-way merge of JSON states (README "Three-way merge"): what `store.merge` computes
 * between a merge base and the two states that descend from it.
 */
import { freeze } from 'immer';
import { StateflowError, isStateflowError } from './errors.js';
import type { JsonObject, JsonValue } from './json.js';
import { hasOwn, isJsonObject, jsonEqual } from './json.js';
import { childPointer } from './json-pointer.js';
import { snapshotJson } from './json-snapshot.js';
import type { MergeConflict, MergeResolution } from './merge-conflict.js';
import { defineData } from './internal/define-data.js';
import { copyObject, ownValue } from './internal/own-property.js';
import { assertWritableValue, patchObjectShape } from './internal/patch-shape.js';

/** Options of {@link threeWayMerge}. */
export interface ThreeWayMergeOptions {
  /**
   * How to settle conflicts, per conflicting path (the RFC 6901 pointer of
   * {@link MergeConflict.path}). A path that names no conflict is refused, so a resolution
   * written against an older preview cannot land somewhere it was not meant for.
   */
  resolve?: Readonly<Record<string, MergeResolution>>;
  /** The side taken at every conflict that `resolve` does not name. Default: none (the conflict stays open). */
  prefer?: 'ours' | 'theirs';
  /**
   * Merge only where this patch (DESIGN.md "Patches") writes: below each of its object members the
   * merge visits only the keys it names; everywhere else ours is kept as it is. The caller
   * promises that base and theirs are equal everywhere else — as for a state and the state before
   * one patch (an undo reverting one transition) — so the result is the full merge's, found in
   * time proportional to the patch instead of the states. Default: the whole states.
   */
  only?: JsonObject;
  /**
   * Paths another change touched since the base, as a tree (an object whose members are `true`
   * or deeper trees, as a patch's keys are): at a path at or below a `true`, or above one, a
   * difference between ours and theirs is a conflict even where one side equals the base — a
   * caller that knows a value was written again since cannot trust equality to the base (it may
   * have been written back to what it was). Default: none.
   */
  contested?: JsonObject;
  /**
   * `'ignore'`: a `resolve` path that names no conflict of this merge is not refused (a caller
   * merging several times with one set of resolutions checks them itself). Default `'refuse'`.
   */
  unusedResolutions?: 'refuse' | 'ignore';
}

/** Result of {@link threeWayMerge}. */
export interface ThreeWayMergeResult {
  /**
   * The merged state, with ours' value wherever a conflict is still open. Deeply frozen; shares
   * unchanged subtrees with the inputs (it is `ours` itself when nothing of theirs was taken).
   */
  merged: JsonObject;
  /**
   * Every conflict, in document order (ours' key order, then the keys only theirs has); the
   * settled ones carry their `resolution`.
   */
  conflicts: MergeConflict[];
}

const EMPTY: JsonObject = Object.freeze({});

/**
 * Merge `theirs` into `ours`, both descendants of `base` (all three stored states: null-free
 * JSON objects). At every path, compared as JSON values (`jsonEqual`: key order ignored):
 *
 * - the same value on both sides (changed alike, or unchanged) is kept;
 * - a value only one side changed since the base takes that side's value (a deletion included);
 * - where both sides changed the value differently and both now hold objects, the objects merge
 *   key by key, so changes to disjoint keys never conflict at any depth. A base that held no
 *   object there (absent, a scalar, an array) counts as `{}`: that is how an object patch lands
 *   on a non-object (RFC 7396, DESIGN.md "Patches"), so two sides that each created or replaced
 *   an object with different keys merge like the two patches applied one after the other;
 * - otherwise it is a conflict at that path: a deletion or a scalar against a changed object
 *   conflicts at the object's own path, not below it, and arrays are compared whole (two
 *   different changes to one array are a conflict at the array; element positions shift on
 *   insertion, so elements have no stable identity to merge by).
 *
 * @example
 * threeWayMerge({ a: 1, n: { x: 1 } }, { a: 2, n: { x: 1, y: 1 } }, { a: 3, n: { x: 1, z: 1 } });
 * // merged { a: 2, n: { x: 1, y: 1, z: 1 } }, conflicts [{ path: '/a', base: 1, ours: 2, theirs: 3 }]
 *
 * @throws StateflowError `INPUT_INVALID` `{ field: 'resolve' | 'prefer', reason }` for a
 *   malformed option: `resolve` not an object of resolutions (`reason: 'not-object'`, `'bad-resolution'`),
 *   a value that cannot be stored (`'not-json'`, `'null-in-value'`: `null` only as the whole
 *   value, meaning deletion; `'index-key-in-value'`), a path that names no conflict
 *   (`'not-a-conflict'`); `prefer` neither `'ours'` nor `'theirs'` (`'bad-resolution'`).
 */
export function threeWayMerge(base: JsonObject, ours: JsonObject, theirs: JsonObject, options: ThreeWayMergeOptions = {}): ThreeWayMergeResult {
  const walk = new Walk(checkedResolutions(options.resolve), checkedPrefer(options.prefer));
  const merged = mergeObjects('', base, ours, theirs, walk, { only: options.only, contested: options.contested });
  const unused = [...walk.resolutions.keys()].filter((path) => !walk.settled.has(path));
  if (unused.length > 0 && options.unusedResolutions !== 'ignore') {
    const open = walk.conflicts.map((c) => c.path);
    throw new StateflowError(
      'INPUT_INVALID',
      `resolve names ${unused.map((p) => JSON.stringify(p)).join(', ')}, which ${unused.length === 1 ? 'is not a conflict' : 'are not conflicts'} of this merge ` +
        `(its conflicts: ${open.length === 0 ? 'none' : open.map((p) => JSON.stringify(p)).join(', ')}); preview the merge again and resolve the paths it lists`,
      { field: 'resolve', reason: 'not-a-conflict' },
    );
  }
  return { merged: freeze(merged, true), conflicts: walk.conflicts };
}

/** The state of one merge walk: the caller's resolutions, and the conflicts met so far. */
class Walk {
  readonly conflicts: MergeConflict[] = [];
  /** Paths of `resolutions` that named a conflict. */
  readonly settled = new Set<string>();

  constructor(
    readonly resolutions: ReadonlyMap<string, MergeResolution>,
    readonly prefer: 'ours' | 'theirs' | undefined,
  ) {}

  /** Record the conflict at `path` and return the value it leaves there (`undefined`: absent). */
  conflict(path: string, base: JsonValue | undefined, ours: JsonValue | undefined, theirs: JsonValue | undefined): JsonValue | undefined {
    const conflict: MergeConflict = { path, base: base ?? null, ours: ours ?? null, theirs: theirs ?? null };
    const named = this.resolutions.get(path);
    if (named !== undefined) this.settled.add(path);
    const resolution = named ?? this.prefer;
    if (resolution !== undefined) conflict.resolution = resolution;
    this.conflicts.push(conflict);
    if (resolution === undefined || resolution === 'ours') return ours;
    if (resolution === 'theirs') return theirs;
    return resolution.value ?? undefined;
  }
}

/** Two values at one path, `undefined` meaning absent, equal as JSON. */
function same(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  return a === undefined || b === undefined ? a === b : jsonEqual(a, b);
}

/** Where a merge walk is restricted ({@link ThreeWayMergeOptions.only}) and contested ({@link ThreeWayMergeOptions.contested}) below one path. */
interface Focus {
  only?: JsonValue | undefined;
  contested?: JsonValue | undefined;
}

const WHOLE: Focus = {};

function mergeValue(path: string, base: JsonValue | undefined, ours: JsonValue | undefined, theirs: JsonValue | undefined, walk: Walk, focus: Focus): JsonValue | undefined {
  if (same(ours, theirs)) return ours;
  if (focus.contested === undefined) {
    if (same(theirs, base)) return ours;
    if (same(ours, base)) return theirs;
  }
  if (isJsonObject(ours) && isJsonObject(theirs)) return mergeObjects(path, isJsonObject(base) ? base : EMPTY, ours, theirs, walk, focus);
  return walk.conflict(path, base, ours, theirs);
}

/** The focus below member `key`. */
function focusAt(focus: Focus, key: string): Focus {
  if (focus === WHOLE) return WHOLE;
  const only = isJsonObject(focus.only) ? (focus.only[key] as JsonValue | undefined) : undefined;
  const contested = focus.contested === true ? true : isJsonObject(focus.contested) ? (focus.contested[key] as JsonValue | undefined) : undefined;
  return only === undefined && contested === undefined ? WHOLE : { only, contested };
}

/**
 * Key by key, copy-on-write of `ours`: ours' keys in its order, then the keys only theirs has
 * (with `only` an object patch, of those only the keys it names).
 */
function mergeObjects(path: string, base: JsonObject, ours: JsonObject, theirs: JsonObject, walk: Walk, focus: Focus): JsonObject {
  let result: JsonObject | null = null;
  const writable = (): JsonObject => (result ??= copyObject(ours));
  const restricted = isJsonObject(focus.only) && patchObjectShape(focus.only, path) === 'keys' ? focus.only : undefined;
  for (const key of Object.keys(ours)) {
    if (restricted !== undefined && !hasOwn(restricted, key)) continue;
    const mine = ours[key] as JsonValue;
    const next = mergeValue(childPointer(path, key), ownValue(base, key), mine, ownValue(theirs, key), walk, focusAt(focus, key));
    if (next === undefined) delete writable()[key];
    else if (next !== mine) defineData(writable(), key, next);
  }
  for (const key of Object.keys(theirs)) {
    if (hasOwn(ours, key) || (restricted !== undefined && !hasOwn(restricted, key))) continue;
    const next = mergeValue(childPointer(path, key), ownValue(base, key), undefined, theirs[key] as JsonValue, walk, focusAt(focus, key));
    if (next !== undefined) defineData(writable(), key, next);
  }
  return result ?? ours;
}

function resolveInvalid(message: string, reason: string, cause?: unknown): StateflowError<'INPUT_INVALID'> {
  return new StateflowError('INPUT_INVALID', message, { field: 'resolve', reason }, cause === undefined ? undefined : { cause });
}

/** The caller's resolutions, copied once as frozen JSON and checked. */
function checkedResolutions(resolve: unknown): Map<string, MergeResolution> {
  const out = new Map<string, MergeResolution>();
  if (resolve === undefined) return out;
  let copy: JsonValue;
  try {
    copy = snapshotJson(resolve);
  } catch (err) {
    const problem = isStateflowError(err, 'PATCH_INVALID') ? (err.details.problem ?? err.message) : String(err);
    throw resolveInvalid(`resolve is not plain JSON: ${problem}`, 'not-json', err);
  }
  if (!isJsonObject(copy)) throw resolveInvalid('resolve must be an object of resolutions keyed by conflict path ("/a/b": "ours")', 'not-object');
  for (const path of Object.keys(copy)) {
    const resolution = copy[path] as JsonValue;
    if (resolution === 'ours' || resolution === 'theirs') {
      out.set(path, resolution);
      continue;
    }
    if (!isJsonObject(resolution) || Object.keys(resolution).length !== 1 || !hasOwn(resolution, 'value')) {
      throw resolveInvalid(
        `resolve[${JSON.stringify(path)}] must be "ours", "theirs" or { "value": JSON } (null deletes), got ${JSON.stringify(resolution)}`,
        'bad-resolution',
      );
    }
    const value = resolution.value as JsonValue;
    if (value !== null) {
      try {
        assertWritableValue(value, path);
      } catch (err) {
        if (!isStateflowError(err, 'PATCH_INVALID')) throw err;
        throw resolveInvalid(`resolve[${JSON.stringify(path)}].value cannot be stored: ${err.details.problem ?? err.message}`, err.details.reason, err);
      }
    }
    out.set(path, { value });
  }
  return out;
}

function checkedPrefer(prefer: unknown): 'ours' | 'theirs' | undefined {
  if (prefer === undefined || prefer === 'ours' || prefer === 'theirs') return prefer;
  throw new StateflowError('INPUT_INVALID', `prefer must be "ours" or "theirs", got ${JSON.stringify(prefer) ?? String(prefer)}`, { field: 'prefer', reason: 'bad-resolution' });
}
