import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Harness } from './test-support/backends.js';
import { backends } from './test-support/backends.js';
import type { JsonObject } from '@stateflow/core';
import type { UndoResult } from './types.js';
import { setTag } from './tags.js';
import { failureOf } from '@stateflow/test-kit';

const A = { user: 'agent-7', surface: 'mcp-http' };
const B = { user: 'ana', surface: 'http' };
const as = (writer: JsonObject) => ({ meta: { writer } });

describe.each(backends)('undo on $name', (backend) => {
  let h: Harness;
  beforeEach(async () => {
    h = await backend.create({ checkpointInterval: 3 });
  });
  afterEach(async () => {
    await h.destroy();
  });

  it("removes one writer's changes and leaves the others' exactly as they are", async () => {
    await h.store.publish({ changes: { global: { keep: 1, list: [1, 2] } }, ...as(B) });
    await h.store.publish({ changes: { global: { poison: 'x', keep: 2 }, 'cwd:/r': { a: 1 } }, ...as(A) });
    await h.store.publish({ changes: { global: { other: { deep: true } } }, ...as(B) });
    await h.store.publish({ changes: { global: { poison: 'y', more: 1 } }, ...as(A) });
    const before = await h.store.state('global');
    const preview = await h.store.undo({ writer: { user: 'agent-7' }, since: 1, dryRun: true });
    expect(preview.status).toBe('preview');
    const plan = preview as Extract<UndoResult, { status: 'preview' }>;
    expect(plan.undone).toEqual([2, 4]);
    expect(plan.since).toBe(1);
    expect(plan.through).toBe(4);
    expect(plan.heads).toEqual({ global: 4, 'cwd:/r': 1 });
    expect(plan.patches).toEqual({ global: { poison: null, keep: 1, more: null }, 'cwd:/r': { a: null } });
    expect(plan.conflicts).toEqual([]);
    expect(h.store.lastSeq()).toBe(4);
    const result = await h.store.undo({ writer: { user: 'agent-7' }, since: 1, expected: plan.heads });
    expect(result.status).toBe('accepted');
    if (result.status !== 'accepted') return;
    expect(await h.store.state('global')).toEqual({ keep: 1, list: [1, 2], other: { deep: true } });
    expect((await h.store.state('global'))['other']).toBe(before['other']);
    expect(await h.store.state('cwd:/r')).toEqual({});
    expect(result.transition.meta).toEqual({ undo: { writer: { user: 'agent-7' }, since: 1, through: 4, seqs: [2, 4] } });
    expect((await h.store.audit()).problems).toEqual([]);
  });

  it('reports a path another writer changed after the undone writer as a typed conflict, settled like a merge', async () => {
    await h.store.publish({ changes: { global: { plan: 'v1' } }, ...as(B) });
    await h.store.publish({ changes: { global: { plan: 'poisoned', list: [1] } }, ...as(A) });
    await h.store.publish({ changes: { global: { plan: 'built on it', list: { '[0]': 5 } } }, ...as(B) });
    const failure = await failureOf(h.store.undo({ writer: A, since: 1 }));
    expect(failure.code).toBe('UNDO_CONFLICT');
    expect(failure.details).toEqual({
      since: 1,
      through: 3,
      undone: 1,
      conflicts: [
        { stream: 'global', path: '/plan', base: 'poisoned', ours: 'built on it', theirs: 'v1' },
        { stream: 'global', path: '/list', base: [1], ours: [5], theirs: null },
      ],
    });
    expect(h.store.lastSeq()).toBe(3);
    const theirs = await h.store.undo({ writer: A, since: 1, resolve: { global: { '/list': 'theirs' } }, prefer: 'ours' });
    expect(theirs.status).toBe('accepted');
    expect(await h.store.state('global')).toEqual({ plan: 'built on it' });
    expect((await failureOf(h.store.undo({ writer: A, since: 1, resolve: { global: { '/nope': 'ours' } } }))).details).toEqual({ field: 'resolve', reason: 'not-a-conflict' });
  });

  it('starts at a time or a tag, keeps to the streams named, and is a noop when nothing matches', async () => {
    await h.store.publish({ changes: { global: { a: 1 }, 'cwd:/r': { a: 1 } }, ...as(A) });
    await setTag(h.store, 'before-cleanup');
    await h.store.publish({ changes: { global: { b: 1 }, 'cwd:/r': { b: 1 } }, ...as(A) });
    const byTag = await h.store.undo({ writer: A, since: { tag: 'before-cleanup' }, streams: ['cwd:/r'], dryRun: true });
    expect(byTag.status === 'preview' && byTag.patches).toEqual({ 'cwd:/r': { b: null } });
    const t3 = await h.store.transition(3);
    const byTime = await h.store.undo({ writer: A, since: { time: t3.time }, dryRun: true });
    expect(byTime.status === 'preview' && byTime.undone).toEqual([3]);
    expect((await h.store.undo({ writer: { user: 'nobody' }, since: 0 })).status).toBe('noop');
    expect((await failureOf(h.store.undo({ writer: A, since: { tag: 'missing' } }))).code).toBe('TAG_NOT_FOUND');
    expect((await failureOf(h.store.undo({ writer: A, since: 99 }))).code).toBe('TRANSITION_NOT_FOUND');
    expect((await failureOf(h.store.undo({ writer: {}, since: 0 }))).details).toEqual({ field: 'writer', reason: 'empty' });
    expect((await failureOf(h.store.undo({ writer: A, since: 0, meta: { undo: 1 } }))).details).toEqual({ field: 'meta.undo', reason: 'reserved' });
    expect((await failureOf(h.store.undo({ writer: A, since: 0, resolve: { 'session:x': {} } }))).code).toBe('INPUT_INVALID');
    expect((await failureOf(h.store.undo({ writer: A, since: 0, expected: { global: 1 } }))).code).toBe('CONFLICT');
  });

  it('refuses a range compaction pruned', async () => {
    for (let i = 0; i < 6; i++) await h.store.publish({ changes: { global: { n: i } }, ...as(A) });
    await h.store.compact('global', { keepRevisions: 2 });
    expect((await failureOf(h.store.undo({ writer: A, since: 0 }))).code).toBe('HISTORY_NOT_RETAINED');
    expect((await h.store.undo({ writer: A, since: 5 })).status).toBe('accepted');
  });
});
