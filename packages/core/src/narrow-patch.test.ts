import { describe, expect, it } from 'vitest';
import { diff } from './diff.js';
import type { JsonObject, JsonValue } from './json.js';
import type { PatchPathStep } from './narrow-patch.js';
import { BECAME_EMPTY_OBJECT, applyNarrowedPatch, narrowPatch } from './narrow-patch.js';
import { netPatch } from './net-patch.js';
import { applyPatch } from './patch-apply.js';

/** Path steps from a compact text such as `lazy.memory.[1]` (test convenience only). */
function steps(text: string): PatchPathStep[] {
  if (text === '') return [];
  return text.split('.').map((part) => {
    const index = /^\[(\d+)\]$/.exec(part);
    return index ? { kind: 'index', index: Number(index[1]) } : { kind: 'key', key: part };
  });
}

function valueAt(value: JsonValue | undefined, path: PatchPathStep[]): JsonValue | undefined {
  let here = value;
  for (const step of path) {
    if (step.kind === 'key') here = here !== null && typeof here === 'object' && !Array.isArray(here) && Object.hasOwn(here, step.key) ? here[step.key] : undefined;
    else here = Array.isArray(here) ? here[step.index] : undefined;
  }
  return here;
}

const memory = ['first thought', 'second thought', 'third thought'];
const before: JsonObject = {
  lazy: { memory, plan: { steps: ['a', 'b'], owner: 'me' }, gone: 'x', groups: [{ notes: ['n0', 'n1'] }] },
  tactics: { next: 'read' },
};

describe('narrowPatch: the seed "patch" projection shapes', () => {
  const cases: Array<[string, JsonObject, string, JsonValue]> = [
    ['an indexed change', { lazy: { memory: { '[1]': 'corrected thought' } } }, 'lazy.memory', { '[1]': 'corrected thought' }],
    [
      'a whole-array replacement',
      { lazy: { memory: ['new first thought', 'new second thought'] } },
      'lazy.memory',
      ['new first thought', 'new second thought'],
    ],
    ['no change at the selected path', { tactics: { next: 'write' } }, 'lazy.memory', {}],
    ['deletion of the selected key', { lazy: { gone: null } }, 'lazy.gone', null],
    ['deletion through an enclosing key', { lazy: { plan: null } }, 'lazy.plan.owner', null],
    ['a recursive object patch', { lazy: { plan: { owner: 'you' } } }, 'lazy.plan', { owner: 'you' }],
    ['a created value', { lazy: { fresh: { k: [1] } } }, 'lazy.fresh', { k: [1] }],
    ['an element of an indexed change', { lazy: { memory: { '[1]': 'corrected thought' } } }, 'lazy.memory.[1]', 'corrected thought'],
    ['an untouched element of an indexed change', { lazy: { memory: { '[1]': 'corrected thought' } } }, 'lazy.memory.[0]', {}],
    ['nested indexed addressing', { lazy: { groups: { '[0]': { notes: { '[1]': 'fixed' } } } } }, 'lazy.groups.[0].notes', { '[1]': 'fixed' }],
    ['the whole patch at the root', { tactics: { next: 'write' } }, '', { tactics: { next: 'write' } }],
    ['inside a wholesale array replacement: changed element', { lazy: { memory: ['x', 'second thought'] } }, 'lazy.memory.[0]', 'x'],
    ['inside a wholesale array replacement: unchanged element', { lazy: { memory: ['x', 'second thought'] } }, 'lazy.memory.[1]', {}],
    ['inside a wholesale array replacement: removed element', { lazy: { memory: ['x'] } }, 'lazy.memory.[2]', null],
    ['inside a replaced object: precise sub-patch', { lazy: { plan: ['now', 'a list'] } }, 'lazy.plan.steps', null],
    ['an untouched path that exists nowhere', { tactics: { next: 'write' } }, 'lazy.nowhere', {}],
    ['an object patch over an array reads index steps as removed', { lazy: { memory: { kind: 'object now' } } }, 'lazy.memory.[0]', null],
  ];

  it.each(cases)('%s', (_name, patch, pathText, expected) => {
    const path = steps(pathText);
    const old = valueAt(before, path);
    const narrowed = narrowPatch(patch, path, old);
    expect(narrowed).toEqual(expected);
    // Applying the narrowed patch to the old value there gives the new value there.
    const after = applyPatch(before, patch);
    expect(applyNarrowedPatch(old, narrowed)).toEqual(valueAt(after, path));
  });

  it('descends into a wholesale replacement with a precise sub-patch', () => {
    const patch = { lazy: { plan: { steps: ['a', 'B'], owner: 'me' } } };
    const net = netPatch({ lazy: { plan: 'text' } }, patch);
    expect(net).toEqual(patch);
    const replaced = { lazy: { plan: { steps: ['a', 'B', 'c'] } } };
    expect(narrowPatch(replaced, steps('lazy.plan.steps'), ['a', 'b'])).toEqual(['a', 'B', 'c']);
    const sameLength = { lazy: [{ steps: ['a', 'B'] }] };
    expect(narrowPatch(sameLength, steps('lazy.[0]'), { steps: ['a', 'b'], owner: 'me' })).toEqual({
      owner: null,
      steps: { '[1]': 'B' },
    });
  });

  it('works on diff output', () => {
    const after = applyPatch(before, { lazy: { plan: { steps: ['a', 'c'] }, memory: { '[2]': 'third' } } });
    const d = diff(before, after);
    expect(narrowPatch(d, steps('lazy.plan.steps'), ['a', 'b'])).toEqual({ '[1]': 'c' });
    expect(narrowPatch(d, steps('lazy.memory'), memory)).toEqual({ '[2]': 'third' });
    expect(narrowPatch(d, steps('tactics'), before.tactics)).toEqual({});
  });

  it('ignores extra step fields such as a parser column', () => {
    const path = [
      { kind: 'key', key: 'lazy', column: 1 },
      { kind: 'key', key: 'memory', column: 6 },
    ] as const;
    expect(narrowPatch({ lazy: { memory: { '[0]': 'x' } } }, path, memory)).toEqual({ '[0]': 'x' });
  });

  describe('seed "Projections › patch": { "patch": {} } is only "No change to the selected path at that boundary"', () => {
    // A value that became `{}` where no object was: an element of an array written whole, or
    // history written with RFC 7396's reading (emptyObjects: 'create').
    const becameEmpty: Array<[string, JsonObject, string, JsonValue | undefined]> = [
      ['an array element changed from 1 to {}', { a: [{}, 2] }, 'a.[0]', 1],
      ['an array element changed from ["x"] to {}', { a: [{}] }, 'a.[0]', ['x']],
      ['an array element appended as {}', { a: [1, {}] }, 'a.[1]', undefined],
      ['a member of an element changed from 5 to {}', { a: [{ b: {} }] }, 'a.[0].b', 5],
      ['an indexed element changed from 1 to {} (a diff of the array)', { a: { '[0]': {} } }, 'a.[0]', 1],
      ['an empty object created where nothing was', { lazy: { fresh: {} } }, 'lazy.fresh', undefined],
      ['a scalar replaced by {}', { lazy: { gone: {} } }, 'lazy.gone', 'x'],
      ['a scalar replaced by {} through a deletion-only patch', { lazy: { gone: { y: null } } }, 'lazy.gone', 'x'],
    ];
    it.each(becameEmpty)('%s reads {"": null}, which applied to the old value gives {}', (_name, patch, pathText, old) => {
      const narrowed = narrowPatch(patch, steps(pathText), old);
      expect(narrowed).toEqual({ '': null });
      expect(narrowed).toBe(BECAME_EMPTY_OBJECT);
      expect(applyNarrowedPatch(old, narrowed)).toEqual({});
    });

    it('an element that was {} and stays {} reads { "patch": {} }; an object emptied by deletions reads its deletions', () => {
      expect(narrowPatch({ a: [{}, 3] }, steps('a.[0]'), {})).toEqual({});
      expect(narrowPatch({ a: [{}] }, steps('a.[0]'), { k: 1 })).toEqual({ k: null });
      expect(narrowPatch({ a: { k: null } }, steps('a'), { k: 1 })).toEqual({ k: null });
    });
  });

  it('applyNarrowedPatch reads each shape', () => {
    expect(applyNarrowedPatch('old', null)).toBeUndefined();
    expect(applyNarrowedPatch('old', {})).toBe('old');
    expect(applyNarrowedPatch(['a', 'b'], { '[1]': 'B' })).toEqual(['a', 'B']);
    expect(applyNarrowedPatch({ a: 1, b: 2 }, { a: null, c: 3 })).toEqual({ b: 2, c: 3 });
    expect(applyNarrowedPatch(undefined, { c: 3 })).toEqual({ c: 3 });
    expect(applyNarrowedPatch({ a: 1 }, ['x'])).toEqual(['x']);
    expect(() => applyNarrowedPatch('text', { '[0]': 'x' })).toThrow(expect.objectContaining({ code: 'PATCH_INVALID' }));
  });

  it('rejects range steps', () => {
    const range = { kind: 'range', start: 0, end: 1 } as unknown as PatchPathStep;
    expect(() => narrowPatch({ a: 1 }, [range], undefined)).toThrow(
      expect.objectContaining({ code: 'INPUT_INVALID', details: { field: 'path', reason: 'range-step' } }),
    );
  });
});
