import { describe, expect, it } from 'vitest';
import { seededRandom } from '@stateflow/test-kit';
import type { JsonObject, JsonValue } from './json.js';
import { applyPatch } from './patch-apply.js';
import { StateTree } from './state-tree.js';

const path = (...keys: string[]) => keys.map((key) => ({ kind: 'key' as const, key }));

describe('StateTree', () => {
  it('changes one key of a 100,000-key object 3,000 times (sets, deletions, keys added again) as a plain object mutated in place would', () => {
    const n = 100_000;
    const memory: Record<string, JsonValue> = {};
    for (let i = 0; i < n; i++) memory[`k${i}`] = `value ${i}`;
    // The reference: a plain object changed in place (the engine's own key order rules).
    const reference: Record<string, JsonValue> = { ...memory };
    let tree = StateTree.of({ lazy: { memory } });
    const random = seededRandom(7);
    for (let i = 0; i < 3_000; i++) {
      const key = random() < 0.1 ? String(Math.floor(random() * 50)) : `k${Math.floor(random() * (n + 100))}`;
      const value = random() < 0.2 ? null : `changed ${i}`;
      const { net, tree: next } = tree.change({ lazy: { memory: { [key]: value } } });
      const existed = Object.hasOwn(reference, key);
      if (value === null) delete reference[key];
      else reference[key] = value;
      expect(Object.keys(net).length === 0).toBe(value === null ? !existed : false);
      tree = next;
      if (i % 500 === 0) expect(tree.valueAt(path('lazy', 'memory', key))).toBe(value ?? undefined);
      if (i === 1_500) expect(JSON.stringify(tree.state())).toBe(JSON.stringify({ lazy: { memory: reference } }));
    }
    const state = tree.state();
    expect(JSON.stringify(state)).toBe(JSON.stringify({ lazy: { memory: reference } }));
    expect(Object.isFrozen((state.lazy as JsonObject).memory)).toBe(true);
    expect(tree.state()).toBe(state);
  });

  it('valueAt and kindAt read one path and build nothing else; state() is the plain state', () => {
    const tree = StateTree.of({ lazy: { memory: { a: [1, { b: 2 }] } }, plan: 'x' }).change({ lazy: { memory: { c: 3 } } }).tree;
    expect(tree.valueAt([...path('lazy', 'memory', 'a'), { kind: 'index', index: 1 }, ...path('b')])).toBe(2);
    expect(tree.valueAt([...path('lazy', 'memory', 'a'), { kind: 'index', index: 2 }])).toBeUndefined();
    expect(tree.valueAt(path('plan', 'deeper'))).toBeUndefined();
    expect(tree.valueAt(path('toString'))).toBeUndefined();
    expect(tree.kindAt(path('lazy', 'memory', 'a'))).toBe('array');
    expect(tree.kindAt(path('absent'))).toBeUndefined();
    expect(tree.state()).toEqual(applyPatch({ lazy: { memory: { a: [1, { b: 2 }] } }, plan: 'x' }, { lazy: { memory: { c: 3 } } }));
  });

  it('change gives the same tree when nothing changes, and fails without producing anything', () => {
    const tree = StateTree.of({ a: { b: 1 } });
    const same = tree.change({ a: { b: 1 }, gone: null });
    expect(same.net).toEqual({});
    expect(same.tree).toBe(tree);
    expect(() => tree.change({ a: { '[0]': 1 } })).toThrow(expect.objectContaining({ code: 'PATCH_INVALID', details: expect.objectContaining({ reason: 'index-on-non-array' }) }));
    expect(() => tree.change({ fresh: {} }, { emptyObjects: 'refuse' })).toThrow(expect.objectContaining({ details: expect.objectContaining({ reason: 'empty-object' }) }));
    expect(tree.state()).toEqual({ a: { b: 1 } });
  });

  it('outline leaves out the large objects outside arrays, keeps key order and __proto__, and returns plain subtrees as they are', () => {
    const big = Object.fromEntries(Array.from({ length: 70 }, (_, i) => [`k${i}`, i]));
    const plain = { x: 1, list: [{ big }] };
    const state = JSON.parse(JSON.stringify({ z: 0, plain, lazy: { memory: big, small: { a: 1 } }, 2: 'two' }).replace('"z":0', '"z":0,"__proto__":{"p":1}')) as JsonObject;
    let tree = StateTree.of(state);
    tree = tree.apply({ lazy: { memory: { k3: 'three', added: true }, extra: big } });
    const { root, large } = tree.outline(64);
    expect(large).toEqual([
      { path: ['lazy', 'memory'], size: 71 },
      { path: ['lazy', 'extra'], size: 70 },
    ]);
    expect(JSON.stringify(root)).toBe(`{"2":"two","z":0,"__proto__":{"p":1},"plain":${JSON.stringify(plain)},"lazy":{"memory":{},"small":{"a":1},"extra":{}}}`);
    expect(Object.prototype.hasOwnProperty.call(root, '__proto__')).toBe(true);
    expect(root.plain).toBe(tree.state().plain);
    expect(Object.isFrozen(root) && Object.isFrozen(root.lazy)).toBe(true);
    expect(tree.outline(100)).toEqual({ root: tree.state(), large: [] });
    const lazy = [{ kind: 'key', key: 'lazy' }] as const;
    expect(tree.membersAt([...lazy, { kind: 'key', key: 'memory' }], ['k3', 'added', 'absent', 'k4'])).toEqual(['three', true, undefined, 4]);
    expect(tree.membersAt([{ kind: 'key', key: 'z' }], ['a'])).toEqual([undefined]);
  });

  it('outline keeps a root of many members and looks for large objects inside it', () => {
    const big = Object.fromEntries(Array.from({ length: 70 }, (_, i) => [`k${i}`, i]));
    const tree = StateTree.of({ ...big, inner: big });
    const { root, large } = tree.outline(64);
    expect(large).toEqual([{ path: ['inner'], size: 70 }]);
    expect(root).toEqual({ ...big, inner: {} });
    expect(StateTree.of(big).outline(64)).toEqual({ root: big, large: [] });
  });
});
