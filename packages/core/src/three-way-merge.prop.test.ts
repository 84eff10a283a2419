import fc from 'fast-check';
import { freeze } from 'immer';
import { describe, expect, it } from 'vitest';
import { diff } from './diff.js';
import { defineData } from './internal/define-data.js';
import type { JsonObject, JsonValue } from './json.js';
import { isJsonObject, jsonEqual } from './json.js';
import { childPointer, pointerSegments } from './json-pointer.js';
import type { MergeConflict } from './merge-conflict.js';
import { applyPatch } from './patch-apply.js';
import { threeWayMerge } from './three-way-merge.js';
import { fcParams } from '@stateflow/test-kit';

const params: fc.Parameters<unknown> = fcParams();

// Few keys, so that the two sides often meet at one path; a prototype-looking key and one that
// needs escaping in a pointer.
const KEYS = ['a', 'b', 'c', '__proto__', 'x/y'];
const keyArb = fc.constantFrom(...KEYS);
const scalarArb: fc.Arbitrary<JsonValue> = fc.oneof(fc.integer({ min: 0, max: 3 }), fc.constantFrom('s', 't'), fc.boolean());

function objectOf(entries: Array<[string, JsonValue]>): JsonObject {
  const object: JsonObject = {};
  for (const [key, value] of entries) defineData(object, key, value);
  return object;
}

/** Stored values (null-free JSON; `{}` included: states may hold empty objects). */
const { value: valueArb, object: stateArb } = fc.letrec<{ value: JsonValue; object: JsonObject }>((tie) => ({
  value: fc.oneof({ depthSize: 'small', maxDepth: 3 }, scalarArb, fc.array(scalarArb, { maxLength: 3 }), tie('object')),
  object: fc.array(fc.tuple(keyArb, tie('value')), { maxLength: 4 }).map(objectOf),
}));

/** Merge patches: members delete (`null`), write a value, or patch deeper. */
const { patch: patchArb } = fc.letrec<{ patch: JsonObject }>((tie) => ({
  patch: fc
    .array(fc.tuple(keyArb, fc.oneof({ depthSize: 'small', maxDepth: 3 }, fc.constant(null), valueArb, tie('patch'))), { maxLength: 4 })
    .map(objectOf),
}));

function frozenClone<T extends JsonValue>(value: T): T {
  return freeze(structuredClone(value), true);
}

/** `applyPatch`, where an empty patch (an invalid no-op) leaves the state as it is. */
function applied(state: JsonObject, patch: JsonObject): JsonObject {
  return Object.keys(patch).length === 0 ? state : applyPatch(state, patch);
}

/** A base and two states descending from it by a random patch each. */
const sidesArb = fc.tuple(stateArb, patchArb, patchArb).map(([state, ours, theirs]) => {
  const base = frozenClone(state);
  return { base, ours: applied(base, frozenClone(ours)), theirs: applied(base, frozenClone(theirs)) };
});

/** One change of a side: the path's keys, and the patch value written there. */
interface Leaf {
  keys: string[];
  value: JsonValue;
}

/**
 * The changes a patch from `diff` makes, as leaves: it is followed through objects (also into
 * an object it creates, whose keys are changes of their own), and stops at a deletion, a
 * scalar, an array or an index patch (arrays are one value), or an empty object it creates.
 */
function leaves(patch: JsonObject, keys: string[] = []): Leaf[] {
  const out: Leaf[] = [];
  for (const key of Object.keys(patch)) {
    const value = patch[key] as JsonValue;
    const here = [...keys, key];
    const isIndexPatch = isJsonObject(value) && Object.keys(value).some((k) => k.startsWith('['));
    if (isJsonObject(value) && !isIndexPatch && Object.keys(value).length > 0) out.push(...leaves(value, here));
    else out.push({ keys: here, value });
  }
  return out;
}

function pointer(keys: string[]): string {
  return keys.reduce(childPointer, '');
}

function valueAt(value: JsonValue | undefined, keys: string[]): JsonValue | undefined {
  let here = value;
  for (const key of keys) here = isJsonObject(here) && Object.hasOwn(here, key) ? here[key] : undefined;
  return here;
}

/** A patch holding exactly `chosen` leaves. */
function patchOf(chosen: Leaf[]): JsonObject {
  const patch: JsonObject = {};
  for (const { keys, value } of chosen) {
    let here = patch;
    for (const key of keys.slice(0, -1)) {
      if (!Object.hasOwn(here, key)) defineData(here, key, {});
      here = here[key] as JsonObject;
    }
    defineData(here, keys[keys.length - 1] as string, value);
  }
  return patch;
}

function related(a: string, b: string): boolean {
  return a === b || a.startsWith(`${b}/`) || b.startsWith(`${a}/`);
}

function same(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  return a === undefined || b === undefined ? a === b : jsonEqual(a, b);
}

/**
 * The reference: conflicts found without walking, from every key path of the three documents.
 * A path is a conflict when all three values there differ and not both sides hold objects, and
 * every path above it was one where all three differ and both sides hold objects (where the
 * merge goes on key by key).
 */
function referenceConflicts(base: JsonObject, ours: JsonObject, theirs: JsonObject): MergeConflict[] {
  const paths = new Map<string, string[]>();
  const collect = (value: JsonValue | undefined, keys: string[]): void => {
    if (!isJsonObject(value)) return;
    for (const key of Object.keys(value)) {
      const here = [...keys, key];
      paths.set(JSON.stringify(here), here);
      collect(value[key], here);
    }
  };
  for (const doc of [base, ours, theirs]) collect(doc, []);
  const differ = (keys: string[]): boolean => {
    const [b, o, t] = [valueAt(base, keys), valueAt(ours, keys), valueAt(theirs, keys)];
    return !same(o, t) && !same(o, b) && !same(t, b);
  };
  const bothObjects = (keys: string[]): boolean => isJsonObject(valueAt(ours, keys)) && isJsonObject(valueAt(theirs, keys));
  const out: MergeConflict[] = [];
  for (const keys of paths.values()) {
    const above = keys.map((_, i) => keys.slice(0, i)).slice(1);
    if (!above.every((q) => differ(q) && bothObjects(q))) continue;
    if (!differ(keys) || bothObjects(keys)) continue;
    out.push({ path: pointer(keys), base: valueAt(base, keys) ?? null, ours: valueAt(ours, keys) ?? null, theirs: valueAt(theirs, keys) ?? null });
  }
  return out;
}

const byPath = (a: MergeConflict, b: MergeConflict): number => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

describe('threeWayMerge (properties)', () => {
  it('disjoint changes: the merge equals both patches applied to the base, in either order, without conflicts', () => {
    const disjoint = fc.tuple(stateArb, patchArb, fc.array(fc.boolean(), { minLength: 16, maxLength: 16 })).map(([state, patch, sides]) => {
      const base = frozenClone(state);
      const all = leaves(diff(base, applied(base, frozenClone(patch))));
      const ours = patchOf(all.filter((_, i) => sides[i % sides.length]));
      const theirs = patchOf(all.filter((_, i) => !sides[i % sides.length]));
      return { base, oursPatch: ours, theirsPatch: theirs };
    });
    fc.assert(
      fc.property(disjoint, ({ base, oursPatch, theirsPatch }) => {
        const ours = applied(base, oursPatch);
        const theirs = applied(base, theirsPatch);
        const { merged, conflicts } = threeWayMerge(base, ours, theirs);
        expect(conflicts).toEqual([]);
        expect(jsonEqual(merged, applied(ours, theirsPatch))).toBe(true);
        expect(jsonEqual(merged, applied(theirs, oursPatch))).toBe(true);
      }),
      params,
    );
  });

  it('no change of either side that does not meet a conflict is lost', () => {
    fc.assert(
      fc.property(sidesArb, ({ base, ours, theirs }) => {
        const { merged, conflicts } = threeWayMerge(base, ours, theirs);
        for (const side of [ours, theirs]) {
          for (const { keys, value } of leaves(diff(base, side))) {
            const path = pointer(keys);
            if (conflicts.some((c) => related(c.path, path))) continue;
            const now = valueAt(merged, keys);
            // A created `{}` says "an object here"; the other side may have given it keys.
            if (isJsonObject(value) && Object.keys(value).length === 0) expect(isJsonObject(now), path).toBe(true);
            else expect(same(now, valueAt(side, keys)), path).toBe(true);
          }
        }
      }),
      params,
    );
  });

  it('merging a into b and b into a gives the same state when nothing conflicts, and mirrored conflicts otherwise', () => {
    fc.assert(
      fc.property(sidesArb, ({ base, ours, theirs }) => {
        const ab = threeWayMerge(base, ours, theirs);
        const ba = threeWayMerge(base, theirs, ours);
        expect([...ba.conflicts].sort(byPath)).toEqual([...ab.conflicts].sort(byPath).map((c) => ({ ...c, ours: c.theirs, theirs: c.ours })));
        if (ab.conflicts.length === 0) expect(jsonEqual(ab.merged, ba.merged)).toBe(true);
      }),
      params,
    );
  });

  it('merging the same side again brings nothing new', () => {
    fc.assert(
      fc.property(sidesArb, fc.constantFrom('ours' as const, 'theirs' as const), ({ base, ours, theirs }, prefer) => {
        const first = threeWayMerge(base, ours, theirs, { prefer }).merged;
        // After merging theirs, theirs is the merge base of the next merge.
        const again = threeWayMerge(theirs, first, theirs);
        expect(again.conflicts).toEqual([]);
        expect(again.merged).toBe(first);
      }),
      params,
    );
  });

  it('the conflicts are exactly those of a reference merge, and each open one keeps ours', () => {
    fc.assert(
      fc.property(sidesArb, ({ base, ours, theirs }) => {
        const { merged, conflicts } = threeWayMerge(base, ours, theirs);
        expect([...conflicts].sort(byPath)).toEqual(referenceConflicts(base, ours, theirs).sort(byPath));
        for (const c of conflicts) expect(valueAt(merged, pointerSegments(c.path)) ?? null).toEqual(c.ours);
      }),
      params,
    );
  });

  it('only: restricted to the paths of the patch between theirs and base, the merge is the full merge', () => {
    fc.assert(
      fc.property(stateArb, patchArb, patchArb, (before, undone, later) => {
        // base: before with the patch; theirs: before; ours: base with a later patch (an undo of one transition).
        const patched = (state: JsonObject, patch: JsonObject): JsonObject | null => {
          try {
            return Object.keys(patch).length === 0 ? state : applyPatch(state, patch);
          } catch {
            return null;
          }
        };
        const base = patched(before, undone);
        if (base === null) return;
        const net = diff(before, base);
        const ours = patched(base, later);
        if (ours === null) return;
        const full = threeWayMerge(base, ours, before);
        const only = threeWayMerge(base, ours, before, { only: net });
        expect(JSON.stringify(only.merged)).toBe(JSON.stringify(full.merged));
        expect(only.conflicts).toEqual(full.conflicts);
      }),
      params,
    );
  });
});
