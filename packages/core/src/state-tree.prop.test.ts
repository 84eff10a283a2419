import canonicalize from 'canonicalize';
import fc from 'fast-check';
import { freeze } from 'immer';
import { describe, expect, it } from 'vitest';
import { fcParams, seededRandom } from '@stateflow/test-kit';
import { StateflowError } from './errors.js';
import { defineData } from './internal/define-data.js';
import { PLAIN_LIMIT } from './internal/tree.js';
import type { JsonObject, JsonValue } from './json.js';
import { isJsonObject } from './json.js';
import type { PatchPathStep } from './narrow-patch.js';
import { netPatch } from './net-patch.js';
import { applyPatch } from './patch-apply.js';
import { patchSeries } from './patch-series.js';
import { StateTree } from './state-tree.js';
import { legacyApplyPatch, legacyNetPatch, legacyPatchSeries } from './test-support/legacy-patch.js';

const params: fc.Parameters<unknown> = fcParams();

/** Choices drawn from a seeded generator: states and patches are functions of a few seeds, which shrink. */
class Choices {
  readonly #random: () => number;
  constructor(seed: number) {
    this.#random = seededRandom(seed);
  }
  /** A number in `[0, n)`. */
  pick(n: number): number {
    return Math.floor(this.#random() * n);
  }
  from<T>(items: readonly T[]): T {
    return items[this.pick(items.length)] as T;
  }
}

// Keys of wide objects: array-index keys (ordered first by the engine), prototype-looking ones and plain ones.
const KEY_POOL = ['0', '1', '7', '12', '4294967294', '__proto__', 'constructor', 'toString', ...Array.from({ length: 160 }, (_, i) => `k${i}`)];
const SCALARS: JsonValue[] = [0, 1, -2, 2.5, 's', 't', '', true, false];

function objectOf(entries: Array<[string, JsonValue]>): JsonObject {
  const object: JsonObject = {};
  for (const [key, value] of entries) defineData(object, key, value);
  return object;
}

function small(c: Choices, depth: number): JsonValue {
  const kind = depth === 0 ? 0 : c.pick(3);
  if (kind === 0) return c.from(SCALARS);
  if (kind === 1) return Array.from({ length: c.pick(3) }, () => small(c, depth - 1));
  return objectOf(Array.from({ length: 1 + c.pick(3) }, () => [c.from(['a', 'b', 'c']), small(c, depth - 1)]));
}

/** An object of about `size` keys (around PLAIN_LIMIT, so both forms and the switch between them are exercised). */
function wide(c: Choices, size: number, depth: number): JsonObject {
  const entries: Array<[string, JsonValue]> = [];
  for (let i = 0; i < size; i++) entries.push([c.from(KEY_POOL), depth > 0 && c.pick(8) === 0 ? wide(c, 5 + c.pick(80), depth - 1) : small(c, 1)]);
  return objectOf(entries);
}

function stateOf(c: Choices): JsonObject {
  return freeze(
    {
      plan: small(c, 2),
      wide: wide(c, PLAIN_LIMIT - 8 + c.pick(40), 1),
      list: Array.from({ length: PLAIN_LIMIT - 4 + c.pick(10) }, () => small(c, 1)),
      lazy: { memory: wide(c, 20 + c.pick(100), 1) },
    },
    true,
  );
}

/** A valid patch for `state` with 1–6 operations on wide objects, lists and nested members. */
function patchOf(c: Choices, state: JsonObject): JsonObject {
  const patch: JsonObject = {};
  const at = (path: string[]): JsonObject => {
    let here = patch;
    for (const key of path) {
      if (!isJsonObject(here[key])) defineData(here, key, {});
      here = here[key] as JsonObject;
    }
    return here;
  };
  const ops = 1 + c.pick(6);
  for (let i = 0; i < ops; i++) {
    const target = c.from([['wide'], ['lazy', 'memory']]);
    let current: JsonValue | undefined = state;
    for (const key of target) current = isJsonObject(current) && Object.hasOwn(current, key) ? current[key] : undefined;
    const existing = isJsonObject(current) ? Object.keys(current) : [];
    // Existing keys, or a few keys often (so deleted keys are added again), or any.
    const pool = c.pick(4);
    const key = existing.length > 0 && pool < 2 ? c.from(existing) : c.from(pool === 2 ? KEY_POOL.slice(0, 12) : KEY_POOL);
    const here = at(target);
    if (Object.hasOwn(here, key)) continue;
    const value = isJsonObject(current) && Object.hasOwn(current, key) ? current[key] : undefined;
    switch (c.pick(6)) {
      case 0:
      case 4:
        defineData(here, key, null);
        break;
      case 1:
        defineData(here, key, isJsonObject(value) ? objectOf([[c.from(['a', 'b', 'z']), c.from(SCALARS)]]) : small(c, 2));
        break;
      case 2:
        defineData(here, key, value ?? 1);
        break;
      default:
        defineData(here, key, c.from(SCALARS));
    }
  }
  const list = state.list as JsonValue[];
  if (c.pick(3) === 0 && list.length > 0) {
    const index = c.pick(list.length);
    defineData(patch, 'list', objectOf([[`[${index}]`, c.pick(2) === 0 ? c.from(SCALARS) : small(c, 1)]]));
  } else if (c.pick(8) === 0) {
    defineData(patch, 'list', Array.from({ length: c.pick(PLAIN_LIMIT + 20) }, () => c.from(SCALARS)));
  }
  if (c.pick(10) === 0) defineData(patch, 'wide', c.pick(2) === 0 ? c.from(SCALARS) : wide(c, 3 + c.pick(90), 0));
  if (Object.keys(patch).length === 0) defineData(patch, 'plan', c.from(SCALARS));
  return freeze(patch, true);
}

/** Every key/index path in `value`, the root included. */
function pathsIn(value: JsonValue, prefix: PatchPathStep[] = []): PatchPathStep[][] {
  const out: PatchPathStep[][] = [prefix];
  if (Array.isArray(value)) value.forEach((element, index) => out.push(...pathsIn(element, [...prefix, { kind: 'index', index }])));
  else if (isJsonObject(value)) for (const key of Object.keys(value)) out.push(...pathsIn(value[key] as JsonValue, [...prefix, { kind: 'key', key }]));
  return out;
}

function valueIn(value: JsonValue | undefined, path: PatchPathStep[]): JsonValue | undefined {
  let here = value;
  for (const step of path) {
    if (step.kind === 'key') here = isJsonObject(here) && Object.hasOwn(here, step.key) ? here[step.key] : undefined;
    else here = Array.isArray(here) && step.index < here.length ? here[step.index] : undefined;
  }
  return here;
}

const deepFrozen = (v: unknown): boolean => typeof v !== 'object' || v === null || (Object.isFrozen(v) && Object.values(v).every(deepFrozen));

/** A state and a history of 1–12 patches, each valid for the state the ones before it leave (by the oracle). */
const history = fc.tuple(fc.nat(), fc.array(fc.nat(), { minLength: 1, maxLength: 12 }), fc.array(fc.boolean(), { maxLength: 12 }))
  .map(([stateSeed, patchSeeds, reads]) => {
    const state = stateOf(new Choices(stateSeed));
    let s = state;
    const patches: JsonObject[] = [];
    const states: JsonObject[] = [];
    for (const seed of patchSeeds) {
      const patch = patchOf(new Choices(seed), s);
      patches.push(patch);
      s = legacyApplyPatch(s, patch);
      states.push(s);
    }
    return { state, patches, states, reads };
  });

describe('state trees against the copying walker (the oracle)', () => {
  it('give the same states (key order included), net patches, hashes and values at every path', () => {
    fc.assert(
      fc.property(history, ({ state, patches, states, reads }) => {
        let tree = StateTree.of(state);
        let before = state;
        patches.forEach((patch, i) => {
          const expectedNet = legacyNetPatch(before, patch);
          const { net, tree: next } = tree.change(patch);
          // Same bytes: the same JSON text (so the same key order for every encoding) and the same RFC 8785 text (the hash).
          expect(JSON.stringify(net)).toBe(JSON.stringify(expectedNet));
          expect(canonicalize(net)).toBe(canonicalize(expectedNet));
          expect(JSON.stringify(netPatch(before, patch))).toBe(JSON.stringify(expectedNet));
          tree = next;
          before = states[i] as JsonObject;
          // Building the plain state folds the tree's deltas: interleave it at random steps.
          if (reads[i] === true) expect(JSON.stringify(tree.state())).toBe(JSON.stringify(before));
        });
        const result = tree.state();
        expect(JSON.stringify(result)).toBe(JSON.stringify(before));
        expect(deepFrozen(result)).toBe(true);
        for (const path of pathsIn(before)) expect(JSON.stringify(tree.valueAt(path))).toBe(JSON.stringify(valueIn(before, path)));
        expect(tree.valueAt([{ kind: 'key', key: 'wide' }, { kind: 'key', key: 'absent-key' }])).toBeUndefined();
        expect(tree.kindAt([{ kind: 'key', key: 'list' }])).toBe(Array.isArray(before.list) ? 'array' : undefined);
        return true;
      }),
      params,
    );
  });

  it('applyPatch and patchSeries equal their copying versions, key order included', () => {
    fc.assert(
      fc.property(history, ({ state, patches }) => {
        const series = patchSeries(state, { frozenPatches: true });
        const legacy = legacyPatchSeries(state, { frozenPatches: true });
        let s = state;
        for (const patch of patches) {
          const next = applyPatch(s, patch);
          expect(JSON.stringify(next)).toBe(JSON.stringify(legacyApplyPatch(s, patch)));
          series.apply(patch);
          legacy.apply(patch);
          s = next;
        }
        expect(JSON.stringify(series.state())).toBe(JSON.stringify(legacy.state()));
        return true;
      }),
      params,
    );
  });

  it('a failing patch throws what the copying walker throws and leaves the tree as it was', () => {
    const broken = fc.tuple(history, fc.constantFrom<JsonValue>({ list: { '[999]': 1 } }, { wide: { '[0]': 1 } }, { list: [1, null] }, { lazy: { memory: { '[01]': 1 } } }))
      .map(([h, fault]) => ({ ...h, fault }));
    fc.assert(
      fc.property(broken, ({ state, patches, fault }) => {
        let tree = StateTree.of(state);
        let s = state;
        for (const patch of patches) {
          tree = tree.change(patch).tree;
          s = legacyApplyPatch(s, patch);
        }
        const patch = { ...(patches[0] as JsonObject), ...(fault as JsonObject) };
        let expected: unknown;
        try {
          legacyApplyPatch(s, patch);
        } catch (err) {
          expected = err;
        }
        let actual: unknown;
        try {
          tree.change(patch);
        } catch (err) {
          actual = err;
        }
        if (expected === undefined) return actual === undefined;
        expect(actual).toBeInstanceOf(StateflowError);
        expect((actual as StateflowError).details).toEqual((expected as StateflowError).details);
        expect((actual as StateflowError).message).toBe((expected as StateflowError).message);
        expect(JSON.stringify(tree.state())).toBe(JSON.stringify(s));
        return true;
      }),
      params,
    );
  });
});
