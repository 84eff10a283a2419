/**
 * fast-check arbitraries for the model-based group: JSON values and recursive semantic patches
 * (DESIGN.md "Patches"), biased towards the edge cases — deletions, `"[N]"` keys in and out of
 * range, non-canonical indices, `null` inside values, `__proto__` as data, empty patches.
 */
import fc from 'fast-check';
import type { JsonObject, JsonValue } from '@stateflow/core';

/** The streams commands pick from. */
export const STREAMS = ['global', 'cwd:/w', 'session:s1', 'session:s2'] as const;

const key = fc.constantFrom('a', 'b', 'c', 'list', '__proto__', 'x-1', '0');
const indexKey = fc.constantFrom('[0]', '[1]', '[2]', '[01]');
const scalar: fc.Arbitrary<JsonValue> = fc.oneof(
  fc.integer({ min: -3, max: 3 }),
  fc.constantFrom('', 'x', 'yz'),
  fc.boolean(),
);

/** Build an object with own data properties only, so `__proto__` stays a key. */
function objectFrom<V>(entries: Array<[string, V]>): Record<string, V> {
  const out: Record<string, V> = {};
  for (const [k, v] of entries) Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
  return out;
}

function entries<V>(keys: fc.Arbitrary<string>, values: fc.Arbitrary<V>, minLength: number, maxLength: number) {
  return fc.uniqueArray(fc.tuple(keys, values), { minLength, maxLength, selector: ([k]) => k }).map(objectFrom);
}

const trees = fc.letrec<{ value: JsonValue; patchValue: JsonValue; objectPatch: JsonObject; indexPatch: JsonObject }>(
  (tie) => ({
    value: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      scalar,
      fc.array(tie('value'), { maxLength: 3 }),
      entries(key, tie('value'), 0, 3) as fc.Arbitrary<JsonValue>,
    ),
    patchValue: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      { arbitrary: tie('value'), weight: 4 },
      { arbitrary: fc.constant(null), weight: 2 },
      { arbitrary: tie('objectPatch') as fc.Arbitrary<JsonValue>, weight: 2 },
      { arbitrary: tie('indexPatch') as fc.Arbitrary<JsonValue>, weight: 2 },
      { arbitrary: fc.constant([1, null]) as fc.Arbitrary<JsonValue>, weight: 1 },
    ),
    objectPatch: entries(key, tie('patchValue'), 0, 3) as fc.Arbitrary<JsonObject>,
    indexPatch: entries(indexKey, tie('patchValue'), 1, 2) as fc.Arbitrary<JsonObject>,
  }),
);

/** A top-level patch: 0–3 keys (an empty one is invalid by design). */
export const patchArb: fc.Arbitrary<JsonObject> = fc.oneof(
  { arbitrary: entries(key, trees.patchValue, 1, 3) as fc.Arbitrary<JsonObject>, weight: 12 },
  { arbitrary: fc.constant({}), weight: 1 },
);

/** A stream id. */
export const streamArb = fc.constantFrom(...STREAMS);

/** A position in [0, 1) used to pick a revision relative to the oracle's current head. */
export const pickArb = fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true });
