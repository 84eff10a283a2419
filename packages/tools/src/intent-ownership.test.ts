/**
 * Seed "Intent ownership" through patch_state: one test per rule, receipt case and edge case
 * (IO1–IO16), on memory-level and classic-level.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRuntime } from './runtime.js';
import type { Runtime } from './runtime.js';
import { backends, dump } from '../test-support/stores.js';
import type { TestStore } from '../test-support/stores.js';
import { storePerTest } from '@stateflow/test-kit';

const CWD = 'cwd:/repo';

describe.each(backends)('intent ownership through patch_state ($name)', (backend) => {
  let ts: TestStore;
  let multi: Runtime;
  let sole: Runtime;
  storePerTest(backend, { beforeEach, afterEach }, async (opened) => {
    ts = opened;
    multi = createRuntime({ store: ts.store, selection: { global: true, cwd: '/repo', session: 's1', mode: 'active' } });
    sole = createRuntime({ store: ts.store, selection: { cwd: '/repo', mode: 'active' } });
  });

  it('IO1: a structured $ref inside an intent owns an existing strategy/tactics/lazy key of the same scope', async () => {
    await multi.patchState({
      patch: { cwd: { intents: { release: { owns: { $ref: 'cwd.lazy.plan' } } }, lazy: { plan: { v: 1 }, other: 1 } } },
    });
    const receipt = await multi.patchState({ patch: { cwd: { intents: { release: null } } } });
    expect(receipt).toEqual({
      state_updates: { cascaded: ['cwd.lazy.plan'], effective: [{ path: 'intents.release', deleted: true }], selectors: { cwd: 'cwd[2]' } },
    });
    expect(await multi.readState({ path: 'cwd.lazy' })).toEqual({ value: { other: 1 } });
  });

  it('IO2: a textual $cwd.lazy.plan mention means "I use this" and never owns', async () => {
    await multi.patchState({ patch: { cwd: { intents: { a: 'see $cwd.lazy.plan' }, lazy: { plan: 1 } } } });
    const receipt = await multi.patchState({ patch: { cwd: { intents: { a: null } } } });
    expect(receipt.state_updates.cascaded).toBeUndefined();
    expect(await multi.readState({ path: 'cwd.lazy.plan' })).toEqual({ value: 1 });
  });

  it('IO3: ownership evaluates canonical refs after model anchoring (sole-cwd {"$ref":"lazy.plan"} owns cwd.lazy.plan)', async () => {
    await sole.patchState({ patch: { intents: { release: { $ref: 'lazy.plan' } }, lazy: { plan: 'p' } } });
    expect(await ts.store.state(CWD)).toMatchObject({ intents: { release: { $ref: 'cwd.lazy.plan' } } });
    expect(await sole.readState({ path: 'intents.release' })).toEqual({ value: { $ref: 'lazy.plan' } });
    const receipt = await sole.patchState({ patch: { intents: { release: null } } });
    expect(receipt.state_updates.cascaded).toEqual(['lazy.plan']);
    expect(await sole.readState({ path: 'lazy' })).toEqual({ value: {} });
  });

  it('IO4: a flat ref written with several owners selected stays unscoped and owns nothing', async () => {
    await multi.patchState({ patch: { cwd: { intents: { a: { $ref: 'lazy.plan' } }, lazy: { plan: 1 } } } });
    expect(await ts.store.state(CWD)).toMatchObject({ intents: { a: { $ref: 'lazy.plan' } } });
    const receipt = await multi.patchState({ patch: { cwd: { intents: { a: null } } } });
    expect(receipt.state_updates.cascaded).toBeUndefined();
  });

  it('IO5: intents apply first, independent of JSON insertion order; cascade runs before the remaining planes', async () => {
    await multi.patchState({ patch: { cwd: { intents: { i: { $ref: 'cwd.tactics.draft' } }, tactics: { draft: { old: 1, keep: 1 } } } } });
    const receipt = await multi.patchState({ patch: { cwd: { tactics: { draft: { keep: 2 } }, intents: { i: null } } } });
    expect(receipt.state_updates.cascaded).toEqual(['cwd.tactics.draft']);
    expect(await multi.readState({ path: 'cwd.tactics.draft' })).toEqual({ value: { keep: 2 } });
  });

  it('IO6: final remaining or new same-scope intents referencing the target directly, via an ancestor or a descendant protect it', async () => {
    await multi.patchState({
      patch: {
        cwd: {
          intents: { gone: [{ $ref: 'cwd.lazy.a' }, { $ref: 'cwd.lazy.b.x' }, { $ref: 'cwd.lazy.c' }], keepA: { $ref: 'cwd.lazy.a' }, keepB: { $ref: 'cwd.lazy.b' } },
          lazy: { a: 1, b: { x: 1 }, c: { y: 1 } },
        },
      },
    });
    const receipt = await multi.patchState({ patch: { cwd: { intents: { gone: null, fresh: { $ref: 'cwd.lazy.c.y' } } } } });
    expect(receipt.state_updates.cascaded).toBeUndefined();
    expect(await multi.readState({ path: 'cwd.lazy' })).toEqual({ value: { a: 1, b: { x: 1 }, c: { y: 1 } } });
  });

  it('IO7: supersession works in one patch: delete the old intent and reference the same targets from its replacement', async () => {
    await multi.patchState({ patch: { session: { intents: { v1: { $ref: 'session.strategy.s' } }, strategy: { s: 'kept' } } } });
    const receipt = await multi.patchState({ patch: { session: { intents: { v1: null, v2: { $ref: 'session.strategy.s' } } } } });
    expect(receipt.state_updates.cascaded).toBeUndefined();
    expect(await multi.readState({ path: 'session.strategy.s' })).toEqual({ value: 'kept' });
  });

  it('IO8: rewrite survivors in the deleting patch: a rewrite creates fresh knowledge without old fields; strategy is owned too', async () => {
    await multi.patchState({ patch: { cwd: { intents: { i: { $ref: 'cwd.strategy.rule' } }, strategy: { rule: { a: 1, b: 2 } } } } });
    const receipt = await multi.patchState({ patch: { cwd: { intents: { i: null }, strategy: { rule: { b: 3 }, moved: { a: 1 } } } } });
    expect(receipt.state_updates.cascaded).toEqual(['cwd.strategy.rule']);
    expect(await multi.readState({ path: 'cwd.strategy' })).toEqual({ value: { rule: { b: 3 }, moved: { a: 1 } } });
  });

  it('IO9: editing an intent to drop a reference leaves the target as ordinary unowned state', async () => {
    await multi.patchState({ patch: { cwd: { intents: { i: { goal: 'g', owns: { $ref: 'cwd.lazy.plan' } } }, lazy: { plan: 1 } } } });
    await multi.patchState({ patch: { cwd: { intents: { i: { owns: null } } } } });
    const receipt = await multi.patchState({ patch: { cwd: { intents: { i: null } } } });
    expect(receipt.state_updates.cascaded).toBeUndefined();
    expect(await multi.readState({ path: 'cwd.lazy.plan' })).toEqual({ value: 1 });
  });

  it('IO10: skipped silently: other scopes, plane roots, array elements, artifacts/response/intents targets, effective refs, missing targets, keys outside the grammar', async () => {
    await multi.patchState({
      patch: {
        cwd: {
          intents: {
            gone: [
              { $ref: 'session.lazy.x' },
              { $ref: 'cwd.lazy' },
              { $ref: 'cwd.lazy.list[0]' },
              { $ref: 'cwd.artifacts.a' },
              { $ref: 'cwd.intents.keep' },
              { $ref: 'effective.lazy.y' },
              { $ref: 'cwd.lazy.missing' },
              { $ref: 'cwd.lazy.bad key' },
            ],
            keep: 1,
          },
          lazy: { list: ['e'], y: 1 },
          artifacts: { a: 1 },
        },
        session: { lazy: { x: 1 } },
      },
    });
    // patch_state refuses names outside the grammar; other writers (an import) may store them.
    await ts.store.publish({ changes: { [CWD]: { lazy: { 'bad key': 1 } } } });
    const before = { cwd: await ts.store.state(CWD), session: await ts.store.state('session:s1') };
    const receipt = await multi.patchState({ patch: { cwd: { intents: { gone: null } } } });
    expect(receipt).toEqual({ state_updates: { effective: [{ path: 'intents.gone', deleted: true }], selectors: { cwd: 'cwd[3]' } } });
    const { gone: _gone, ...intents } = before.cwd.intents as Record<string, unknown>;
    expect(await ts.store.state(CWD)).toEqual({ ...before.cwd, intents });
    expect(await ts.store.state('session:s1')).toEqual(before.session);
  });

  it('IO11: one atomic transition across scopes with one revision per changed scope', async () => {
    await multi.patchState({
      patch: {
        global: { intents: { g: { $ref: 'global.tactics.t' } }, tactics: { t: 1 } },
        session: { intents: { s: { $ref: 'session.lazy.plans' } }, lazy: { plans: { x: 1 } } },
      },
    });
    const seq = ts.store.lastSeq();
    await multi.patchState({ patch: { global: { intents: { g: null } }, session: { intents: { s: null } } } });
    expect(ts.store.lastSeq()).toBe(seq + 1);
    const transition = await ts.store.transition(seq + 1);
    expect(transition.changes.map((c) => [c.stream, c.rev])).toEqual([
      ['global', 2],
      ['session:s1', 2],
    ]);
  });

  it('IO12: receipt cascaded lists scoped paths in order global, cwd, session, then each scope\'s cascade order (multiple owners)', async () => {
    await multi.patchState({
      patch: {
        session: { intents: { s: [{ $ref: 'session.tactics.draft' }, { $ref: 'session.lazy.plans.x' }] }, tactics: { draft: 1 }, lazy: { plans: { x: 1 } } },
        global: { intents: { g: { $ref: 'global.strategy.r' } }, strategy: { r: 1 } },
      },
    });
    const receipt = await multi.patchState({ patch: { session: { intents: { s: null } }, global: { intents: { g: null } } } });
    expect(receipt.state_updates.cascaded).toEqual(['global.strategy.r', 'session.lazy.plans.x', 'session.tactics.draft']);
  });

  it('IO13: receipt cascaded is relative with exactly one owner and lists targets even when later writes recreate them', async () => {
    await sole.patchState({ patch: { intents: { i: [{ $ref: 'lazy.plans.x' }, { $ref: 'tactics.draft' }] }, lazy: { plans: { x: 1 } }, tactics: { draft: 'old' } } });
    const receipt = await sole.patchState({ patch: { intents: { i: null }, tactics: { draft: 'new' } } });
    expect(receipt.state_updates).toEqual({
      cascaded: ['lazy.plans.x', 'tactics.draft'],
      effective: [
        { path: 'intents.i', deleted: true },
        { path: 'tactics.draft', value: 'new' },
      ],
      selectors: { cwd: 'cwd[2]' },
    });
  });

  it('IO14: receipt reports nested lazy deletions (paths only, never bodies) though the lazy_navigation catalog is unchanged', async () => {
    await multi.patchState({ patch: { cwd: { intents: { i: { $ref: 'cwd.lazy.plans.x' } }, lazy: { plans: { x: 'LAZY-BODY', y: 1 } } } } });
    const navigation = (await multi.baseline()).lazy_navigation;
    const receipt = await multi.patchState({ patch: { cwd: { intents: { i: null } } } });
    expect(receipt.state_updates.cascaded).toEqual(['cwd.lazy.plans.x']);
    expect(JSON.stringify(receipt)).not.toContain('LAZY-BODY');
    expect((await multi.baseline()).lazy_navigation).toEqual(navigation);
  });

  it('IO15: edge: deletion is scope-local; the effective entry reports an inherited broader value instead of deleted: true', async () => {
    await multi.patchState({
      patch: { global: { tactics: { draft: 'global draft' } }, cwd: { intents: { i: { $ref: 'cwd.tactics.draft' } }, tactics: { draft: 'cwd draft' } } },
    });
    const receipt = await multi.patchState({ patch: { cwd: { intents: { i: null } } } });
    expect(receipt.state_updates).toEqual({
      cascaded: ['cwd.tactics.draft'],
      effective: [
        { path: 'intents.i', deleted: true },
        { path: 'tactics.draft', value: 'global draft' },
      ],
      selectors: { cwd: 'cwd[2]' },
    });
  });

  it('IO16: edge: a later write into an intent another writer already deleted recreates a partial intent (last accepted wins)', async () => {
    const other = createRuntime({ store: ts.store, selection: { cwd: '/repo', session: 's2', mode: 'active' } });
    await multi.patchState({ patch: { cwd: { intents: { i: { goal: 'g', owns: { $ref: 'cwd.lazy.p' } } }, lazy: { p: 1 } } } });
    await other.patchState({ patch: { cwd: { intents: { i: null } } } });
    await multi.patchState({ patch: { cwd: { intents: { i: { note: 'late' } } } } });
    expect(await multi.readState({ path: 'cwd.intents.i' })).toEqual({ value: { note: 'late' } });
    expect(await multi.readState({ path: 'cwd.lazy' })).toEqual({ value: {} });
  });

  it('IO17: the stored net patch includes the cascade deletions, so replay never reruns the cascade', async () => {
    await multi.patchState({ patch: { cwd: { intents: { i: { $ref: 'cwd.lazy.p' } }, lazy: { p: 1, q: 2 } } } });
    await multi.patchState({ patch: { cwd: { intents: { i: null } } } });
    expect(await ts.store.patchAt(CWD, 2)).toEqual({ intents: { i: null }, lazy: { p: null } });
    if (ts.dir !== null) {
      const reopened = await ts.reopen();
      expect(await reopened.state(CWD)).toEqual({ intents: {}, lazy: { q: 2 } });
      expect((await reopened.audit()).problems).toEqual([]);
    }
  });

  it('IO18: a rejected deleting patch cascades nothing and publishes nothing', async () => {
    await multi.patchState({ patch: { cwd: { intents: { i: { $ref: 'cwd.lazy.p' } }, lazy: { p: [1] } } } });
    const before = await dump(ts.store);
    await expect(multi.patchState({ patch: { cwd: { intents: { i: null }, lazy: { p: { '[3]': 0 } } } } })).rejects.toMatchObject({ code: 'PATCH_INVALID' });
    expect(await dump(ts.store)).toEqual(before);
  });
});
