/** read_state in a shape (store README "Shapes"): `current` by default, `stored`, or a version. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { setShape } from '@stateflow/store';
import { createRuntime } from './runtime.js';
import type { Runtime } from './runtime.js';
import { backends } from '../test-support/stores.js';
import type { TestStore } from '../test-support/stores.js';
import { rejectionOf, storePerTest } from '@stateflow/test-kit';

const V1 = { type: 'object', properties: { lazy: { type: 'object', properties: { plan: { type: 'string' } } } } };
const V2 = { type: 'object', properties: { lazy: { type: 'object', properties: { plan: { type: 'array', items: { type: 'string' } } } } } };
const V3 = { type: 'object', properties: { lazy: { type: 'object', properties: { plans: { type: 'array', items: { type: 'string' } } }, additionalProperties: false } } };

describe.each(backends)('read_state with shape ($name)', (backend) => {
  let ts: TestStore;
  let sole: Runtime;
  let other: Runtime;
  storePerTest(backend, { beforeEach, afterEach }, async (opened) => {
    ts = opened;
    sole = createRuntime({ store: ts.store, selection: { cwd: '/repo', mode: 'active' } });
    other = createRuntime({ store: ts.store, selection: { session: 's1', mode: 'active' } });
  });

  it('a history written under v1 reads as v3 (default current), as written (stored) and as v2', async () => {
    await setShape(ts.store, 'memory', { streams: 'cwd:*', schema: V1 });
    await sole.patchState({ patch: { lazy: { plan: 'draft' } } });
    await sole.patchState({ patch: { lazy: { plan: 'final' } } });
    await setShape(ts.store, 'memory', { streams: 'cwd:*', schema: V2, upcast: [{ op: 'wrap', path: '/lazy/plan' }] });
    await setShape(ts.store, 'memory', { streams: 'cwd:*', schema: V3, upcast: [{ op: 'move', from: '/lazy/plan', path: '/lazy/plans' }] });
    expect(await sole.readState({ paths: ['cwd[1].lazy', 'cwd[2].lazy', 'lazy'] })).toEqual({ value: [{ plans: ['draft'] }, { plans: ['final'] }, { plans: ['final'] }] });
    expect(await sole.readState({ path: 'cwd[1].lazy.plan', shape: 'stored' })).toEqual({ value: 'draft' });
    expect(await sole.readState({ path: 'cwd[2].lazy', shape: 2 })).toEqual({ value: { plan: ['final'] } });
    expect(await sole.readState({ path: 'cwd[2].lazy', projection: 'patch' })).toEqual({ patch: { plans: { '[0]': 'final' } } });
    expect(await sole.readState({ path: 'cwd[2].lazy', projection: 'patch', shape: 'stored' })).toEqual({ patch: { plan: 'final' } });
    expect((await rejectionOf(sole.readState({ path: 'cwd[1].lazy', shape: 4 }), 'SHAPE_NOT_FOUND')).details).toEqual({ shape: 'memory', version: 4 });
    expect((await rejectionOf(sole.readState({ path: 'lazy', shape: 'newest' }), 'INPUT_INVALID')).message).toMatch(/shape/);
    // A stream no shape governs reads the same in every shape but a version.
    await other.patchState({ patch: { lazy: { plan: 'x' } } });
    expect(await other.readState({ path: 'session[1].lazy.plan' })).toEqual({ value: 'x' });
    expect((await rejectionOf(other.readState({ path: 'session[1].lazy', shape: 1 }), 'SHAPE_NOT_FOUND')).code).toBe('SHAPE_NOT_FOUND');
  });
});
