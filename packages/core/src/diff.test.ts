import { describe, expect, it } from 'vitest';
import { diff } from './diff.js';
import type { JsonObject } from './json.js';
import { applyPatch } from './patch-apply.js';

describe('diff', () => {
  it.each<[string, JsonObject, JsonObject, JsonObject]>([
    ['equal documents', { a: 1, b: { c: [1, 2] } }, { a: 1, b: { c: [1, 2] } }, {}],
    ['key order is ignored', { a: 1, b: { c: 1, d: 2 } }, { b: { d: 2, c: 1 }, a: 1 }, {}],
    ['4.0 and 4 are equal', { n: 4 }, { n: 4.0 }, {}],
    ['deleted keys become null', { a: 1, b: 2 }, { b: 2 }, { a: null }],
    ['added and changed keys', { a: 1 }, { a: 2, b: { c: 3 } }, { a: 2, b: { c: 3 } }],
    ['recursive over objects', { p: { q: { r: 1, s: 2 } } }, { p: { q: { r: 1, s: 3 } } }, { p: { q: { s: 3 } } }],
    ['same-length arrays use "[N]" keys', { m: ['a', 'b', 'c'] }, { m: ['a', 'B', 'c'] }, { m: { '[1]': 'B' } }],
    [
      'object elements get a recursive patch',
      { g: [{ t: 'x', n: [1, 2] }, { t: 'y' }] },
      { g: [{ t: 'x', n: [1, 3] }, { u: 1 }] },
      { g: { '[0]': { n: { '[1]': 3 } }, '[1]': { t: null, u: 1 } } },
    ],
    ['a changed element kind is replaced', { g: [{ t: 'x' }, 'y'] }, { g: ['x', { t: 'y' }] }, { g: { '[0]': 'x', '[1]': { t: 'y' } } }],
    ['different-length arrays replace whole', { m: ['a', 'b'] }, { m: ['a', 'b', 'c'] }, { m: ['a', 'b', 'c'] }],
    ['a kind change replaces', { a: { b: 1 }, c: [1] }, { a: [1], c: { d: 1 } }, { a: [1], c: { d: 1 } }],
    ['an emptied object deletes its keys', { a: { b: 1 } }, { a: {} }, { a: { b: null } }],
  ])('%s', (_name, before, after, expected) => {
    const patch = diff(before, after);
    expect(patch).toEqual(expected);
    if (Object.keys(patch).length > 0) expect(applyPatch(before, patch)).toEqual(after);
    expect(Object.isFrozen(patch)).toBe(true);
  });

  it('keeps "__proto__" as a data key', () => {
    const after = JSON.parse('{"__proto__": {"x": [1]}}') as JsonObject;
    const patch = diff({}, after);
    expect(JSON.stringify(patch)).toBe('{"__proto__":{"x":[1]}}');
    expect(Object.getPrototypeOf(patch)).toBe(Object.prototype);
  });
});
