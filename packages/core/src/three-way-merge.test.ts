import { describe, expect, it } from 'vitest';
import type { JsonObject } from './json.js';
import { conflictKind } from './merge-conflict.js';
import type { MergeConflict } from './merge-conflict.js';
import { threeWayMerge } from './three-way-merge.js';
import { errorOf } from '@stateflow/test-kit';

function expectCode(work: () => unknown, code: string, details: Record<string, unknown>): void {
  expect(errorOf(work, code).details).toMatchObject(details);
}

type Case = [name: string, base: JsonObject, ours: JsonObject, theirs: JsonObject, merged: JsonObject, conflicts: MergeConflict[]];

describe('threeWayMerge', () => {
  it.each<Case>([
    ['nothing changed', { a: 1 }, { a: 1 }, { a: 1 }, { a: 1 }, []],
    ['only theirs changed', { a: 1, b: 2 }, { a: 1, b: 2 }, { a: 5, b: 2, c: 3 }, { a: 5, b: 2, c: 3 }, []],
    ['only ours changed', { a: 1 }, { a: 2 }, { a: 1 }, { a: 2 }, []],
    ['the same change on both sides', { a: 1 }, { a: 2, n: { x: [1] } }, { n: { x: [1] }, a: 2 }, { a: 2, n: { x: [1] } }, []],
    ['a deletion on one side', { a: 1, b: 2 }, { a: 1, b: 2 }, { a: 1 }, { a: 1 }, []],
    ['deleted on both sides', { a: 1, b: 2 }, { a: 1 }, { a: 1 }, { a: 1 }, []],
    ['disjoint keys of one object, at depth', { n: { m: { x: 1, y: 1 } } }, { n: { m: { x: 2, y: 1 } } }, { n: { m: { x: 1, y: 3 } } }, { n: { m: { x: 2, y: 3 } } }, []],
    ['a scalar changed differently', { a: 1 }, { a: 2 }, { a: 3 }, { a: 2 }, [{ path: '/a', base: 1, ours: 2, theirs: 3 }]],
    ['added differently on both sides', {}, { a: 'x' }, { a: 'y' }, { a: 'x' }, [{ path: '/a', base: null, ours: 'x', theirs: 'y' }]],
    [
      'deleted by ours, set inside by theirs: a conflict at the outer path',
      { a: { b: 1, c: 2 } },
      {},
      { a: { b: 5, c: 2 } },
      {},
      [{ path: '/a', base: { b: 1, c: 2 }, ours: null, theirs: { b: 5, c: 2 } }],
    ],
    ['a scalar against a changed object', { a: { b: 1 } }, { a: 7 }, { a: { b: 2 } }, { a: 7 }, [{ path: '/a', base: { b: 1 }, ours: 7, theirs: { b: 2 } }]],
    [
      'one array changed differently: a conflict at the array',
      { list: [1, 2, 3] },
      { list: [1, 2, 3, 4] },
      { list: [0, 2, 3] },
      { list: [1, 2, 3, 4] },
      [{ path: '/list', base: [1, 2, 3], ours: [1, 2, 3, 4], theirs: [0, 2, 3] }],
    ],
    ['an array changed on one side only', { list: [1, 2] }, { list: [1, 2] }, { list: [2, 1] }, { list: [2, 1] }, []],
    ['objects created on both sides merge by key', { a: 5 }, { a: { x: 1 } }, { a: { y: 2 } }, { a: { x: 1, y: 2 } }, []],
    ['an object emptied on one side, a key added on the other', { a: { x: 1 } }, { a: {} }, { a: { x: 1, y: 2 } }, { a: { y: 2 } }, []],
    ['emptied on one side, deleted on the other', { a: { x: 1 } }, { a: {} }, {}, { a: {} }, [{ path: '/a', base: { x: 1 }, ours: {}, theirs: null }]],
    ['key order is not a change', { a: { x: 1, y: 2 } }, { a: { y: 2, x: 1 } }, { a: { x: 1, y: 3 } }, { a: { y: 3, x: 1 } }, []],
    ['"/" and "~" in keys are escaped in the pointer', { 'a/b': { '~c': 1 } }, { 'a/b': { '~c': 2 } }, { 'a/b': { '~c': 3 } }, { 'a/b': { '~c': 2 } }, [{ path: '/a~1b/~0c', base: 1, ours: 2, theirs: 3 }]],
  ])('%s', (_name, base, ours, theirs, merged, conflicts) => {
    const result = threeWayMerge(base, ours, theirs);
    expect(result.merged).toEqual(merged);
    expect(result.conflicts).toEqual(conflicts);
    expect(Object.isFrozen(result.merged)).toBe(true);
  });

  it('keeps ours itself when nothing of theirs is taken, and shares unchanged subtrees', () => {
    const ours = { a: { deep: [1] }, b: 1 };
    expect(threeWayMerge({ b: 0 }, ours, { b: 0 }).merged).toBe(ours);
    const merged = threeWayMerge({ b: 0 }, ours, { b: 0, c: 1 }).merged;
    expect(merged.a).toBe(ours.a);
  });

  it('keeps __proto__ as a data key', () => {
    const theirs = JSON.parse('{"__proto__": {"x": 1}}') as JsonObject;
    const { merged } = threeWayMerge({}, {}, theirs);
    expect(JSON.stringify(merged)).toBe('{"__proto__":{"x":1}}');
    expect(Object.getPrototypeOf(merged)).toBe(Object.prototype);
  });

  it('settles conflicts by resolve and prefer, and records how', () => {
    const base = { a: 1, b: 1, c: 1, d: { x: 1 } };
    const ours = { a: 2, b: 2, c: 2, d: { x: 1, y: 1 } };
    const theirs = { a: 3, b: 3, c: 3 };
    const { merged, conflicts } = threeWayMerge(base, ours, theirs, { resolve: { '/a': 'theirs', '/b': { value: ['both'] }, '/d': { value: null } }, prefer: 'ours' });
    expect(merged).toEqual({ a: 3, b: ['both'], c: 2 });
    expect(conflicts.map((c) => [c.path, c.resolution])).toEqual([['/a', 'theirs'], ['/b', { value: ['both'] }], ['/c', 'ours'], ['/d', { value: null }]]);
    expect(threeWayMerge(base, ours, theirs, { prefer: 'theirs' }).merged).toEqual({ a: 3, b: 3, c: 3 });
  });

  it('only: visits the paths a patch writes and keeps ours everywhere else', () => {
    const ours = { keep: { deep: [1] }, n: { a: 2, b: 1 } };
    const { merged, conflicts } = threeWayMerge({ keep: 'ignored', n: { a: 1, b: 1 } }, ours, { keep: 'ignored too', n: { a: 0, b: 1 } }, { only: { n: { a: 1 } } });
    expect(merged).toEqual({ keep: { deep: [1] }, n: { a: 2, b: 1 } });
    expect(conflicts).toEqual([{ path: '/n/a', base: 1, ours: 2, theirs: 0 }]);
    expect(merged['keep']).toBe(ours.keep);
  });

  it('taking a side that deleted the value deletes it', () => {
    const { merged } = threeWayMerge({ a: { x: 1 } }, { a: { x: 2 } }, {}, { resolve: { '/a': 'theirs' } });
    expect(merged).toEqual({});
  });

  it('refuses resolutions it cannot use', () => {
    const base = { a: 1 };
    const ours = { a: 2 };
    const theirs = { a: 3 };
    expectCode(() => threeWayMerge(base, ours, theirs, { resolve: { '/b': 'ours' } }), 'INPUT_INVALID', { field: 'resolve', reason: 'not-a-conflict' });
    expect(threeWayMerge(base, ours, theirs, { resolve: { '/b': 'ours', '/a': 'theirs' }, unusedResolutions: 'ignore' }).merged).toEqual({ a: 3 });
    expectCode(() => threeWayMerge(base, ours, theirs, { resolve: { '/a': 'mine' as 'ours' } }), 'INPUT_INVALID', { field: 'resolve', reason: 'bad-resolution' });
    expectCode(() => threeWayMerge(base, ours, theirs, { resolve: { '/a': { value: [1, null] } } }), 'INPUT_INVALID', { field: 'resolve', reason: 'null-in-value' });
    expectCode(() => threeWayMerge(base, ours, theirs, { resolve: { '/a': { value: { k: null } } } }), 'INPUT_INVALID', { field: 'resolve', reason: 'null-in-value' });
    expectCode(() => threeWayMerge(base, ours, theirs, { resolve: { '/a': { value: { '[0]': 1 } } } }), 'INPUT_INVALID', { field: 'resolve', reason: 'index-key-in-value' });
    expectCode(() => threeWayMerge(base, ours, theirs, { resolve: { '/a': { value: Number.NaN } } }), 'INPUT_INVALID', { field: 'resolve', reason: 'not-json' });
    expectCode(() => threeWayMerge(base, ours, theirs, { resolve: [] as never }), 'INPUT_INVALID', { field: 'resolve', reason: 'not-object' });
    expectCode(() => threeWayMerge(base, ours, theirs, { prefer: 'both' as 'ours' }), 'INPUT_INVALID', { field: 'prefer' });
  });

  it('names each conflict the way git status does', () => {
    expect(conflictKind({ base: null, ours: 1, theirs: 2 })).toBe('both-added');
    expect(conflictKind({ base: 1, ours: null, theirs: 2 })).toBe('deleted-by-ours');
    expect(conflictKind({ base: 1, ours: 2, theirs: null })).toBe('deleted-by-theirs');
    expect(conflictKind({ base: 1, ours: 2, theirs: 3 })).toBe('both-modified');
  });
});
