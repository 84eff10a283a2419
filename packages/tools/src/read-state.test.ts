/** read_state (seeds/stateflow-lazy-state-read-state.md, read_state): historical selectors, owner selection, sole-owner binding, the dangling-reference sentinel. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRuntime } from './runtime.js';
import type { Runtime } from './runtime.js';
import { DANGLING_REFERENCE_MESSAGE } from './dangling-reference.js';
import { memoryBackend, levelBackend, dump } from '../test-support/stores.js';
import type { TestStore } from '../test-support/stores.js';
import { rejectionOf, storePerTest } from '@stateflow/test-kit';

describe('read_state', () => {
  let ts: TestStore;
  let multi: Runtime;
  let sole: Runtime;
  storePerTest(memoryBackend, { beforeEach, afterEach }, async (opened) => {
    ts = opened;
    multi = createRuntime({ store: ts.store, selection: { global: true, cwd: '/repo', session: 's1', mode: 'active' } });
    sole = createRuntime({ store: ts.store, selection: { cwd: '/repo', mode: 'active' } });
  });

  it('historical selectors cwd[N], session[N], global[N] select stream revisions; effective[N] selects global transition N', async () => {
    await multi.patchState({ patch: { global: { tactics: { g: 1 } } } });
    await multi.patchState({ patch: { cwd: { tactics: { c: 1 } } } });
    await multi.patchState({ patch: { cwd: { tactics: { c: 2 } }, session: { tactics: { s: 1 } } } });
    expect(await multi.readState({ paths: ['global[1].tactics', 'cwd[1].tactics', 'cwd[2].tactics', 'session[1].tactics', 'cwd[0]'] })).toEqual({
      value: [{ g: 1 }, { c: 1 }, { c: 2 }, { s: 1 }, {}],
    });
    expect(await multi.readState({ paths: ['effective[1].tactics', 'effective[2].tactics', 'effective[3].tactics', 'effective[0]'] })).toEqual({
      value: [{ g: 1 }, { g: 1, c: 1 }, { g: 1, c: 2, s: 1 }, {}],
    });
    expect(await multi.readState({ path: 'effective[2].tactics', projection: 'keys' })).toEqual({ meta: { type: 'object', size: 2 }, keys: { g: 'number', c: 'number' } });
    expect(await multi.readState({ path: 'effective[2].tactics', projection: 'patch' })).toEqual({ patch: { c: 1 } });
  });

  it('a change never reads as no change in the patch projection: patches that would set a value to {} are refused', async () => {
    await sole.patchState({ patch: { tactics: { n: 5, list: [1], keep: { x: 1 } } } });
    for (const [patch, at] of [
      [{ tactics: { n: {} } }, '/tactics/n'],
      [{ tactics: { list: {} } }, '/tactics/list'],
      [{ tactics: { fresh: {} } }, '/tactics/fresh'],
      [{ tactics: { fresh: { a: {}, b: 1 } } }, '/tactics/fresh/a'],
      [{ lazy: { gone: { x: null } } }, '/lazy/gone'],
    ] as const) {
      const err = await rejectionOf(sole.patchState({ patch }), 'PATCH_INVALID');
      expect(err.details, JSON.stringify(patch)).toMatchObject({ reason: 'empty-object', at });
      expect(err.message).toContain('could not tell from "no change"');
    }
    expect(await ts.store.head('cwd:/repo')).toMatchObject({ rev: 1 });
    // {} on an existing object is a no-op, emptying an object is a change, {} inside an array is data.
    expect(await sole.patchState({ patch: { tactics: { keep: {} } } })).toEqual({ state_updates: { effective: [] } });
    await sole.patchState({ patch: { tactics: { keep: { x: null }, list: [{}] } } });
    expect(await sole.readState({ paths: ['cwd[2].tactics.keep', 'cwd[2].tactics.list', 'cwd[2].tactics.n'], projection: 'patch' })).toEqual({
      patch: [{ x: null }, [{}], {}],
    });
  });

  it('a past revision of a plane path is read by path (Store.valueAt), with the answers and errors the whole state gives', async () => {
    let pathReads = 0;
    const counted = new Proxy(ts.store, {
      get(target, key, receiver) {
        if (key === 'valueAt') pathReads += 1;
        const value: unknown = Reflect.get(target, key, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const rt = createRuntime({ store: counted, selection: { cwd: '/repo', mode: 'active' } });
    await rt.patchState({ patch: { lazy: { memory: { x: 'first', list: ['a', 'b', 'c'] } } } });
    await rt.patchState({ patch: { lazy: { memory: { x: 'second', list: null } } } });
    expect(await rt.readState({ paths: ['cwd[1].lazy.memory.x', 'cwd[1].lazy.memory.list[1]', 'cwd[1].lazy.memory.list[0:2]', 'cwd[2].lazy.memory.x'] })).toEqual({
      value: ['first', 'b', ['a', 'b'], 'second'],
    });
    expect(await rt.readState({ path: 'cwd[1].lazy.memory', projection: 'keys' })).toEqual({ meta: { type: 'object', size: 2 }, keys: { x: 'string', list: 'array' } });
    expect(pathReads).toBe(5);
    // Where the keys do not resolve, the whole state names the error; a response reads as the plane does.
    const missing = await rejectionOf(rt.readState({ path: 'cwd[2].lazy.memory.list[0]' }), 'PATH_NOT_FOUND');
    expect(missing.details).toEqual({ path: 'cwd[2].lazy.memory.list[0]', at: 'cwd[2].lazy.memory.list' });
    await rejectionOf(rt.readState({ path: 'cwd[1].lazy.memory.list[5]' }), 'INDEX_OUT_OF_RANGE');
    expect(await rt.readState({ path: 'cwd[1].response' })).toEqual({ value: null });
    expect(pathReads).toBe(7);
  });

  it('history beyond the head or before the origin fails explicitly', async () => {
    await multi.patchState({ patch: { cwd: { tactics: { c: 1 } } } });
    await rejectionOf(multi.readState({ path: 'cwd[2].tactics' }), 'REVISION_NOT_FOUND');
    await rejectionOf(multi.readState({ path: 'effective[9]' }), 'REVISION_NOT_FOUND');
    await rejectionOf(multi.readState({ path: 'cwd[0]', projection: 'patch' }), 'REVISION_NOT_FOUND');
    const retained = await levelBackend.open({ checkpointInterval: 2 });
    try {
      const rt = createRuntime({ store: retained.store, selection: { cwd: '/repo', mode: 'active' } });
      for (let i = 0; i < 6; i++) await rt.patchState({ patch: { tactics: { i } } });
      const { origin } = await retained.store.compact('cwd:/repo', { keepRevisions: 2 });
      expect(origin).toBeGreaterThan(1);
      const err = await rejectionOf(rt.readState({ path: 'cwd[1].tactics' }), 'HISTORY_NOT_RETAINED');
      expect(err.details).toMatchObject({ origin });
      await rejectionOf(rt.readState({ path: 'cwd[1].tactics', projection: 'patch' }), 'HISTORY_NOT_RETAINED');
      expect(await rt.readState({ path: `cwd[${origin}].tactics` })).toEqual({ value: { i: origin - 1 } });
    } finally {
      await retained.destroy();
    }
  });

  it('an explicit path to a non-selected owner fails without widening the selection', async () => {
    const err = await rejectionOf(sole.readState({ path: 'session.tactics' }), 'OWNER_NOT_SELECTED');
    expect(err.details).toEqual({ path: 'session.tactics', owner: 'session' });
    await rejectionOf(sole.readState({ paths: ['tactics', 'global[1]'] }), 'OWNER_NOT_SELECTED');
  });

  it('absent documented top-level fields read null (including an empty response); root views omit them', async () => {
    await multi.patchState({ patch: { session: { response: '', tactics: { t: 1 } } } });
    expect(await multi.readState({ paths: ['session.response', 'session.lazy', 'effective.response', 'session'] })).toEqual({
      value: [null, null, null, { tactics: { t: 1 } }],
    });
    await rejectionOf(multi.readState({ path: 'session.lazy.x' }), 'PATH_NOT_FOUND');
  });

  it('with several owners an unscoped path aliases the current effective state', async () => {
    await multi.patchState({ patch: { global: { tactics: { a: 1 } }, session: { tactics: { b: 2 } } } });
    expect(await multi.readState({ path: 'tactics' })).toEqual({ value: { a: 1, b: 2 } });
  });

  it('with exactly one owner flat paths bind to it and anchored refs are shown relative; historical, effective, cross-owner refs and prose keep identity', async () => {
    await ts.store.publish({ changes: { global: { tactics: { g: 'global value' } } } });
    await sole.patchState({
      patch: {
        tactics: {
          own: { $ref: 'lazy.plan' },
          hist: { $ref: 'cwd[1].lazy.plan' },
          eff: { $ref: 'effective.lazy.plan' },
          cross: { $ref: 'session.lazy.plan' },
          prose: 'see $cwd.lazy.plan',
        },
        lazy: { plan: 1 },
      },
    });
    expect(await ts.store.state('cwd:/repo')).toMatchObject({ tactics: { own: { $ref: 'cwd.lazy.plan' } } });
    expect(await sole.readState({ path: 'tactics' })).toEqual({
      value: {
        own: { $ref: 'lazy.plan' },
        hist: { $ref: 'cwd[1].lazy.plan' },
        eff: { $ref: 'effective.lazy.plan' },
        cross: { $ref: 'session.lazy.plan' },
        prose: 'see $cwd.lazy.plan',
      },
    });
    // flat binds to cwd, not to effective (global's tactics.g is not visible through a flat path)
    await rejectionOf(sole.readState({ path: 'tactics.g' }), 'PATH_NOT_FOUND');
    expect(await sole.readState({ path: 'cwd[1].tactics.own' })).toEqual({ value: { $ref: 'lazy.plan' } });
    expect(await sole.readState({ path: 'tactics', projection: 'patch' })).toMatchObject({ patch: { own: { $ref: 'lazy.plan' } } });
    // with several owners the canonical form is shown
    expect(await multi.readState({ path: 'cwd.tactics.own' })).toEqual({ value: { $ref: 'cwd.lazy.plan' } });
  });

  it('dangling-reference sentinel: a missing single value path with exact current structured $ref/$path matches returns value null and a hint', async () => {
    await multi.patchState({
      patch: {
        cwd: { tactics: { note: { $ref: 'cwd.lazy.plan' }, also: [{ $path: 'cwd.lazy.plan' }] }, lazy: { other: { $ref: 'cwd.lazy.plan' } } },
        session: { strategy: { s: { $ref: 'cwd.lazy.plan' } }, tactics: { prose: 'see $cwd.lazy.plan' } },
      },
    });
    const before = await dump(ts.store);
    expect(await multi.readState({ path: 'cwd.lazy.plan' })).toEqual({
      value: null,
      hint: [{ type: 'dangling-reference', message: DANGLING_REFERENCE_MESSAGE, paths: ['cwd.tactics.note', 'cwd.tactics.also[0]', 'cwd.lazy.other'] }],
    });
    expect(await dump(ts.store)).toEqual(before);
  });

  it('dangling-reference sentinel: paths are relative with one owner and never contain lazy bodies', async () => {
    await sole.patchState({ patch: { tactics: { note: { $ref: 'lazy.plan' } }, lazy: { body: 'LAZY-BODY' } } });
    const result = await sole.readState({ path: 'lazy.plan' });
    expect(result).toEqual({ value: null, hint: [{ type: 'dangling-reference', message: DANGLING_REFERENCE_MESSAGE, paths: ['tactics.note'] }] });
    expect(JSON.stringify(result)).not.toContain('LAZY-BODY');
  });

  it('dangling-reference sentinel: without an exact match, and for keys, patch and multi-path reads, the ordinary error remains', async () => {
    await multi.patchState({ patch: { cwd: { tactics: { note: { $ref: 'cwd.lazy.plan' }, prose: 'see $cwd.lazy.other' } } } });
    await rejectionOf(multi.readState({ path: 'cwd.lazy.other' }), 'PATH_NOT_FOUND');
    await rejectionOf(multi.readState({ path: 'effective.lazy.plan' }), 'PATH_NOT_FOUND');
    await rejectionOf(multi.readState({ path: 'cwd.lazy.plan.deeper' }), 'PATH_NOT_FOUND');
    await rejectionOf(multi.readState({ path: 'cwd.lazy.plan', projection: 'keys' }), 'PATH_NOT_FOUND');
    await rejectionOf(multi.readState({ path: 'cwd.lazy.plan', projection: 'patch' }), 'PATH_NOT_FOUND');
    await rejectionOf(multi.readState({ paths: ['cwd.lazy.plan'] }), 'PATH_NOT_FOUND');
  });

  it('patch projection of a range is a kind error; of a path absent on both sides is not found', async () => {
    await multi.patchState({ patch: { cwd: { lazy: { m: [1, 2] } } } });
    await rejectionOf(multi.readState({ path: 'cwd.lazy.m[0:1]', projection: 'patch' }), 'PATH_KIND');
    await rejectionOf(multi.readState({ path: 'cwd.lazy.nothing', projection: 'patch' }), 'PATH_NOT_FOUND');
    expect(await multi.readState({ path: 'cwd.tactics', projection: 'patch' })).toEqual({ patch: {} });
  });
});
