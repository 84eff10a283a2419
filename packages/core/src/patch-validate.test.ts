import { describe, expect, it } from 'vitest';
import type { JsonObject } from './json.js';
import { netPatch } from './net-patch.js';
import { applyPatch } from './patch-apply.js';
import type { PatchInvalidDetails } from './errors.js';
import { validatePatch, validatePatchKeys } from './patch-validate.js';
import { errorOf } from '@stateflow/test-kit';

const state: JsonObject = {
  lazy: { memory: ['m0', 'm1', 'm2'], groups: [{ notes: ['n0'] }, 'loose'], plan: 'ship' },
  tactics: { next: 'read', count: 2 },
  empty: [],
};

class Thing {
  constructor(public readonly value = 1) {}
}
const cyclic: Record<string, unknown> = { a: 1 };
cyclic.self = cyclic;
const sparse: unknown[] = [1];
sparse[2] = 3;

function nest(levels: number): JsonObject {
  let value: JsonObject = { leaf: 1 };
  for (let i = 0; i < levels; i++) value = { n: value };
  return value;
}

/** [description, patch, expected details (subset)] */
const invalid: Array<[string, unknown, PatchInvalidDetails]> = [
  ['empty top-level patch', {}, { reason: 'empty', at: '' }],
  ['null patch', null, { reason: 'not-object', at: '' }],
  ['array patch', [{ a: 1 }], { reason: 'not-object', at: '' }],
  ['string patch', 'tactics', { reason: 'not-object', at: '' }],
  ['undefined patch', undefined, { reason: 'not-object', at: '' }],
  ['undefined member', { tactics: { next: undefined } }, { reason: 'not-json', at: '/tactics/next' }],
  ['NaN', { tactics: { count: Number.NaN } }, { reason: 'not-json', at: '/tactics/count' }],
  ['Infinity', { tactics: { count: Number.POSITIVE_INFINITY } }, { reason: 'not-json', at: '/tactics/count' }],
  ['function', { f: () => 1 }, { reason: 'not-json', at: '/f' }],
  ['bigint', { n: 10n }, { reason: 'not-json', at: '/n' }],
  ['class instance', { t: new Thing() }, { reason: 'not-json', at: '/t' }],
  ['Date', { when: new Date(0) }, { reason: 'not-json', at: '/when' }],
  ['sparse array', { list: sparse }, { reason: 'not-json', at: '/list/1' }],
  ['symbol-keyed member', { tactics: { ok: 1, [Symbol('k')]: 2 } }, { reason: 'not-json', at: '/tactics' }],
  ['cycle', { c: cyclic }, { reason: 'not-json', at: '/c/self' }],
  ['nesting deeper than 512 levels', { deep: nest(600) }, { reason: 'too-deep' }],
  ['null inside a written array', { list: ['a', null] }, { reason: 'null-in-value', at: '/list/1' }],
  ['null nested in an object inside an array', { list: [{ a: null }] }, { reason: 'null-in-value', at: '/list/0/a' }],
  ['null as an indexed element', { lazy: { memory: { '[0]': null } } }, { reason: 'null-in-value', at: '/lazy/memory/[0]' }],
  ['index key stored inside an array element', { list: [{ '[0]': 1 }] }, { reason: 'index-key-in-value', at: '/list/0/[0]', index: '[0]' }],
  ['leading zero index', { lazy: { memory: { '[01]': 'x' } } }, { reason: 'bad-index-syntax', at: '/lazy/memory/[01]', index: '[01]' }],
  ['plus-signed index', { lazy: { memory: { '[+1]': 'x' } } }, { reason: 'bad-index-syntax', index: '[+1]' }],
  ['space in index', { lazy: { memory: { '[ 1]': 'x' } } }, { reason: 'bad-index-syntax', index: '[ 1]' }],
  ['decimal index', { lazy: { memory: { '[1.0]': 'x' } } }, { reason: 'bad-index-syntax', index: '[1.0]' }],
  ['negative index', { lazy: { memory: { '[-1]': 'x' } } }, { reason: 'bad-index-syntax', index: '[-1]' }],
  ['empty brackets', { lazy: { memory: { '[]': 'x' } } }, { reason: 'bad-index-syntax', index: '[]' }],
  ['unsafe integer index', { lazy: { memory: { '[9007199254740993]': 'x' } } }, { reason: 'bad-index-syntax' }],
  ['bracketed sign only', { lazy: { memory: { '[+]': 'x' } } }, { reason: 'bad-index-syntax', index: '[+]' }],
  ['lone surrogate in a string', { tactics: { next: 'a\uD800b' } }, { reason: 'not-json', at: '/tactics/next' }],
  ['lone surrogate in a key', { tactics: { 'a\uDC00': 1 } }, { reason: 'not-json' }],
  ['mixed index and keys', { lazy: { memory: { '[0]': 'x', extra: 1 } } }, { reason: 'mixed-index-and-keys', at: '/lazy/memory', index: '[0]' }],
  ['mixed keys then index', { lazy: { memory: { extra: 1, '[0]': 'x' } } }, { reason: 'mixed-index-and-keys', at: '/lazy/memory' }],
  ['index on an object', { tactics: { '[0]': 'x' } }, { reason: 'index-on-non-array', at: '/tactics' }],
  ['index on a string', { lazy: { plan: { '[0]': 'x' } } }, { reason: 'index-on-non-array', at: '/lazy/plan' }],
  ['index on an absent key', { lazy: { missing: { '[0]': 'x' } } }, { reason: 'index-on-non-array', at: '/lazy/missing' }],
  ['index at the top level', { '[0]': 'x' }, { reason: 'index-on-non-array', at: '' }],
  ['index inside a created object', { fresh: { list: { '[0]': 1 } } }, { reason: 'index-on-non-array', at: '/fresh/list' }],
  ['index on a non-array element', { lazy: { groups: { '[1]': { '[0]': 'x' } } } }, { reason: 'index-on-non-array', at: '/lazy/groups/[1]' }],
  ['index out of range', { lazy: { memory: { '[3]': 'x' } } }, { reason: 'index-out-of-range', at: '/lazy/memory/[3]', index: '[3]', length: 3 }],
  ['index on an empty array', { empty: { '[0]': 'x' } }, { reason: 'index-out-of-range', index: '[0]', length: 0 }],
  ['nested index out of range', { lazy: { groups: { '[0]': { notes: { '[1]': 'x' } } } } }, { reason: 'index-out-of-range', at: '/lazy/groups/[0]/notes/[1]', length: 1 }],
  [
    'one bad index among good ones fails the whole patch',
    { tactics: { next: 'write' }, lazy: { memory: { '[0]': 'ok', '[1]': 'ok', '[7]': 'bad' } } },
    { reason: 'index-out-of-range', index: '[7]', length: 3 },
  ],
  ['pointer escapes "/" and "~" in keys', { 'a/b': { 'c~d': { '[0]': 1 } } }, { reason: 'index-on-non-array', at: '/a~1b/c~0d' }],
];

describe('validatePatch: invalid patches fail with PATCH_INVALID and a stable reason', () => {
  it('covers at least 20 invalid patches', () => {
    expect(invalid.length).toBeGreaterThanOrEqual(20);
  });

  it.each(invalid)('%s', (_name, patch, expected) => {
    const before = JSON.stringify(state);
    for (const call of [
      () => validatePatch(state, patch),
      () => applyPatch(state, patch as JsonObject),
      () => netPatch(state, patch as JsonObject),
    ]) {
      const err = errorOf(call);
      expect(err.code).toBe('PATCH_INVALID');
      expect(err.details).toMatchObject(expected);
      expect(err.message).toContain('Invalid patch');
    }
    expect(JSON.stringify(state)).toBe(before);
  });

  it('names the location and the fix in the message', () => {
    const err = errorOf(() => validatePatch(state, { lazy: { memory: { '[3]': 'x' } } }));
    expect(err.message).toBe(
      'Invalid patch (at "/lazy/memory/[3]"): "[3]" addresses no element: the array has length 3 (valid selectors "[0]".."[2]"); to insert or remove elements, replace the whole array',
    );
  });
});

describe('validatePatch: valid patches pass', () => {
  it.each<[string, JsonObject]>([
    ['a nested {}', { tactics: { extra: {} } }],
    ['deleting an absent key', { nothing: null }],
    ['a key that only looks like a number', { tactics: { '1': 'x' } }],
    ['brackets that are not index syntax', { tactics: { '[open': 1, 'close]': 2 } }],
    ['a bracketed word is an ordinary key ("[number]" in real data)', { tactics: { '[number]': 'x', '[next]': { a: 1 } } }],
    ['last valid index', { lazy: { memory: { '[2]': 'x' } } }],
    ['an object patch on a non-object element', { lazy: { groups: { '[1]': { now: 'object' } } } }],
    ['prototype-looking keys', JSON.parse('{"__proto__": {"a": 1}, "constructor": 1, "prototype": [1]}') as JsonObject],
  ])('%s', (_name, patch) => {
    expect(() => validatePatch(state, patch)).not.toThrow();
  });

  it('accepts nesting up to 512 levels', () => {
    expect(() => validatePatch({}, { deep: nest(509) })).not.toThrow();
  });

  it('accepts a null-prototype patch object', () => {
    const patch = Object.assign(Object.create(null) as JsonObject, { tactics: { next: 'x' } });
    expect(applyPatch(state, patch).tactics).toEqual({ next: 'x', count: 2 });
  });
});

describe('validatePatchKeys: seed "Limits and change authority" — "Names must fit the shared path grammar"', () => {
  // Each name below is added to an empty basis.
  const refused: Array<[string, unknown, string, string]> = [
    ['a key with a space', { lazy: { 'has space': 1 } }, '/lazy/has space', 'has space'],
    ['a key with a dot', { lazy: { 'a.b': 2 } }, '/lazy/a.b', 'a.b'],
    ['a key in non-Latin letters', { lazy: { план: 3 } }, '/lazy/план', 'план'],
    ['a key that starts with a digit', { tactics: { '1st': 'x' } }, '/tactics/1st', '1st'],
    ['an empty key', { tactics: { '': 'x' } }, '/tactics/', ''],
    ['a bracketed data key', { tactics: { '[number]': 'x' } }, '/tactics/[number]', '[number]'],
    ['a key inside an object inside an array', { lazy: { list: [{ ok: 1 }, { 'a/b': 1 }] } }, '/lazy/list/1/a~1b', 'a/b'],
    ['a key inside an indexed element patch', { lazy: { list: { '[0]': { 'x y': 1 } } } }, '/lazy/list/[0]/x y', 'x y'],
    ['a key below an unreachable key', { lazy: { 'has space': { ok: 1 } } }, '/lazy/has space', 'has space'],
  ];
  it.each(refused)('%s is PATCH_INVALID unreachable-key, naming the key and the grammar rule', (_name, patch, at, key) => {
    const err = errorOf(() => validatePatchKeys({}, patch), 'PATCH_INVALID');
    expect(err.details).toMatchObject({ reason: 'unreachable-key', at });
    expect(err.message).toContain(JSON.stringify(key));
    expect(err.message).toContain('[A-Za-z_$][A-Za-z0-9_$-]*');
  });

  it('the seed issue patch {"has space":1,"a.b":2,"план":3} fails at its first key', () => {
    expect(errorOf(() => validatePatchKeys({}, { lazy: { 'has space': 1, 'a.b': 2, план: 3 } }), 'PATCH_INVALID').details).toMatchObject({
      reason: 'unreachable-key',
      at: '/lazy/has space',
    });
  });

  it('accepts path keys, selectors and deletions of any key; leaves malformed selectors to validatePatch', () => {
    for (const patch of [
      { lazy: { memory: { '[1]': 'x' }, $ref: 'y', _a: 1, 'kebab-case': { b2: [{ c$: 1 }] }, ['__proto__']: 1 } },
      { lazy: { 'has space': null, 'a.b': null, план: null } },
      { lazy: { list: { '[01]': 1 } } },
      { lazy: { list: [{ '[0]': 1 }] } },
      'not an object',
    ]) {
      expect(() => validatePatchKeys({}, patch)).not.toThrow();
    }
  });

  it('adds no name by rewriting a member the basis has: an imported document stays editable, it gains no new unreachable key', () => {
    const basis = { lazy: { manifest: { scripts: { 'test:cli': 'mocha' }, list: [{ 'a.b': 1 }] }, 'has space': { x: 1 } } };
    for (const patch of [
      { lazy: { manifest: { scripts: { 'test:cli': 'mocha --parallel' } } } },
      { lazy: { 'has space': { x: 2, y: 3 } } },
      { lazy: { manifest: { list: { '[0]': { 'a.b': 2 } } } } },
    ]) {
      expect(() => validatePatchKeys(basis, patch), JSON.stringify(patch)).not.toThrow();
    }
    const refusals: Array<[unknown, string]> = [
      [{ lazy: { manifest: { scripts: { 'release:notes': 'x' } } } }, '/lazy/manifest/scripts/release:notes'],
      [{ lazy: { manifest: { list: [{ 'a.b': 2 }] } } }, '/lazy/manifest/list/0/a.b'],
      [{ lazy: { manifest: { list: { '[0]': { 'c.d': 2 } } } } }, '/lazy/manifest/list/[0]/c.d'],
      [{ lazy: { 'has space': { 'x y': 2 } } }, '/lazy/has space/x y'],
    ];
    for (const [patch, at] of refusals) {
      expect(errorOf(() => validatePatchKeys(basis, patch), 'PATCH_INVALID').details, JSON.stringify(patch)).toMatchObject({ reason: 'unreachable-key', at });
    }
  });

  it('points into the caller input with the given prefix', () => {
    expect(errorOf(() => validatePatchKeys(undefined, { tactics: { 'a b': 1 } }, '/cwd'), 'PATCH_INVALID').details.at).toBe('/cwd/tactics/a b');
  });
});
