import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Harness } from './test-support/backends.js';
import { backends, memoryBackend } from './test-support/backends.js';
import type { Transition } from './types.js';
import { collect, failureOf } from '@stateflow/test-kit';

describe.each(backends)('fork, revert and append on $name', (backend) => {
  let h: Harness;
  beforeEach(async () => {
    h = await backend.create({ checkpointInterval: 2 });
    await h.store.publish({ changes: { global: { a: 1, list: [1, 2] } } });
    await h.store.publish({ changes: { global: { b: 2, list: { '[0]': 9 } } } });
    await h.store.publish({ changes: { global: { a: null, c: { d: 3 } } } });
    expect((await h.store.head('global')).rev).toBe(3);
  });
  afterEach(async () => {
    await h.destroy();
  });

  it('fork creates the target from the source at a revision as one transition', async () => {
    const r = await h.store.fork('global', 'session:f', { at: 2 });
    expect(r.status).toBe('accepted');
    expect(r.transition?.changes).toEqual([{ stream: 'session:f', rev: 1, patch: { a: 1, list: [9, 2], b: 2 } }]);
    expect(r.transition?.meta).toEqual({ fork: { from: 'global', rev: 2 } });
    expect(await h.store.state('session:f')).toEqual(await h.store.stateAt('global', 2));
    expect(await failureOf(h.store.fork('global', 'session:f'))).toEqual({
      code: 'CONFLICT',
      details: { stream: 'session:f', expected: 'none', actual: 1 },
    });
    const over = await h.store.fork('global', 'session:f', { expected: 1 });
    expect(over.transition?.changes[0]?.rev).toBe(2);
    expect(await h.store.state('session:f')).toEqual(await h.store.state('global'));
    expect((await h.store.fork('global', 'session:f', { expected: 'any' })).status).toBe('noop');
    expect((await failureOf(h.store.fork('global', 'global'))).code).toBe('INPUT_INVALID');
    expect((await failureOf(h.store.fork('global', 'session:g', { at: 9 }))).code).toBe('REVISION_NOT_FOUND');
  });

  it('a fork retried with its idempotency id answers duplicate with the original, whatever changed since (its target no longer empty, or already equal)', async () => {
    const first = await h.store.fork('global', 'session:f', { id: 'fork-1' });
    expect(first.status).toBe('accepted');
    expect(await h.store.fork('global', 'session:f', { id: 'fork-1' })).toEqual({ status: 'duplicate', transition: first.transition });
    await h.store.publish({ changes: { global: { e: 5 } } });
    expect(await h.store.fork('global', 'session:f', { id: 'fork-1', expected: 'any' })).toEqual({ status: 'duplicate', transition: first.transition });
    expect(h.store.lastSeq()).toBe(5);
  });

  it('revert publishes a new transition restoring an earlier state; history is kept', async () => {
    const r = await h.store.revert('global', 1);
    expect(r.transition?.changes[0]?.rev).toBe(4);
    expect(r.transition?.meta).toEqual({ revert: { stream: 'global', rev: 1 } });
    expect(await h.store.state('global')).toEqual({ a: 1, list: [1, 2] });
    expect(await h.store.stateAt('global', 3)).toEqual({ b: 2, list: [9, 2], c: { d: 3 } });
    expect((await h.store.revert('global', 4)).status).toBe('noop');
    expect((await h.store.revert('global', 0)).transition?.changes[0]?.patch).toEqual({ a: null, list: null });
    expect(await h.store.state('global')).toEqual({});
    expect((await failureOf(h.store.revert('global', 99))).code).toBe('REVISION_NOT_FOUND');
  });

  it('append imports exported transitions verbatim after verifying them', async () => {
    const exported = await collect(h.store.transitions());
    const target = await memoryBackend.create({ checkpointInterval: 2 });
    try {
      for (const t of exported) await target.store.append(t);
      expect(await collect(target.store.transitions())).toEqual(exported);
      expect(await target.store.state('global')).toEqual(await h.store.state('global'));
      expect((await target.store.audit()).problems).toEqual([]);
      const next = (await h.store.publish({ changes: { global: { z: 1 } } })).transition as Transition;
      const bad = async (t: Transition): Promise<string> => {
        const err = await failureOf(target.store.append(t));
        expect(err.code).toBe('INPUT_INVALID');
        return err.details.field as string;
      };
      expect(await bad(exported[0] as Transition)).toBe('seq');
      expect(await bad({ ...next, prevHash: 'f'.repeat(64) })).toBe('prevHash');
      expect(await bad({ ...next, hash: 'f'.repeat(64) })).toBe('hash');
      expect(await bad({ ...next, changes: [{ stream: 'global', rev: 9, patch: { z: 1 } }] })).toBe('changes');
      expect((await failureOf(target.store.append({ ...next, changes: [{ stream: 'global', rev: 4, patch: { list: { '[7]': 1 } } }] }))).code).toBe('PATCH_INVALID');
      expect(target.store.lastSeq()).toBe(3);
      await target.store.append(next);
      expect(await target.store.state('global')).toEqual({ b: 2, list: [9, 2], c: { d: 3 }, z: 1 });
    } finally {
      await target.destroy();
    }
  });
});
