import { freeze } from 'immer';
import { describe, expect, it } from 'vitest';
import { diff } from './diff.js';
import { StateflowError } from './errors.js';
import type { JsonObject } from './json.js';
import { jsonEqual } from './json.js';
import { netPatch } from './net-patch.js';
import { applyPatch } from './patch-apply.js';

/** A deep, deeply frozen copy (JSON text keeps `__proto__` keys as data). */
function frozenCopy<T>(value: T): T {
  return freeze(JSON.parse(JSON.stringify(value)) as T, true);
}

function isDeepFrozen(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return true;
  return Object.isFrozen(value) && Object.values(value).every(isDeepFrozen);
}

/**
 * The round-trip helper (after immer's `__tests__/patch.js`): for one case it asserts the
 * expected result, the expected net patch, that the net patch replays to the same result, and
 * that `diff(before, after)` applied to `before` gives `after`. Inputs are deeply frozen, so a
 * mutation attempt would throw.
 */
function roundTrip(name: string, before: JsonObject, patch: JsonObject, expected: JsonObject, expectedNet: JsonObject): void {
  it(name, () => {
    const base = frozenCopy(before);
    const input = frozenCopy(patch);
    const after = applyPatch(base, input);
    expect(after).toEqual(expected);
    expect(isDeepFrozen(after)).toBe(true);
    expect(base).toEqual(before);

    const net = netPatch(base, input);
    expect(net).toEqual(expectedNet);
    if (Object.keys(net).length === 0) expect(jsonEqual(after, base)).toBe(true);
    else expect(applyPatch(base, net)).toEqual(expected);

    const delta = diff(base, after);
    if (Object.keys(delta).length === 0) expect(jsonEqual(after, base)).toBe(true);
    else expect(applyPatch(base, delta)).toEqual(after);
  });
}

describe('applyPatch: objects merge, scalars and arrays replace', () => {
  roundTrip('replaces a scalar', { a: 1, b: 2 }, { a: 3 }, { a: 3, b: 2 }, { a: 3 });
  roundTrip('adds a key', { a: 1 }, { b: 'x' }, { a: 1, b: 'x' }, { b: 'x' });
  roundTrip('merges nested objects', { p: { q: 1, r: 2 } }, { p: { r: 3, s: 4 } }, { p: { q: 1, r: 3, s: 4 } }, { p: { r: 3, s: 4 } });
  roundTrip('replaces an array whole', { a: [1, 2, 3] }, { a: [9] }, { a: [9] }, { a: [9] });
  roundTrip(
    'keeps a same-length array replacement as replacement in the net patch',
    { a: [1, 2, 3] },
    { a: [1, 5, 3] },
    { a: [1, 5, 3] },
    { a: [1, 5, 3] },
  );
  roundTrip('replaces an object with a scalar', { a: { b: 1 } }, { a: 2 }, { a: 2 }, { a: 2 });
  roundTrip('replaces a scalar with an object', { a: 2 }, { a: { b: 1 } }, { a: { b: 1 } }, { a: { b: 1 } });
  roundTrip('replaces an array with an object', { a: [1] }, { a: { b: 1 } }, { a: { b: 1 } }, { a: { b: 1 } });
  roundTrip('equal writes net to {}', { a: 1, b: [1, { c: 2 }] }, { a: 1, b: [1, { c: 2 }] }, { a: 1, b: [1, { c: 2 }] }, {});
  roundTrip('numbers are JSON numbers: 4.0 equals 4', { a: 4 }, { a: 4.0 }, { a: 4 }, {});
});

describe('applyPatch: null deletes, never retained', () => {
  roundTrip('deletes a key', { a: 1, b: 2 }, { a: null }, { b: 2 }, { a: null });
  roundTrip('deleting an absent key is a no-op', { a: 1 }, { z: null }, { a: 1 }, {});
  roundTrip('deletes a nested key', { a: { b: 1, c: 2 } }, { a: { b: null } }, { a: { c: 2 } }, { a: { b: null } });
  roundTrip(
    'deletion markers inside a created object are dropped',
    {},
    { a: { b: null, c: 1 } },
    { a: { c: 1 } },
    { a: { c: 1 } },
  );
  roundTrip('deletes a whole plane', { lazy: { memory: ['x'] }, tactics: { t: 1 } }, { lazy: null }, { tactics: { t: 1 } }, { lazy: null });
});

describe('applyPatch: nested {}', () => {
  roundTrip('creates an empty object where the key is absent', { a: 1 }, { b: {} }, { a: 1, b: {} }, { b: {} });
  roundTrip('changes nothing where an object exists', { b: { c: 1 } }, { b: {} }, { b: { c: 1 } }, {});
  roundTrip('replaces a scalar with {}', { b: 1 }, { b: {} }, { b: {} }, { b: {} });
});

describe('applyPatch: "[N]" index selectors (seed "patch_state and arrays")', () => {
  const thoughts = ['first', 'second', 'third', 'fourth', 'fifth'];
  roundTrip(
    'seed example: two indexed scalar corrections',
    { cwd: { lazy: { memory: thoughts } } },
    { cwd: { lazy: { memory: { '[1]': 'corrected second thought', '[4]': 'corrected fifth thought' } } } },
    { cwd: { lazy: { memory: ['first', 'corrected second thought', 'third', 'fourth', 'corrected fifth thought'] } } },
    { cwd: { lazy: { memory: { '[1]': 'corrected second thought', '[4]': 'corrected fifth thought' } } } },
  );
  roundTrip(
    'seed example: nested indexed addressing',
    { cwd: { lazy: { groups: [{ title: 'g', notes: ['n0', 'n1'] }, { notes: [] }] } } },
    { cwd: { lazy: { groups: { '[0]': { notes: { '[1]': 'corrected note' } } } } } },
    { cwd: { lazy: { groups: [{ title: 'g', notes: ['n0', 'corrected note'] }, { notes: [] }] } } },
    { cwd: { lazy: { groups: { '[0]': { notes: { '[1]': 'corrected note' } } } } } },
  );
  roundTrip('an indexed array value replaces the element', { a: [[1, 2], 3] }, { a: { '[0]': [9] } }, { a: [[9], 3] }, { a: { '[0]': [9] } });
  roundTrip(
    'an indexed object merges into an object element',
    { a: [{ x: 1, y: 2 }] },
    { a: { '[0]': { y: null, z: 3 } } },
    { a: [{ x: 1, z: 3 }] },
    { a: { '[0]': { y: null, z: 3 } } },
  );
  roundTrip('an indexed object replaces a non-object element', { a: ['s'] }, { a: { '[0]': { k: 1 } } }, { a: [{ k: 1 }] }, { a: { '[0]': { k: 1 } } });
  roundTrip('nested index selectors address nested arrays', { a: [[1, 2]] }, { a: { '[0]': { '[1]': 5 } } }, { a: [[1, 5]] }, { a: { '[0]': { '[1]': 5 } } });
  roundTrip('indexed writes of equal elements net to {}', { a: [1, { b: 2 }] }, { a: { '[0]': 1, '[1]': { b: 2 } } }, { a: [1, { b: 2 }] }, {});
  roundTrip(
    'the net patch keeps only changed indices',
    { a: [1, 2, 3] },
    { a: { '[0]': 1, '[2]': 4 } },
    { a: [1, 2, 4] },
    { a: { '[2]': 4 } },
  );
  roundTrip('"1" is an ordinary key, not an index', { a: { '1': 'x' } }, { a: { '1': 'y' } }, { a: { '1': 'y' } }, { a: { '1': 'y' } });
  roundTrip(
    'U6 patch_state and arrays ("Index syntax is reserved and distinct from an ordinary object key such as "1""): {"1": "B"} onto an array replaces it',
    { memory: ['a', 'b'] },
    { memory: { '1': 'B' } },
    { memory: { '1': 'B' } },
    { memory: { '1': 'B' } },
  );
});

describe('applyPatch: prototype-looking keys are plain data', () => {
  for (const key of ['__proto__', 'constructor', 'prototype']) {
    it(`stores "${key}" as an own data key and never touches a prototype`, () => {
      const patch = JSON.parse(`{"${key}": {"polluted": true}, "ok": {"${key}": [1]}}`) as JsonObject;
      const after = applyPatch({}, patch);
      expect(Object.keys(after)).toEqual([key, 'ok']);
      expect(Object.prototype.hasOwnProperty.call(after, key)).toBe(true);
      expect(Object.getPrototypeOf(after)).toBe(Object.prototype);
      expect(Object.getPrototypeOf(after.ok)).toBe(Object.prototype);
      expect(JSON.stringify(after)).toBe(`{"${key}":{"polluted":true},"ok":{"${key}":[1]}}`);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expect(Object.prototype).not.toHaveProperty('polluted');
    });
  }

  it('merges into, deletes and nets an own "__proto__" key', () => {
    const before = frozenCopy(JSON.parse('{"__proto__": {"a": 1, "b": 2}, "x": 1}') as JsonObject);
    const merged = applyPatch(before, JSON.parse('{"__proto__": {"a": null, "c": 3}}') as JsonObject);
    expect(JSON.stringify(merged)).toBe('{"__proto__":{"b":2,"c":3},"x":1}');
    expect(JSON.stringify(netPatch(before, JSON.parse('{"__proto__": {"a": 1, "b": 5}}') as JsonObject))).toBe(
      '{"__proto__":{"b":5}}',
    );
    const deleted = applyPatch(before, JSON.parse('{"__proto__": null}') as JsonObject);
    expect(JSON.stringify(deleted)).toBe('{"x":1}');
    expect(Object.getPrototypeOf(deleted)).toBe(Object.prototype);
    expect(JSON.stringify(diff(before, merged))).toBe('{"__proto__":{"a":null,"c":3}}');
  });

  it('does not read inherited members as existing keys', () => {
    expect(applyPatch({}, { toString: { a: 1 } })).toEqual({ toString: { a: 1 } });
    expect(netPatch({}, { toString: null })).toEqual({});
  });
});

describe('applyPatch: immutability and structural sharing', () => {
  it('never mutates the input state and shares unchanged subtrees', () => {
    const state = { hot: { a: 1 }, lazy: { big: ['x', 'y'], other: { q: 1 } } };
    const before = JSON.stringify(state);
    const after = applyPatch(state, { lazy: { other: { q: 2 } } });
    expect(JSON.stringify(state)).toBe(before);
    expect(after.hot).toBe(state.hot);
    expect((after.lazy as JsonObject).big).toBe(state.lazy.big);
    expect(after.lazy).not.toBe(state.lazy);
    expect(isDeepFrozen(after)).toBe(true);
  });

  it('returns the input itself when the patch changes nothing', () => {
    const state = frozenCopy({ a: { b: 1 } });
    expect(applyPatch(state, { a: { b: 1, c: null } })).toBe(state);
  });

  it('copies patch values: mutating the caller\'s patch later cannot change the result', () => {
    const list = [1, 2];
    const patch = { a: { list, deep: { n: 1 } } };
    const after = applyPatch({}, patch);
    list.push(3);
    patch.a.deep.n = 99;
    expect(after).toEqual({ a: { list: [1, 2], deep: { n: 1 } } });
    expect(Object.isFrozen(list)).toBe(false);
  });

  it('leaves state and patch untouched when the patch fails', () => {
    const state = { a: [1, 2], b: { c: 1 } };
    const patch = { b: { c: 2 }, a: { '[5]': 1 } };
    const snapshot = JSON.stringify({ state, patch });
    expect(() => applyPatch(state, patch)).toThrow(StateflowError);
    expect(JSON.stringify({ state, patch })).toBe(snapshot);
    expect(Object.isFrozen(state)).toBe(false);
    expect(Object.isFrozen(patch)).toBe(false);
  });

  it('normalizes -0 to 0', () => {
    expect(Object.is(applyPatch({}, { n: -0 }).n, 0)).toBe(true);
  });
});
