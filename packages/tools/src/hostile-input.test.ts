/**
 * Hostile in-process inputs at the tools boundary (test/harness/README.md "Bad-input fuzz"): every public
 * entry point (createRuntime, readState, patchState, baseline) rejects values JSON cannot hold
 * with a StateflowError and a stable code, and publishes nothing. Both backends.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_PATCH_DEPTH, isStateflowError } from '@stateflow/core';
import { createRuntime } from './runtime.js';
import type { Runtime, RuntimeOptions } from './runtime.js';
import { backends, memoryBackend, dump } from '../test-support/stores.js';
import type { TestStore } from '../test-support/stores.js';
import { rejectionOf, storePerTest } from '@stateflow/test-kit';

const ALL = { global: true, cwd: '/repo', session: 's1', mode: 'active' } as const;

function cyclic(): Record<string, unknown> {
  const o: Record<string, unknown> = { a: 1 };
  o.self = o;
  return o;
}

function nested(depth: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
}

class Point {
  x = 1;
}

describe.each(backends)('hostile tool inputs ($name)', (backend) => {
  let ts: TestStore;
  let rt: Runtime;
  let before: unknown;
  storePerTest(backend, { beforeEach, afterEach }, async (opened) => {
    ts = opened;
    rt = createRuntime({ store: ts.store, selection: ALL });
    await rt.patchState({ patch: { session: { tactics: { next: 'x' } } } });
    before = await dump(ts.store);
    expect(ts.store.lastSeq()).toBe(1);
  });
  // Registered after the store's hooks, so it runs before the store is destroyed.
  afterEach(async () => {
    expect(await dump(ts.store)).toEqual(before);
  });

  // [name, value, reason, message text, location of the problem inside the value]
  const values: Array<[string, unknown, string, string, string?]> = [
    ['a BigInt', 12n, 'not-json', 'a bigint is not a JSON value'],
    ['a function', () => 1, 'not-json', 'a function is not a JSON value'],
    ['a symbol', Symbol('s'), 'not-json', 'a symbol is not a JSON value'],
    ['undefined', undefined, 'not-json', 'a undefined is not a JSON value'],
    ['NaN', Number.NaN, 'not-json', 'NaN is not a JSON number'],
    ['Infinity', Infinity, 'not-json', 'Infinity is not a JSON number'],
    ['a cycle', cyclic(), 'not-json', 'the value contains a cycle', '.self'],
    ['a Date', new Date(0), 'not-json', 'an instance of Date is not a plain JSON object'],
    ['a Map', new Map([['a', 1]]), 'not-json', 'an instance of Map is not a plain JSON object'],
    ['a class instance', new Point(), 'not-json', 'an instance of Point is not a plain JSON object'],
    ['a sparse array', [, 1], 'not-json', 'a sparse array (hole) is not JSON', '.0'],
    ['a lone surrogate', 'a\ud800b', 'not-json', 'a string with a lone surrogate is not valid Unicode text'],
  ];

  it.each(values)('patch_state rejects %s inside a plane with INPUT_INVALID', async (_, value, reason, text, inside = '') => {
    const err = await rejectionOf(rt.patchState({ patch: { session: { tactics: { bad: value } } } }), 'INPUT_INVALID');
    expect(err.details).toEqual({ field: `patch.session.tactics.bad${inside}`, reason });
    expect(err.message).toContain(text);
  });

  it.each(values)('patch_state rejects %s as a whole scope patch with INPUT_INVALID', async (_, value, reason, _text, inside = '') => {
    const err = await rejectionOf(rt.patchState({ patch: { cwd: value } }), 'INPUT_INVALID');
    expect(err.details).toEqual({ field: `patch.cwd${inside}`, reason });
  });

  it.each(values)('read_state rejects %s as a path with INPUT_INVALID', async (_, value, reason, _text, inside = '') => {
    const err = await rejectionOf(rt.readState({ paths: ['session', value] }), 'INPUT_INVALID');
    expect(err.details).toEqual({ field: `paths.1${inside}`, reason });
  });

  it('rejects a lone-surrogate key and a symbol-keyed member (JSON.stringify would drop it silently)', async () => {
    const err = await rejectionOf(rt.patchState({ patch: { session: { tactics: { '\udc00': 1 } } } }), 'INPUT_INVALID');
    expect(err.details).toEqual({ field: 'patch.session.tactics.\udc00', reason: 'not-json' });
    const symbolic = await rejectionOf(rt.patchState({ patch: { session: { tactics: { [Symbol('k')]: 1, ok: 1 } } } }), 'INPUT_INVALID');
    expect(symbolic.details).toEqual({ field: 'patch.session.tactics', reason: 'not-json' });
    expect(symbolic.message).toContain('a symbol-keyed member (Symbol(k)) is not JSON');
  });

  it('reads the input once: a getter runs once and later mutation changes nothing stored', async () => {
    let reads = 0;
    const tactics = {};
    Object.defineProperty(tactics, 'next', { enumerable: true, get: () => (reads++ === 0 ? 'first' : 'second') });
    const input = { patch: { session: { tactics } } };
    await rt.patchState(input);
    expect(reads).toBe(1);
    expect(await rt.readState({ path: 'session.tactics.next' })).toEqual({ value: 'first' });
    before = await dump(ts.store);
  });

  it('rejects nesting deeper than MAX_PATCH_DEPTH and accepts it at the bound', async () => {
    const deep = await rejectionOf(rt.patchState({ patch: { session: { lazy: nested(5000) } } }), 'INPUT_INVALID');
    expect(deep.details.reason).toBe('too-deep');
    const huge = await rejectionOf(rt.readState({ path: 'session', projection: nested(100_000) }), 'INPUT_INVALID');
    expect(huge.details.reason).toBe('too-deep');
    // input (1) → patch (2) → session (3) → lazy (4): MAX_PATCH_DEPTH - 4 more levels still fit.
    await rt.patchState({ patch: { session: { lazy: nested(MAX_PATCH_DEPTH - 4) } } });
    before = await dump(ts.store);
  });

  it('a throwing getter is INPUT_INVALID with the thrown error as cause', async () => {
    const boom = new Error('getter exploded');
    const input = { patch: { session: {} } };
    Object.defineProperty(input.patch.session, 'tactics', { enumerable: true, get: () => { throw boom; } });
    let caught: unknown;
    await rt.patchState(input).catch((err: unknown) => (caught = err));
    expect(isStateflowError(caught, 'INPUT_INVALID')).toBe(true);
    expect((caught as Error).cause).toBe(boom);
  });

  it('keys __proto__, constructor and prototype are data: stored, read back, nothing polluted', async () => {
    const patch = JSON.parse('{"session": {"lazy": {"__proto__": {"polluted": 1}, "constructor": {"prototype": 2}}}}') as unknown;
    await rt.patchState({ patch });
    expect(await rt.readState({ path: 'session.lazy' })).toEqual({ value: JSON.parse('{"__proto__": {"polluted": 1}, "constructor": {"prototype": 2}}') });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    before = await dump(ts.store);
  });

  it('a 1 MB path fails with PATH_SYNTAX at column 4097 and a bounded message, never echoed in full', async () => {
    const huge = `session.lazy.${'x'.repeat(1_000_000)}`;
    for (const input of [{ path: huge }, { paths: ['session', huge] }, { path: huge, projection: 'keys' }]) {
      const err = await rejectionOf(rt.readState(input), 'PATH_SYNTAX');
      expect(err.details.column).toBe(4097);
      expect(JSON.stringify(err.details).length).toBeLessThan(300);
      expect(err.message.length).toBeLessThan(300);
      expect(err.message).toMatch(/^Invalid path "session\.lazy\.x+…x+" at column 4097: path is longer than 4096 characters\.$/);
    }
    const missing = `session.lazy.${'y'.repeat(4000)}`;
    const notFound = await rejectionOf(rt.readState({ path: missing }), 'PATH_NOT_FOUND');
    expect(notFound.message.length).toBeLessThan(700);
    const unselected = createRuntime({ store: ts.store, selection: { cwd: '/repo', mode: 'active' } });
    const owner = await rejectionOf(unselected.readState({ path: missing }), 'OWNER_NOT_SELECTED');
    expect(owner.message.length).toBeLessThan(500);
    expect((owner.details.path as string).length).toBe(200);
  });

  it('non-string paths and projections are INPUT_INVALID', async () => {
    expect((await rejectionOf(rt.readState({ path: 12 }), 'INPUT_INVALID')).details.field).toBe('path');
    expect((await rejectionOf(rt.readState({ paths: 'session' }), 'INPUT_INVALID')).details.field).toBe('paths');
    expect((await rejectionOf(rt.readState({ path: 'session', projection: 1 }), 'INPUT_INVALID')).details.field).toBe('projection');
    await rejectionOf(rt.readState(null), 'INPUT_INVALID');
    await rejectionOf(rt.patchState([{ patch: {} }]), 'INPUT_INVALID');
  });
});

describe('createRuntime options', () => {
  let ts: TestStore;
  storePerTest(memoryBackend, { beforeEach, afterEach }, (opened) => {
    ts = opened;
  });

  const bad = (options: unknown): RuntimeOptions => options as RuntimeOptions;

  it.each<[string, (store: TestStore['store']) => unknown, string]>([
    ['no options', () => undefined, 'INPUT_INVALID'],
    ['a store that is not a store', () => ({ store: {}, selection: ALL }), 'INPUT_INVALID'],
    ['a non-object selection', (store) => ({ store, selection: 'global' }), 'INPUT_INVALID'],
    ['a BigInt mode', (store) => ({ store, selection: { global: true, mode: 1n } }), 'INPUT_INVALID'],
    ['a numeric cwd', (store) => ({ store, selection: { cwd: 7, mode: 'active' } }), 'INPUT_INVALID'],
    ['a symbol session', (store) => ({ store, selection: { session: Symbol('s'), mode: 'active' } }), 'INPUT_INVALID'],
    ['a string global', (store) => ({ store, selection: { global: 'yes', mode: 'active' } }), 'INPUT_INVALID'],
    ['a negative recentTransitions', (store) => ({ store, selection: ALL, recentTransitions: -1 }), 'INPUT_INVALID'],
    ['a BigInt recentTransitions', (store) => ({ store, selection: ALL, recentTransitions: 3n }), 'INPUT_INVALID'],
  ])('rejects %s', (_, options, code) => {
    let caught: unknown;
    try {
      createRuntime(bad(options(ts.store)));
    } catch (err) {
      caught = err;
    }
    expect(isStateflowError(caught)).toBe(true);
    expect((caught as { code: string }).code).toBe(code);
  });

  it('a bug escaping a handler surfaces as INTERNAL with its cause', async () => {
    const broken = new TypeError('view exploded');
    const store = Object.create(ts.store, { view: { value: () => Promise.reject(broken) } }) as TestStore['store'];
    const rt = createRuntime({ store, selection: ALL });
    let caught: unknown;
    await rt.baseline().catch((err: unknown) => (caught = err));
    expect(isStateflowError(caught, 'INTERNAL')).toBe(true);
    expect((caught as Error).cause).toBe(broken);
  });
});
