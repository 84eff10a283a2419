import fc from 'fast-check';
import { freeze } from 'immer';
import { describe, expect, it } from 'vitest';
import { diff } from './diff.js';
import { StateflowError } from './errors.js';
import { defineData } from './internal/define-data.js';
import type { JsonObject, JsonValue } from './json.js';
import { isJsonObject, jsonEqual } from './json.js';
import type { PatchPathStep } from './narrow-patch.js';
import { applyNarrowedPatch, narrowPatch } from './narrow-patch.js';
import { netPatch } from './net-patch.js';
import { overlay } from './overlay.js';
import { applyPatch } from './patch-apply.js';
import { patchSeries } from './patch-series.js';
import { fcParams } from '@stateflow/test-kit';

const params: fc.Parameters<unknown> = fcParams();

// Keys include prototype-looking names, an inherited member name and a numeric-looking key.
const KEYS = ['a', 'b', 'c', 'd', '__proto__', 'constructor', 'prototype', 'toString', '1', 'x y'];
const keyArb = fc.constantFrom(...KEYS);
const scalarArb: fc.Arbitrary<JsonValue> = fc.oneof(
  fc.integer({ min: -3, max: 3 }),
  fc.constantFrom('s', 't', ''),
  fc.boolean(),
  fc.double({ noNaN: true, noDefaultInfinity: true, min: -10, max: 10 }).map((n) => (n === 0 ? 0 : n)),
);

function objectOf(entries: Array<[string, JsonValue]>): JsonObject {
  const object: JsonObject = {};
  for (const [key, value] of entries) defineData(object, key, value);
  return object;
}

/** Stored values: null-free JSON without `[…]` keys. */
const { value: valueArb, object: objectArb } = fc.letrec<{ value: JsonValue; array: JsonValue[]; object: JsonObject }>((tie) => ({
  value: fc.oneof({ depthSize: 'small', maxDepth: 4 }, scalarArb, tie('array'), tie('array'), tie('object')),
  array: fc.array(tie('value'), { maxLength: 4 }),
  object: fc.array(fc.tuple(keyArb, tie('value')), { maxLength: 4 }).map(objectOf),
}));

/** States: objects whose members are often non-empty arrays, so index selectors get exercised. */
const stateArb: fc.Arbitrary<JsonObject> = fc.oneof(
  objectArb,
  fc.array(fc.tuple(keyArb, fc.oneof(valueArb, fc.array(valueArb, { minLength: 1, maxLength: 4 }))), { maxLength: 5 }).map(objectOf),
);

/**
 * A choice sequence: patches are derived deterministically from the state and a list of
 * small numbers, so shrinking stays cheap (fast-check shrinks the numbers, not a generator).
 */
class Choices {
  private next = 0;
  constructor(private readonly values: number[]) {}
  /** A number in `[0, n)`. */
  pick(n: number): number {
    const value = this.values.length === 0 ? 0 : (this.values[this.next++ % this.values.length] as number);
    return value % n;
  }
  from<T>(items: readonly T[]): T {
    return items[this.pick(items.length)] as T;
  }
  subset<T>(items: readonly T[], minLength: number): T[] {
    const chosen = items.filter(() => this.pick(2) === 1);
    return chosen.length >= minLength ? chosen : items.slice(0, minLength);
  }
}

const SCALARS: JsonValue[] = [0, 1, -2, 2.5, 's', 't', '', true, false];

/** A null-free stored value of bounded depth. */
function storedValue(c: Choices, depth: number): JsonValue {
  const kind = depth === 0 ? 0 : c.pick(3);
  if (kind === 0) return c.from(SCALARS);
  if (kind === 1) return Array.from({ length: c.pick(4) }, () => storedValue(c, depth - 1));
  // At least one member: a stored value written as a patch value is an object patch, and an
  // empty one would create `{}` (refused with emptyObjects: 'refuse').
  return objectOf(c.subset(KEYS.slice(0, 4), 1).map((key) => [key, storedValue(c, depth - 1)]));
}

const STRICT = { emptyObjects: 'refuse' } as const;

/** A valid patch for `target`, biased towards existing keys, indices and no-op writes. */
function patchFor(c: Choices, target: JsonObject): JsonObject {
  const patch = patchMembers(c, target, 3);
  if (Object.keys(patch).length === 0) defineData(patch, c.from(KEYS), c.from(SCALARS));
  return patch;
}

function patchMembers(c: Choices, target: JsonObject | undefined, depth: number): JsonObject {
  const candidates = [...new Set([...Object.keys(target ?? {}), ...c.subset(['a', 'b', 'new', '__proto__'], 0)])];
  const patch: JsonObject = {};
  for (const key of c.subset(candidates, Math.min(1, candidates.length))) {
    const current = target !== undefined && Object.hasOwn(target, key) ? target[key] : undefined;
    defineData(patch, key, c.pick(5) === 0 ? null : patchValue(c, current, depth));
  }
  return patch;
}

/**
 * A non-null patch value for a location holding `current` (`undefined` = absent), valid with
 * emptyObjects: 'refuse': an object patch on a non-object leaves a member there.
 */
function patchValue(c: Choices, current: JsonValue | undefined, depth: number): JsonValue {
  if (depth > 0 && Array.isArray(current) && current.length > 0 && c.pick(2) === 1) {
    const indices = c.subset([...current.keys()], 1).slice(0, 3);
    return objectOf(indices.map((i) => [`[${i}]`, patchValue(c, current[i], depth - 1)]));
  }
  if (depth > 0 && isJsonObject(current) && c.pick(2) === 1) return patchMembers(c, current, depth - 1);
  switch (c.pick(depth > 0 ? 5 : 4)) {
    case 0:
      return c.from(SCALARS);
    case 1:
      return storedValue(c, 2);
    case 2:
      return current ?? c.from(SCALARS);
    case 3:
      return isJsonObject(current) ? {} : c.from(SCALARS);
    default: {
      const created = patchMembers(c, undefined, depth - 1);
      if (!Object.values(created).some((member) => member !== null)) defineData(created, c.from(['a', 'b']), c.from(SCALARS));
      return created;
    }
  }
}

/** Every key/index path in `value` (the root excluded). */
function pathsIn(value: JsonValue, prefix: PatchPathStep[] = []): PatchPathStep[][] {
  const out: PatchPathStep[][] = [];
  if (Array.isArray(value)) {
    value.forEach((element, index) => {
      const path: PatchPathStep[] = [...prefix, { kind: 'index', index }];
      out.push(path, ...pathsIn(element, path));
    });
  } else if (isJsonObject(value)) {
    for (const key of Object.keys(value)) {
      const path: PatchPathStep[] = [...prefix, { kind: 'key', key }];
      out.push(path, ...pathsIn(value[key] as JsonValue, path));
    }
  }
  return out;
}

function valueAt(value: JsonValue | undefined, path: PatchPathStep[]): JsonValue | undefined {
  let here = value;
  for (const step of path) {
    if (step.kind === 'key') here = isJsonObject(here) && Object.hasOwn(here, step.key) ? here[step.key] : undefined;
    else here = Array.isArray(here) ? here[step.index] : undefined;
  }
  return here;
}

function same(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  return a === undefined || b === undefined ? a === b : jsonEqual(a, b);
}

function frozenClone<T extends JsonValue>(value: T): T {
  return freeze(structuredClone(value), true);
}

const stateAndPatch = fc
  .tuple(stateArb, fc.array(fc.nat({ max: 1000 }), { maxLength: 64 }))
  .map(([state, choices]) => {
    const frozen = frozenClone(state);
    return { state: frozen, patch: frozenClone(patchFor(new Choices(choices), frozen)) };
  });

const FAULTS = ['out-of-range', 'null-in-array', 'mixed', 'bad-index', 'index-on-object', 'not-json'];
/** Faults only emptyObjects: 'refuse' refuses. */
const STRICT_FAULTS = ['empty-object', 'empty-replacing-scalar'];

/** A patch made invalid in one of `faults`, somewhere below the top level or at it. */
const brokenPatchOf = (faults: string[]) => fc
  .tuple(stateAndPatch, fc.constantFrom(...faults))
  .map(([{ state, patch }, fault]) => {
    const broken = structuredClone(patch) as JsonObject;
    const faults: Record<string, JsonValue | undefined> = {
      'out-of-range': { list: { '[99]': 1 } },
      'null-in-array': { list: [1, null] },
      mixed: { obj: { '[0]': 1, k: 1 } },
      'bad-index': { list: { '[01]': 1 } },
      'index-on-object': { obj: { '[0]': 1 } },
      'not-json': { obj: { k: undefined as unknown as JsonValue } },
      'empty-object': { fresh: {} },
      'empty-replacing-scalar': { scalar: { gone: null } },
    };
    defineData(broken, 'zz', faults[fault] as JsonValue);
    const base = structuredClone(state);
    defineData(base, 'zz', { list: [0], obj: {}, scalar: 1 });
    return { state: freeze(base, true), patch: broken };
  });
const brokenPatch = brokenPatchOf([...FAULTS, ...STRICT_FAULTS]);

describe('patch semantics (properties)', () => {
  it('applyPatch(s, netPatch(s, p)) equals applyPatch(s, p); the net patch is idempotent', () => {
    fc.assert(
      fc.property(stateAndPatch, ({ state, patch }) => {
        const after = applyPatch(state, patch, STRICT);
        const net = netPatch(state, patch, STRICT);
        if (Object.keys(net).length === 0) return jsonEqual(after, state);
        expect(jsonEqual(applyPatch(state, net, STRICT), after)).toBe(true);
        expect(jsonEqual(netPatch(state, net, STRICT), net)).toBe(true);
        return true;
      }),
      params,
    );
  });

  it('applyPatch(a, diff(a, b)) equals b, and diff(a, a) is {}', () => {
    fc.assert(
      fc.property(stateArb, stateArb, (a, b) => {
        const d = diff(a, b);
        expect(diff(a, structuredClone(a))).toEqual({});
        if (Object.keys(d).length === 0) return jsonEqual(a, b);
        return jsonEqual(applyPatch(a, d), b) && jsonEqual(netPatch(a, d), d);
      }),
      params,
    );
  });

  it('applyPatch(s, diff(s, applyPatch(s, p))) equals applyPatch(s, p)', () => {
    fc.assert(
      fc.property(stateAndPatch, ({ state, patch }) => {
        const after = applyPatch(state, patch);
        const d = diff(state, after);
        return Object.keys(d).length === 0 ? jsonEqual(after, state) : jsonEqual(applyPatch(state, d), after);
      }),
      params,
    );
  });

  describe('seed "Projections › patch": value(N−1) + patch(N) = value(N) at every path, and { "patch": {} } only for "No change"', () => {
    /** For every path of `before`, of `after` and the root: the narrowed patch round-trips and is `{}` exactly where nothing changed. */
    function roundTripsEverywhere(before: JsonObject, patch: JsonObject, after: JsonObject): boolean {
      for (const path of [[], ...pathsIn(before), ...pathsIn(after)]) {
        const old = valueAt(before, path);
        const next = valueAt(after, path);
        const narrowed = narrowPatch(patch, path, old);
        const where = JSON.stringify({ before, patch, path });
        expect(applyNarrowedPatch(old, narrowed), where).toEqual(next);
        expect(jsonEqual(narrowed, {}), where).toBe(same(old, next));
      }
      return true;
    }

    it('for diff(a, b) of any two states (arrays holding {} included)', () => {
      fc.assert(fc.property(stateArb, stateArb, (a, b) => roundTripsEverywhere(a, diff(a, b), b)), params);
    });

    it("for the net patch of an agent patch (emptyObjects: 'refuse')", () => {
      fc.assert(
        fc.property(stateAndPatch, ({ state, patch }) => roundTripsEverywhere(state, netPatch(state, patch, STRICT), applyPatch(state, patch, STRICT))),
        params,
      );
    });

    it("for stored history in RFC 7396's reading: {} and deletion-only patches where no object was, {} written into arrays", () => {
      const arb = fc.tuple(stateAndPatch, fc.array(fc.nat({ max: 1000 }), { minLength: 1, maxLength: 8 })).map(([{ state, patch }, choices]) => {
        const c = new Choices(choices);
        const lenient = structuredClone(patch) as JsonObject;
        const key = c.from([...Object.keys(state), 'new']);
        const current = Object.hasOwn(state, key) ? state[key] : undefined;
        const empties: JsonValue[] = [{}, { [c.from(KEYS)]: null }, [{}], [c.from(SCALARS), {}]];
        if (Array.isArray(current) && current.length > 0) empties.push({ [`[${c.pick(current.length)}]`]: {} });
        defineData(lenient, key, c.from(empties));
        return { state, patch: lenient };
      });
      fc.assert(fc.property(arb, ({ state, patch }) => roundTripsEverywhere(state, netPatch(state, patch), applyPatch(state, patch))), params);
    });
  });

  it("emptyObjects: 'refuse' refuses exactly the patches that would put {} where a non-object or nothing was", () => {
    const cases: Array<[JsonObject, JsonObject, string | null]> = [
      [{}, { a: {} }, '/a'],
      [{ a: 5 }, { a: {} }, '/a'],
      [{ a: [1] }, { a: { b: null } }, '/a'],
      [{}, { a: { b: {} , c: 1 } }, '/a/b'],
      [{ a: { b: 1 } }, { a: {} }, null],
      [{ a: { b: 1 } }, { a: { b: null } }, null],
      [{}, { a: [{}] }, null],
      [{ a: [{ x: 1 }] }, { a: { '[0]': { x: null } } }, null],
    ];
    for (const [state, patch, at] of cases) {
      let error: unknown;
      try {
        applyPatch(state, patch, STRICT);
      } catch (err) {
        error = err;
      }
      if (at === null) expect(error, JSON.stringify(patch)).toBeUndefined();
      else expect((error as StateflowError).details, JSON.stringify(patch)).toMatchObject({ reason: 'empty-object', at });
      // RFC 7396's reading (the default, used to replay stored history) accepts every one.
      expect(() => applyPatch(state, patch)).not.toThrow();
    }
  });

  it('a failing patch throws PATCH_INVALID and leaves its inputs deep-equal to before', () => {
    fc.assert(
      fc.property(brokenPatch, ({ state, patch }) => {
        const stateBefore = structuredClone(state);
        const patchBefore = JSON.stringify(patch, (_k, v: unknown) => (v === undefined ? '<undefined>' : v));
        for (const call of [() => applyPatch(state, patch, STRICT), () => netPatch(state, patch, STRICT)]) {
          let error: unknown;
          try {
            call();
          } catch (err) {
            error = err;
          }
          expect(error).toBeInstanceOf(StateflowError);
          expect((error as StateflowError).code).toBe('PATCH_INVALID');
        }
        expect(jsonEqual(state, stateBefore)).toBe(true);
        expect(JSON.stringify(patch, (_k, v: unknown) => (v === undefined ? '<undefined>' : v))).toBe(patchBefore);
        return true;
      }),
      params,
    );
  });

  it('applyPatch never mutates deep-frozen inputs and returns a deeply frozen state', () => {
    const deepFrozen = (v: unknown): boolean =>
      typeof v !== 'object' || v === null || (Object.isFrozen(v) && Object.values(v).every(deepFrozen));
    fc.assert(
      fc.property(stateAndPatch, ({ state, patch }) => {
        const stateBefore = structuredClone(state);
        const patchBefore = structuredClone(patch);
        const after = applyPatch(state, patch);
        return deepFrozen(after) && jsonEqual(state, stateBefore) && jsonEqual(patch, patchBefore);
      }),
      params,
    );
  });

  it('patchSeries equals folding applyPatch (key order included), never mutates its base, and its states are deeply frozen (also over frozen patches)', () => {
    const deepFrozen = (v: unknown): boolean =>
      typeof v !== 'object' || v === null || (Object.isFrozen(v) && Object.values(v).every(deepFrozen));
    const history = fc.tuple(stateArb, fc.array(fc.array(fc.nat({ max: 1000 }), { maxLength: 32 }), { minLength: 1, maxLength: 8 }), fc.nat(), fc.boolean(), fc.boolean());
    fc.assert(
      fc.property(history, ([state, choiceLists, cutPick, frozenBase, frozenPatches]) => {
        const base = frozenBase ? frozenClone(state) : structuredClone(state);
        const baseText = JSON.stringify(base);
        // The fold runs on its own copy: applyPatch freezes what it shares with an unfrozen base.
        const folded: JsonObject[] = [];
        const patches: JsonObject[] = [];
        let s = structuredClone(base);
        for (const choices of choiceLists) {
          const patch = frozenClone(patchFor(new Choices(choices), s));
          s = applyPatch(s, patch);
          patches.push(patch);
          folded.push(s);
        }
        const cut = cutPick % patches.length;
        const series = patchSeries(base, { frozenPatches });
        patches.forEach((patch, i) => {
          series.apply(patch);
          if (i === cut) expect(JSON.stringify(series.state())).toBe(JSON.stringify(folded[i]));
        });
        const result = series.state();
        expect(JSON.stringify(result)).toBe(JSON.stringify(folded.at(-1)));
        expect(deepFrozen(result)).toBe(true);
        expect(JSON.stringify(base)).toBe(baseText);
        return true;
      }),
      params,
    );
  });

  it('patchSeries: a failing patch throws what applyPatch throws, and the series is unusable after it', () => {
    fc.assert(
      fc.property(brokenPatchOf(FAULTS), ({ state, patch }) => {
        let expected: unknown;
        try {
          applyPatch(state, patch);
        } catch (err) {
          expected = err;
        }
        const series = patchSeries(state);
        expect(() => series.apply(patch)).toThrow(StateflowError);
        let actual: unknown;
        try {
          patchSeries(state).apply(patch);
        } catch (err) {
          actual = err;
        }
        expect((actual as StateflowError).code).toBe((expected as StateflowError).code);
        expect((actual as StateflowError).details).toEqual((expected as StateflowError).details);
        expect((actual as StateflowError).message).toBe((expected as StateflowError).message);
        expect(() => series.state()).toThrow('unusable');
        expect(() => series.apply({ a: 1 })).toThrow('unusable');
        return true;
      }),
      params,
    );
  });

  it('overlay with an empty or absent upper scope is the identity', () => {
    fc.assert(
      fc.property(stateArb, (s) => {
        return (
          jsonEqual(overlay(s, {}), s) &&
          jsonEqual(overlay({}, s), s) &&
          jsonEqual(overlay(s, undefined, {}), s) &&
          jsonEqual(overlay(s, s), s)
        );
      }),
      params,
    );
  });

  it('overlay: a key present in the upper scope wins unless both sides are objects', () => {
    fc.assert(
      fc.property(stateArb, stateArb, (low, high) => {
        const result = overlay(low, high);
        for (const key of Object.keys(high)) {
          const h = high[key] as JsonValue;
          const l = Object.hasOwn(low, key) ? low[key] : undefined;
          if (!(isJsonObject(h) && isJsonObject(l)) && !jsonEqual(result[key] as JsonValue, h)) return false;
        }
        for (const key of Object.keys(low)) {
          if (!Object.hasOwn(high, key) && !jsonEqual(result[key] as JsonValue, low[key] as JsonValue)) return false;
        }
        return Object.keys(result).length === new Set([...Object.keys(low), ...Object.keys(high)]).size;
      }),
      params,
    );
  });
});
