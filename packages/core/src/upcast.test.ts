import { describe, expect, it } from 'vitest';
import { freeze } from 'immer';
import type { JsonValue } from './json.js';
import { upcast, upcastOperationsProblem } from './upcast.js';
import type { UpcastFunction, UpcastOperation, UpcastResult } from './upcast.js';

const ok = (result: UpcastResult): JsonValue => {
  if (!result.ok) throw new Error(`expected ok, got ${result.reason} at ${result.op}: ${result.message}`);
  return result.value;
};

describe('upcast operations', () => {
  const state = freeze({ title: 'x', tags: 'a', items: [{ n: 1 }, { n: 2 }], meta: { keep: true, old: 1 } }, true);

  it('move, copy, remove, default, wrap, each: each does what the table says, in order', () => {
    const ops: UpcastOperation[] = [
      { op: 'move', from: '/title', path: '/header/title' },
      { op: 'copy', from: '/meta/keep', path: '/flags/on' },
      { op: 'remove', path: '/meta/old' },
      { op: 'default', path: '/meta/version', value: { major: 2 } },
      { op: 'default', path: '/meta/keep', value: false },
      { op: 'wrap', path: '/tags' },
      { op: 'wrap', path: '/meta/version/major', key: 'value' },
      { op: 'each', path: '/items', ops: [{ op: 'move', from: '/n', path: '/count' }, { op: 'default', path: '/unit', value: 'pcs' }] },
    ];
    expect(ok(upcast(state, ops))).toEqual({
      header: { title: 'x' },
      flags: { on: true },
      tags: ['a'],
      items: [{ count: 1, unit: 'pcs' }, { count: 2, unit: 'pcs' }],
      meta: { keep: true, version: { major: { value: 2 } } },
    });
  });

  it('never changes the input, shares untouched subtrees and freezes what it builds', () => {
    const before = JSON.stringify(state);
    const out = ok(upcast(state, [{ op: 'move', from: '/title', path: '/name' }])) as Record<string, JsonValue>;
    expect(JSON.stringify(state)).toBe(before);
    expect(out.items).toBe(state.items);
    expect(Object.isFrozen(out)).toBe(true);
    expect(out).not.toHaveProperty('title');
  });

  it('an absent source changes nothing (move, copy, remove, wrap, each)', () => {
    for (const op of [
      { op: 'move', from: '/nope', path: '/x' },
      { op: 'copy', from: '/a/b', path: '/x' },
      { op: 'remove', path: '/nope' },
      { op: 'wrap', path: '/nope' },
      { op: 'each', path: '/nope', ops: [{ op: 'remove', path: '/n' }] },
    ] as UpcastOperation[]) {
      expect(ok(upcast(state, [op]))).toBe(state);
    }
  });

  it('each over an object applies to every member value; "" is the member', () => {
    const out = ok(upcast({ byId: { a: 'x', b: 'y' } }, [{ op: 'each', path: '/byId', ops: [{ op: 'wrap', path: '', key: 'name' }] }]));
    expect(out).toEqual({ byId: { a: { name: 'x' }, b: { name: 'y' } } });
  });

  it('arrays: an index replaces, "-" or the length appends, removing closes the gap', () => {
    const base = { list: [1, 2, 3] };
    expect(ok(upcast(base, [{ op: 'copy', from: '/list/0', path: '/list/-' }]))).toEqual({ list: [1, 2, 3, 1] });
    expect(ok(upcast(base, [{ op: 'copy', from: '/list/0', path: '/list/3' }]))).toEqual({ list: [1, 2, 3, 1] });
    expect(ok(upcast(base, [{ op: 'move', from: '/list/0', path: '/first' }]))).toEqual({ list: [2, 3], first: 1 });
    const far = upcast(base, [{ op: 'copy', from: '/list/0', path: '/list/9' }]);
    expect(far).toMatchObject({ ok: false, op: '0', reason: 'pointer' });
  });

  it('keys such as __proto__ stay data', () => {
    const out = ok(upcast(JSON.parse('{"__proto__":{"a":1}}') as JsonValue, [{ op: 'move', from: '/__proto__/a', path: '/constructor' }])) as object;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.keys(out).sort()).toEqual(['__proto__', 'constructor']);
    expect(JSON.stringify(out)).toBe('{"__proto__":{},"constructor":1}');
  });

  it('fails closed with the operation index and a reason: through a scalar, each over a scalar', () => {
    expect(upcast({ a: 1 }, [{ op: 'default', path: '/b', value: 1 }, { op: 'default', path: '/a/x', value: 1 }])).toMatchObject({ ok: false, op: '1', reason: 'pointer' });
    expect(upcast({ a: [1] }, [{ op: 'each', path: '/a', ops: [{ op: 'default', path: '/x', value: 1 }] }])).toMatchObject({ ok: false, op: '0.0', reason: 'pointer' });
    expect(upcast({ a: 1 }, [{ op: 'each', path: '/a', ops: [] }])).toMatchObject({ ok: false, op: '0', reason: 'not-container' });
  });

  it('call: a registered function; missing, throwing or non-JSON fail closed', () => {
    const functions = new Map<string, UpcastFunction>([
      ['split', (v) => ({ ...(v as object), parts: String((v as { s: string }).s).split(',') })],
      ['boom', () => { throw new Error('no'); }],
      ['fn', () => (() => 1) as unknown as JsonValue],
    ]);
    expect(ok(upcast({ s: 'a,b' }, [{ op: 'call', fn: 'split' }], { functions }))).toEqual({ s: 'a,b', parts: ['a', 'b'] });
    expect(upcast({ s: 'a' }, [{ op: 'call', fn: 'split' }])).toMatchObject({ ok: false, op: '0', reason: 'missing-function' });
    expect(upcast({}, [{ op: 'call', fn: 'boom' }], { functions })).toMatchObject({ ok: false, reason: 'function-threw', message: expect.stringContaining('no') });
    expect(upcast({}, [{ op: 'call', fn: 'fn' }], { functions })).toMatchObject({ ok: false, reason: 'not-json' });
  });
});

describe('upcastOperationsProblem', () => {
  it('accepts the table and says what is wrong otherwise', () => {
    expect(upcastOperationsProblem([{ op: 'move', from: '/a', path: '/b' }, { op: 'each', path: '/l', ops: [{ op: 'wrap', path: '', key: 'k' }] }, { op: 'call', fn: 'f' }])).toBeNull();
    expect(upcastOperationsProblem({})).toMatch(/array/);
    expect(upcastOperationsProblem([{ op: 'rename', path: '/a' }])).toMatch(/upcast\[0\].*one of/);
    expect(upcastOperationsProblem([{ op: 'move', from: 'a', path: '/b' }])).toMatch(/from must be a JSON pointer/);
    expect(upcastOperationsProblem([{ op: 'remove', path: '' }])).toMatch(/root/);
    expect(upcastOperationsProblem([{ op: 'remove', path: '/a', extra: 1 }])).toMatch(/field "extra"/);
    expect(upcastOperationsProblem([{ op: 'default', path: '/a', value: { b: null } }])).toMatch(/without null/);
    expect(upcastOperationsProblem([{ op: 'each', path: '/a', ops: [{ op: 'call', fn: '' }] }])).toMatch(/upcast\[0\]\.ops\[0\]\.fn/);
    expect(upcastOperationsProblem([{ op: 'move', from: '/a~2', path: '/b' }])).toMatch(/pointer/);
  });
});
