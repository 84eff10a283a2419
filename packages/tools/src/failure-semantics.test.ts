/**
 * Seed "Failure semantics" (FS1–FS6) and "Normative invariants" (NI1–NI12), on memory-level
 * and classic-level.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRuntime } from './runtime.js';
import type { Runtime } from './runtime.js';
import { readStateInputSchema, patchStateInputSchema } from './schemas.js';
import { backends, dump } from '../test-support/stores.js';
import type { TestStore } from '../test-support/stores.js';
import { rejectionOf, storePerTest } from '@stateflow/test-kit';

const ALL = { global: true, cwd: '/repo', session: 's1', mode: 'active' } as const;

describe.each(backends)('failure semantics and normative invariants ($name)', (backend) => {
  let ts: TestStore;
  let rt: Runtime;
  storePerTest(backend, { beforeEach, afterEach }, async (opened) => {
    ts = opened;
    rt = createRuntime({ store: ts.store, selection: ALL });
    await rt.patchState({
      patch: {
        cwd: { tactics: { next: 'ship' }, lazy: { memory: ['a', 'b', 'c'], rules: { r: 1 } } },
        session: { intents: { i: 'x' } },
      },
    });
    expect(ts.store.lastSeq()).toBe(1);
  });

  describe('Failure semantics', () => {
    it('FS1: a nonexistent path, wrong target kind, malformed selector or out-of-bounds index/range is a tool error', async () => {
      await rejectionOf(rt.readState({ path: 'cwd.lazy.nothing' }), 'PATH_NOT_FOUND');
      await rejectionOf(rt.readState({ path: 'cwd.lazy.memory.key' }), 'PATH_KIND');
      await rejectionOf(rt.readState({ path: 'cwd.lazy.rules[0]' }), 'PATH_KIND');
      await rejectionOf(rt.readState({ path: 'cwd.lazy.memory[*]' }), 'PATH_SYNTAX');
      await rejectionOf(rt.readState({ path: 'cwd.lazy.memory[1:]' }), 'PATH_SYNTAX');
      await rejectionOf(rt.readState({ path: 'cwd.lazy.memory[3]' }), 'INDEX_OUT_OF_RANGE');
      await rejectionOf(rt.readState({ path: 'cwd.lazy.memory[2:4]' }), 'INDEX_OUT_OF_RANGE');
    });

    it('FS2: one invalid member of a path batch fails the entire read before returning partial success', async () => {
      for (const bad of ['cwd.lazy.nothing', 'cwd.lazy.memory[9]', 'cwd.lazy..x', 'cwd[7].lazy']) {
        await expect(rt.readState({ paths: ['cwd.lazy.memory', bad, 'cwd.tactics'] })).rejects.toHaveProperty('code');
      }
    });

    it('FS3: one invalid indexed patch fails the entire mutation before publication', async () => {
      const before = await dump(ts.store);
      await rejectionOf(rt.patchState({ patch: { cwd: { lazy: { memory: { '[0]': 'A', '[3]': 'D' } }, tactics: { next: 'changed' } } } }), 'PATCH_INVALID');
      await rejectionOf(rt.patchState({ patch: { cwd: { lazy: { memory: { '[01]': 'A' } } } } }), 'PATCH_INVALID');
      await rejectionOf(rt.patchState({ patch: { cwd: { lazy: { rules: { '[0]': 'A' } } } } }), 'PATCH_INVALID');
      expect(await dump(ts.store)).toEqual(before);
    });

    it('FS4: malformed canonical lazy data is never accepted as valid state (publish is refused before any byte is written)', async () => {
      const before = await dump(ts.store);
      await rejectionOf(ts.store.publish({ changes: { 'cwd:/repo': { lazy: 'scalar root' } } }), 'PATCH_INVALID');
      await rejectionOf(rt.patchState({ patch: { cwd: { lazy: 42 } } }), 'PATCH_INVALID');
      expect(await dump(ts.store)).toEqual(before);
    });

    it('FS5: invalid reads and rejected patches create no semantic transition and preserve accepted hot state', async () => {
      const before = await dump(ts.store);
      const baseline = await rt.baseline();
      await rt.readState({ path: 'nope.nope' }).catch(() => undefined);
      await rt.patchState({ patch: { cwd: { tactics: { bad: [null] } } } }).catch(() => undefined);
      await rt.patchState({ patch: { global: { response: 'no' } } }).catch(() => undefined);
      expect(await dump(ts.store)).toEqual(before);
      expect(await rt.baseline()).toEqual(baseline);
    });

    it('FS6: independent scopes remain usable where their own records are intact (an unselected owner is refused, not widened)', async () => {
      const sessionOnly = createRuntime({ store: ts.store, selection: { session: 's1', mode: 'active' } });
      await rejectionOf(sessionOnly.readState({ path: 'cwd.tactics' }), 'OWNER_NOT_SELECTED');
      await rejectionOf(sessionOnly.patchState({ patch: { cwd: { tactics: { x: 1 } } } }), 'OWNER_NOT_SELECTED');
      expect(await sessionOnly.readState({ path: 'intents.i' })).toEqual({ value: 'x' });
    });
  });

  describe('Normative invariants', () => {
    it('NI1: object root, ordinary JSON children; sparse views preserve absence (absent lazy reads null, never {})', async () => {
      expect(await rt.readState({ paths: ['cwd.lazy.memory', 'session.lazy', 'global.lazy'] })).toEqual({ value: [['a', 'b', 'c'], null, null] });
      expect(await rt.readState({ path: 'session' })).toEqual({ value: { intents: { i: 'x' } } });
      expect(await ts.store.state('session:s1')).toEqual({ intents: { i: 'x' } });
    });

    it('NI2: semantic snapshots: value holds only the snapshot, patch only the patch; keys alone adds closed meta before keys', async () => {
      expect(await rt.readState({ path: 'cwd.lazy.rules' })).toEqual({ value: { r: 1 } });
      expect(await rt.readState({ path: 'cwd.lazy.rules', projection: 'patch' })).toEqual({ patch: { r: 1 } });
      const keys = await rt.readState({ path: 'cwd.lazy.rules', projection: 'keys' });
      expect(Object.keys(keys)).toEqual(['meta', 'keys']);
      expect(keys).toEqual({ meta: { type: 'object', size: 1 }, keys: { r: 'number' } });
    });

    it('NI3: exact success: a successful read returns everything requested, never truncated or paginated', async () => {
      const big = Array.from({ length: 5000 }, (_, i) => ({ i, text: `entry ${i}` }));
      await rt.patchState({ patch: { cwd: { lazy: { big } } } });
      expect(await rt.readState({ path: 'cwd.lazy.big' })).toEqual({ value: big });
      expect(await rt.readState({ path: 'cwd.lazy.big[1000:4000]' })).toEqual({ value: big.slice(1000, 4000) });
    });

    it('NI4: runtime-owned concurrency: no revision, lock or CAS detail appears in any response', async () => {
      const responses = [
        await rt.readState({ paths: ['cwd', 'effective', 'cwd[1]'] }),
        await rt.readState({ path: 'cwd', projection: 'keys' }),
        await rt.readState({ path: 'cwd', projection: 'patch' }),
        await rt.patchState({ patch: { cwd: { tactics: { next: 'again' } } } }),
      ];
      for (const response of responses) expect(JSON.stringify(response)).not.toMatch(/"(rev|seq|revision|expected|hash|origin)"/);
    });

    it('NI5: hot-state safety: hot planes stay in the baseline while lazy does not', async () => {
      const baseline = await rt.baseline();
      expect(baseline.state).toEqual({ intents: { i: 'x' }, tactics: { next: 'ship' } });
      expect(Object.keys(baseline.state)).not.toContain('lazy');
    });

    it('NI6: retention/activation independence: growing lazy state does not grow the baseline', async () => {
      const size = JSON.stringify(await rt.baseline()).length;
      await rt.patchState({ patch: { cwd: { lazy: { memory: Array.from({ length: 2000 }, (_, i) => `m${i}`) } } } });
      const after = await rt.baseline();
      // the only growth is the new transition entry, which carries no lazy part and is dropped
      expect(JSON.stringify(after).length).toBe(size);
    });

    it('NI7: one read protocol: current, effective, lazy, structure and retained patches share one address model', async () => {
      await rt.patchState({ patch: { cwd: { lazy: { memory: { '[1]': 'B' } } } } });
      const path = 'cwd.lazy.memory';
      expect(await rt.readState({ path })).toEqual({ value: ['a', 'B', 'c'] });
      expect(await rt.readState({ path: 'effective.lazy.memory' })).toEqual({ value: ['a', 'B', 'c'] });
      expect(await rt.readState({ path, projection: 'keys' })).toEqual({ meta: { type: 'array', length: 3 }, keys: [] });
      expect(await rt.readState({ path, projection: 'patch' })).toEqual({ patch: { '[1]': 'B' } });
      expect(await rt.readState({ path: 'cwd[1].lazy.memory' })).toEqual({ value: ['a', 'b', 'c'] });
    });

    it('NI8: no activation by side effect: reads cannot change future inference context', async () => {
      const baseline = await rt.baseline();
      await rt.readState({ paths: ['cwd.lazy.memory', 'cwd.lazy.rules', 'effective.lazy'] });
      expect(await rt.baseline()).toEqual(baseline);
    });

    it('NI9: explicit frontier crossing: only a visible hot-state patch promotes a lazy consequence', async () => {
      const value = (await rt.readState({ path: 'cwd.lazy.rules.r' })) as { value: number };
      expect((await rt.baseline()).state.strategy).toBeUndefined();
      await rt.patchState({ patch: { cwd: { strategy: { rule: `r is ${value.value}` } } } });
      const baseline = await rt.baseline();
      expect(baseline.state.strategy).toEqual({ rule: 'r is 1' });
      expect(baseline.transitions.at(-1)).toEqual({ seq: 2, selectors: { cwd: 'cwd[2]' }, patch: { cwd: { strategy: { rule: 'r is 1' } } } });
    });

    it('NI10: patch remains patch: indices extend recursive addressing; edit-command fields are ordinary (rejected) input', async () => {
      expect(Object.keys(patchStateInputSchema.properties)).toEqual(['patch']);
      await rejectionOf(rt.patchState({ patch: { cwd: { tactics: { x: 1 } } }, edits: [{ op: 'insert' }] }), 'INPUT_INVALID');
      await rejectionOf(rt.patchState({ patch: { cwd: { lazy: { memory: { '[0]': 'A', insert: 'x' } } } } }), 'PATCH_INVALID');
      // `shape` (store README "Shapes") chooses how a revision reads, not which: history stays in the path.
      expect(Object.keys(readStateInputSchema.properties)).toEqual(['path', 'paths', 'projection', 'shape']);
    });

    it('NI11: index safety: indices are interpreted only against one captured basis under CAS', async () => {
      const basis = await ts.store.head('cwd:/repo');
      await rt.patchState({ patch: { cwd: { lazy: { memory: { '[2]': 'C' } } } } });
      const transition = await ts.store.transition(ts.store.lastSeq());
      expect(transition.changes).toEqual([{ stream: 'cwd:/repo', rev: basis.rev + 1, patch: { lazy: { memory: { '[2]': 'C' } } } }]);
    });

    it('NI12: failure preservation: invalid reads or patches preserve accepted bytes', async () => {
      const before = await dump(ts.store);
      await rt.readState({ path: 'cwd.lazy.memory[5]' }).catch(() => undefined);
      await rt.patchState({ patch: { cwd: { lazy: { memory: { '[5]': 'x' } } } } }).catch(() => undefined);
      await rt.patchState({ patch: { cwd: { unknownPlane: 1 } } }).catch(() => undefined);
      expect(await dump(ts.store)).toEqual(before);
      if (ts.dir !== null) {
        const reopened = await ts.reopen();
        expect(await dump(reopened)).toEqual(before);
      }
    });
  });
});
