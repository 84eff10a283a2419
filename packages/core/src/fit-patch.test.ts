import { describe, expect, it } from 'vitest';
import { applyPatch } from './patch-apply.js';
import { fitPatch } from './fit-patch.js';

describe('fitPatch', () => {
  it('returns the patch itself when it applies whole', () => {
    const patch = { a: { '[0]': 2 }, b: { c: null, d: [1] } };
    expect(fitPatch({ a: [1], b: { c: 1 } }, patch)).toBe(patch);
  });

  it('leaves out indexed writes whose element is missing, and objects left empty by that', () => {
    expect(fitPatch({ a: [1] }, { a: { '[0]': 2, '[3]': 4 }, b: 1 })).toEqual({ a: { '[0]': 2 }, b: 1 });
    expect(fitPatch({ a: [1] }, { a: { '[3]': 4 } })).toEqual({});
    expect(fitPatch({ a: 'x' }, { a: { '[0]': 4 }, z: null })).toEqual({ z: null });
    expect(fitPatch({}, { n: { m: { '[0]': 1 }, k: 2 } })).toEqual({ n: { k: 2 } });
    expect(fitPatch({ l: [[1], [2, 3]] }, { l: { '[0]': { '[1]': 5 }, '[1]': { '[1]': 6 } } })).toEqual({ l: { '[1]': { '[1]': 6 } } });
  });

  it('gives a patch that applies', () => {
    const state = { a: [1], o: { x: 1 } };
    const fitted = fitPatch(state, { a: { '[2]': 9 }, o: { y: 2 } });
    expect(applyPatch(state, fitted)).toEqual({ a: [1], o: { x: 1, y: 2 } });
    expect(Object.isFrozen(fitted)).toBe(true);
  });
});
