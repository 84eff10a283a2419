/** patch_state (seeds/stateflow-lazy-state-read-state.md, patch_state): scoping, plane rules, response authorship, typed errors, CAS retry, receipt shape; and baseline(). */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '@stateflow/store';
import { createRuntime } from './runtime.js';
import type { Runtime } from './runtime.js';
import { MAX_PUBLISH_ATTEMPTS } from './patch-state.js';
import { backends, memoryBackend, levelBackend, dump } from '../test-support/stores.js';
import type { TestStore } from '../test-support/stores.js';
import { rejectionOf, storePerTest } from '@stateflow/test-kit';

const ALL = { global: true, cwd: '/repo', session: 's1', mode: 'active' } as const;

let racerWrites = 0;

/** The real store with a concurrent writer that commits before each of the first `times` publishes. */
function racingStore(store: Store, times: number): Store {
  let raced = 0;
  return new Proxy(store, {
    get(target, prop, receiver) {
      if (prop === 'publish') {
        return async (input: Parameters<Store['publish']>[0]) => {
          if (raced < times) {
            raced++;
            await target.publish({ changes: { 'cwd:/repo': { tactics: { racer: ++racerWrites } } } });
          }
          return target.publish(input);
        };
      }
      const member = Reflect.get(target, prop, receiver) as unknown;
      return typeof member === 'function' ? (member as (...a: unknown[]) => unknown).bind(target) : member;
    },
  });
}

describe('patch_state', () => {
  let ts: TestStore;
  let rt: Runtime;
  storePerTest(memoryBackend, { beforeEach, afterEach }, async (opened) => {
    ts = opened;
    rt = createRuntime({ store: ts.store, selection: ALL });
  });

  it('scoped patches write each named scope; an unscoped patch needs exactly one selected owner', async () => {
    await rt.patchState({ patch: { cwd: { tactics: { a: 1 } }, session: { tactics: { b: 2 } } } });
    expect(await ts.store.state('cwd:/repo')).toEqual({ tactics: { a: 1 } });
    expect(await ts.store.state('session:s1')).toEqual({ tactics: { b: 2 } });
    await rejectionOf(rt.patchState({ patch: { tactics: { a: 2 } } }), 'PATCH_INVALID');
    const sole = createRuntime({ store: ts.store, selection: { session: 's1', mode: 'active' } });
    await sole.patchState({ patch: { tactics: { c: 3 } } });
    expect(await ts.store.state('session:s1')).toEqual({ tactics: { b: 2, c: 3 } });
    await sole.patchState({ patch: { session: { tactics: { d: 4 } } } });
    expect(await ts.store.state('session:s1')).toEqual({ tactics: { b: 2, c: 3, d: 4 } });
  });

  it('typed errors, nothing published: mixed scoped/unscoped, unknown plane, non-object lazy root, null inside values, bad "[N]", empty scope patch, unselected scope', async () => {
    await rt.patchState({ patch: { cwd: { lazy: { list: [1, 2] } } } });
    const before = await dump(ts.store);
    const cases: [unknown, string, string?][] = [
      [{ patch: { cwd: { tactics: { a: 1 } }, tactics: { b: 1 } } }, 'PATCH_INVALID', 'mixed-scoped-and-unscoped'],
      [{ patch: { cwd: { notes: 'x' } } }, 'PATCH_INVALID', 'unknown-plane'],
      [{ patch: { cwd: { lazy: 'text' } } }, 'PATCH_INVALID', 'lazy-root'],
      [{ patch: { cwd: { lazy: [1] } } }, 'PATCH_INVALID', 'lazy-root'],
      [{ patch: { cwd: { tactics: { a: { b: [1, null] } } } } }, 'PATCH_INVALID'],
      [{ patch: { cwd: { lazy: { list: { '[2]': 3 } } } } }, 'PATCH_INVALID'],
      [{ patch: { cwd: { lazy: { list: { '[-1]': 3 } } } } }, 'PATCH_INVALID'],
      [{ patch: { cwd: { lazy: { list: { '[0]': 3, x: 1 } } } } }, 'PATCH_INVALID'],
      [{ patch: { cwd: {} } }, 'PATCH_INVALID', 'empty'],
      [{ patch: { cwd: 'x' } }, 'PATCH_INVALID', 'not-object'],
      [{ patch: {} }, 'INPUT_INVALID'],
      [{ patch: { other: {} } }, 'INPUT_INVALID'],
    ];
    for (const [input, code, reason] of cases) {
      const err = await rejectionOf(rt.patchState(input), code);
      if (reason !== undefined) expect(err.details.reason).toBe(reason);
    }
    const cwdOnly = createRuntime({ store: ts.store, selection: { cwd: '/repo', mode: 'active' } });
    await rejectionOf(cwdOnly.patchState({ patch: { session: { tactics: { a: 1 } } } }), 'OWNER_NOT_SELECTED');
    expect(await dump(ts.store)).toEqual(before);
  });

  it('names where a patch is invalid with an RFC 6901 pointer into the patch, as core does', async () => {
    const before = await dump(ts.store);
    expect((await rejectionOf(rt.patchState({ patch: { cwd: { lazy: 'text' } } }), 'PATCH_INVALID')).details).toEqual({ reason: 'lazy-root', at: '/cwd/lazy' });
    expect((await rejectionOf(rt.patchState({ patch: { cwd: { notes: 'x' } } }), 'PATCH_INVALID')).details).toEqual({ reason: 'unknown-plane', at: '/cwd/notes' });
    expect((await rejectionOf(rt.patchState({ patch: { global: { response: 'x' } } }), 'PATCH_INVALID')).details).toEqual({ reason: 'response-owner', at: '/global/response' });
    expect((await rejectionOf(rt.patchState({ patch: { cwd: { tactics: { list: [1, null] } } } }), 'PATCH_INVALID')).details).toMatchObject({ reason: 'null-in-value', at: '/cwd/tactics/list/1' });
    expect(await dump(ts.store)).toEqual(before);
  });

  it('response: written only to the session in Active mode; global/cwd writes and Passive mode are typed errors', async () => {
    const before = await dump(ts.store);
    expect((await rejectionOf(rt.patchState({ patch: { global: { response: 'x' } } }), 'PATCH_INVALID')).details.reason).toBe('response-owner');
    expect((await rejectionOf(rt.patchState({ patch: { cwd: { response: 'x' } } }), 'PATCH_INVALID')).details.reason).toBe('response-owner');
    const passive = createRuntime({ store: ts.store, selection: { ...ALL, mode: 'passive' } });
    expect((await rejectionOf(passive.patchState({ patch: { session: { response: 'x' } } }), 'PATCH_INVALID')).details.reason).toBe('response-passive');
    expect(await dump(ts.store)).toEqual(before);
    const receipt = await rt.patchState({ patch: { session: { response: 'answer' } } });
    expect(receipt).toEqual({ state_updates: { effective: [{ path: 'response', value: 'answer' }], selectors: { session: 'session[1]' } } });
    expect((await passive.baseline()).state).toEqual({});
    expect((await rt.baseline()).state).toEqual({ response: 'answer' });
  });

  it('receipt: effective entries give final effective values per changed hot path, deleted: true when gone, never lazy', async () => {
    await rt.patchState({ patch: { global: { strategy: { s: 'g' } }, cwd: { strategy: { s: 'c' }, tactics: { t: 1, u: 2 } } } });
    const receipt = await rt.patchState({
      patch: { cwd: { strategy: { s: null }, tactics: { t: null, u: 3 }, lazy: { big: 'LAZY-BODY' } }, session: { intents: { i: 'go' } } },
    });
    expect(receipt).toEqual({
      state_updates: {
        effective: [
          { path: 'intents.i', value: 'go' },
          { path: 'strategy.s', value: 'g' },
          { path: 'tactics.t', deleted: true },
          { path: 'tactics.u', value: 3 },
        ],
        selectors: { cwd: 'cwd[2]', session: 'session[1]' },
      },
    });
    const planeGone = await rt.patchState({ patch: { cwd: { tactics: null } } });
    expect(planeGone).toEqual({ state_updates: { effective: [{ path: 'tactics', deleted: true }], selectors: { cwd: 'cwd[3]' } } });
  });

  it('a patch that changes nothing publishes nothing and returns an empty receipt', async () => {
    await rt.patchState({ patch: { cwd: { tactics: { a: 1 } } } });
    const seq = ts.store.lastSeq();
    expect(await rt.patchState({ patch: { cwd: { tactics: { a: 1 } } } })).toEqual({ state_updates: { effective: [] } });
    expect(ts.store.lastSeq()).toBe(seq);
  });

  it(`CAS: a concurrent writer between capture and publication makes the call re-evaluate on the new basis (up to ${MAX_PUBLISH_ATTEMPTS} attempts)`, async () => {
    const retried = createRuntime({ store: racingStore(ts.store, 1), selection: ALL });
    await retried.patchState({ patch: { cwd: { tactics: { mine: 1 } } } });
    expect(await ts.store.state('cwd:/repo')).toEqual({ tactics: { racer: 1, mine: 1 } });
    const starved = createRuntime({ store: racingStore(ts.store, MAX_PUBLISH_ATTEMPTS), selection: ALL });
    const seq = ts.store.lastSeq();
    const err = await rejectionOf(starved.patchState({ patch: { cwd: { tactics: { lost: 1 } } } }), 'CONFLICT');
    expect(err.details).toMatchObject({ stream: 'cwd:/repo' });
    expect(ts.store.lastSeq()).toBe(seq + MAX_PUBLISH_ATTEMPTS);
    expect(await ts.store.state('cwd:/repo')).not.toHaveProperty('tactics.lost');
  });
});

describe.each(backends)('patch_state is serialised per store ($name)', (backend) => {
  let ts: TestStore;
  storePerTest(backend, { beforeEach, afterEach }, (opened) => {
    ts = opened;
  });

  it('40 concurrent calls on different keys all succeed and every key is present, one transition each', async () => {
    const shared = createRuntime({ store: ts.store, selection: { cwd: '/repo', mode: 'active' } });
    const calls = Array.from({ length: 40 }, (_, i) =>
      // half through one runtime, half through a runtime per call (as the HTTP state API does)
      (i % 2 === 0 ? shared : createRuntime({ store: ts.store, selection: ALL })).patchState(
        i % 2 === 0 ? { patch: { tactics: { [`k${i}`]: i } } } : { patch: { cwd: { tactics: { [`k${i}`]: i } } } },
      ),
    );
    const results = await Promise.allSettled(calls);
    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
    const expected = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${i}`, i]));
    expect(await ts.store.state('cwd:/repo')).toEqual({ tactics: expected });
    expect(ts.store.lastSeq()).toBe(40);
    expect((await ts.store.head('cwd:/repo')).rev).toBe(40);
  });

  it('a failing call does not stop the queue', async () => {
    const rt = createRuntime({ store: ts.store, selection: { cwd: '/repo', mode: 'active' } });
    const results = await Promise.allSettled([
      rt.patchState({ patch: { tactics: { a: 1 } } }),
      rt.patchState({ patch: { tactics: { '[0]': 1 } } }),
      rt.patchState({ patch: { lazy: { list: [1] } } }),
      rt.patchState({ patch: { lazy: { list: { '[5]': 2 } } } }),
      rt.patchState({ patch: { tactics: { b: 2 } } }),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'rejected', 'fulfilled']);
    expect(await ts.store.state('cwd:/repo')).toEqual({ tactics: { a: 1, b: 2 }, lazy: { list: [1] } });
  });
});

describe('baseline()', () => {
  let ts: TestStore;
  storePerTest(levelBackend, { beforeEach, afterEach }, (opened) => {
    ts = opened;
  });

  it('hot effective state in intent-first plane order, absent planes and empty responses omitted, lazy never', async () => {
    const rt = createRuntime({ store: ts.store, selection: ALL });
    await rt.patchState({ patch: { session: { artifacts: { a: 1 }, response: '', lazy: { x: 1 } }, cwd: { tactics: { t: 1 } }, global: { intents: { i: 1 } } } });
    const baseline = await rt.baseline();
    expect(Object.keys(baseline)).toEqual(['state', 'lazy_navigation', 'transitions']);
    expect(Object.keys(baseline.state)).toEqual(['intents', 'tactics', 'artifacts']);
    expect(baseline.lazy_navigation).toEqual({ available: true, path: 'effective.lazy', keys: { x: 'number' } });
  });

  it('the last N visible transitions of the selected owners, lazy parts removed: filtered first, then the last N kept, never renumbered', async () => {
    const rt = createRuntime({ store: ts.store, selection: { cwd: '/repo', mode: 'active' }, recentTransitions: 3 });
    await rt.patchState({ patch: { tactics: { a: 1 } } }); // 1
    await ts.store.publish({ changes: { 'session:other': { tactics: { x: 1 } } } }); // 2: not selected
    await rt.patchState({ patch: { lazy: { only: 'lazy' } } }); // 3: lazy only
    await rt.patchState({ patch: { tactics: { b: { $ref: 'lazy.only' } }, lazy: { more: 1 } } }); // 4
    await rt.patchState({ patch: { strategy: { s: 1 } } }); // 5
    const baseline = await rt.baseline();
    expect(baseline.transitions).toEqual([
      { seq: 1, selectors: { cwd: 'cwd[1]' }, patch: { tactics: { a: 1 } } },
      { seq: 4, selectors: { cwd: 'cwd[3]' }, patch: { tactics: { b: { $ref: 'lazy.only' } } } },
      { seq: 5, selectors: { cwd: 'cwd[4]' }, patch: { strategy: { s: 1 } } },
    ]);
    expect(baseline.lazy_navigation).toEqual({ available: true, path: 'lazy', keys: { only: 'string', more: 'number' } });
    expect(baseline.state).toEqual({ strategy: { s: 1 }, tactics: { a: 1, b: { $ref: 'lazy.only' } } });
  });

  it('a hot change stays listed behind more lazy-only writes than the list holds', async () => {
    const rt = createRuntime({ store: ts.store, selection: { cwd: '/repo', mode: 'active' } });
    await rt.patchState({ patch: { tactics: { hot: 1 } } });
    for (let i = 0; i < 25; i++) await rt.patchState({ patch: { lazy: { [`note${i}`]: i } } });
    expect((await rt.baseline()).transitions).toEqual([{ seq: 1, selectors: { cwd: 'cwd[1]' }, patch: { tactics: { hot: 1 } } }]);
  });

  it('Passive mode omits response from the recent transitions too', async () => {
    const active = createRuntime({ store: ts.store, selection: { session: 's9', mode: 'active' } });
    const passive = createRuntime({ store: ts.store, selection: { session: 's9', mode: 'passive' } });
    await active.patchState({ patch: { response: 'the answer', tactics: { t: 1 } } });
    await active.patchState({ patch: { response: 'only an answer' } });
    expect((await active.baseline()).transitions.map((t) => t.patch)).toEqual([{ response: 'the answer', tactics: { t: 1 } }, { response: 'only an answer' }]);
    const baseline = await passive.baseline();
    expect(baseline.state).toEqual({ tactics: { t: 1 } });
    expect(baseline.transitions).toEqual([{ seq: 1, selectors: { session: 'session[1]' }, patch: { tactics: { t: 1 } } }]);
    expect(JSON.stringify(baseline)).not.toContain('answer');
  });

  it('historical reads are addressable from what the agent sees: selectors in receipts and the baseline; REVISION_NOT_FOUND names the stream and head', async () => {
    const rt = createRuntime({ store: ts.store, selection: { global: true, cwd: '/repo', mode: 'active' } });
    for (let i = 0; i < 5; i++) await rt.patchState({ patch: { global: { tactics: { g: i } } } });
    const receipt = await rt.patchState({ patch: { cwd: { tactics: { c: 'x' } }, global: { tactics: { g: 'last' } } } });
    expect(receipt.state_updates.selectors).toEqual({ global: 'global[6]', cwd: 'cwd[1]' });
    const last = (await rt.baseline()).transitions.at(-1);
    expect(last).toEqual({ seq: 6, selectors: { global: 'global[6]', cwd: 'cwd[1]' }, patch: { global: { tactics: { g: 'last' } }, cwd: { tactics: { c: 'x' } } } });
    expect(await rt.readState({ path: `${last?.selectors.cwd}.tactics.c` })).toEqual({ value: 'x' });
    const wrong = await rejectionOf(rt.readState({ path: 'cwd[6].tactics' }), 'REVISION_NOT_FOUND');
    expect(wrong.details).toEqual({ stream: 'cwd:/repo', rev: 6, head: 1 });
    expect(wrong.message).toMatch(/^cwd\[6\] does not exist: cwd \(stream cwd:\/repo\) is at revision 1\. cwd\[N\] counts cwd's own revisions/);
  });

  it('finds the recent transitions of a sparse owner among many others', async () => {
    const rt = createRuntime({ store: ts.store, selection: { cwd: '/repo', mode: 'active' }, recentTransitions: 2 });
    await rt.patchState({ patch: { tactics: { first: 1 } } });
    for (let i = 0; i < 40; i++) await ts.store.publish({ changes: { 'session:busy': { tactics: { i } } } });
    await rt.patchState({ patch: { tactics: { second: 2 } } });
    for (let i = 0; i < 5; i++) await ts.store.publish({ changes: { 'session:busy': { tactics: { j: i } } } });
    expect((await rt.baseline()).transitions).toEqual([
      { seq: 1, selectors: { cwd: 'cwd[1]' }, patch: { tactics: { first: 1 } } },
      { seq: 42, selectors: { cwd: 'cwd[2]' }, patch: { tactics: { second: 2 } } },
    ]);
  });

  it('with nothing stored the baseline is empty and lazy is unavailable', async () => {
    const rt = createRuntime({ store: ts.store, selection: ALL });
    expect(await rt.baseline()).toEqual({ state: {}, lazy_navigation: { available: false, path: 'effective.lazy' }, transitions: [] });
  });
});
