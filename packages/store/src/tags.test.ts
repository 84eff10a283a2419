import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Harness } from './test-support/backends.js';
import { backends } from './test-support/backends.js';
import { listTags, removeTag, resolveTag, setTag, stateAtTag } from './tags.js';
import { failureOf, fakeClock } from '@stateflow/test-kit';

describe.each(backends)('tags on $name', (backend) => {
  let h: Harness;
  beforeEach(async () => {
    h = await backend.create({ checkpointInterval: 2 });
  });
  afterEach(async () => {
    await h.destroy();
  });

  it('are declarations on stateflow:tags: set, listed, read at, moved and removed, each a transition', async () => {
    await h.store.publish({ changes: { global: { v: 1 }, 'cwd:/r': { v: 1 } } });
    const { tag, result } = await setTag(h.store, 'before-cleanup');
    expect(tag).toEqual({ name: 'before-cleanup', seq: 1 });
    expect(result.status === 'accepted' && result.transition.changes).toEqual([{ stream: 'stateflow:tags', rev: 1, patch: { 'before-cleanup': { seq: 1 } } }]);
    await h.store.publish({ changes: { global: { v: 2 } } });
    await setTag(h.store, 'on-rev', { stream: 'global', rev: 2 });
    expect(await listTags(h.store)).toEqual([
      { name: 'before-cleanup', seq: 1 },
      { name: 'on-rev', seq: 3, stream: 'global', rev: 2 },
    ]);
    expect(await stateAtTag(h.store, 'global', 'before-cleanup')).toEqual({ v: 1 });
    expect(await stateAtTag(h.store, 'cwd:/r', 'on-rev')).toEqual({ v: 1 });
    expect((await failureOf(setTag(h.store, 'before-cleanup', { seq: 3 }))).details).toEqual({ tag: 'before-cleanup', reason: 'exists' });
    expect((await setTag(h.store, 'before-cleanup', { seq: 1 })).result.status).toBe('noop');
    await setTag(h.store, 'on-rev', { seq: 2 }, { move: true });
    expect(await resolveTag(h.store, 'on-rev')).toEqual({ name: 'on-rev', seq: 2 });
    expect((await removeTag(h.store, 'before-cleanup')).status).toBe('accepted');
    expect((await failureOf(resolveTag(h.store, 'before-cleanup'))).details).toEqual({ tag: 'before-cleanup' });
    expect((await failureOf(removeTag(h.store, 'before-cleanup'))).code).toBe('TAG_NOT_FOUND');
    // Time travel: the tags as they were at their stream's first revision.
    expect(await h.store.stateAt('stateflow:tags', 1)).toEqual({ 'before-cleanup': { seq: 1 } });
    expect((await h.store.audit()).problems).toEqual([]);
  });

  it('refuses ill-formed tags, written through publish too, and writes to other reserved ids', async () => {
    await h.store.publish({ changes: { global: { v: 1 } } });
    const refused = async (patch: Record<string, unknown>) => (await failureOf(h.store.publish({ changes: { 'stateflow:tags': patch as never } }))).details;
    expect(await refused({ '1st': { seq: 0 } })).toEqual({ tag: '1st', reason: 'name' });
    expect(await refused({ t: { seq: -1 } })).toEqual({ tag: 't', reason: 'record' });
    expect(await refused({ t: { seq: 0, extra: 1 } })).toEqual({ tag: 't', reason: 'record' });
    expect(await refused({ t: { seq: 0, stream: 'global' } })).toEqual({ tag: 't', reason: 'record' });
    expect(await refused({ t: { seq: 0, stream: 'stateflow:shapes', rev: 1 } })).toEqual({ tag: 't', reason: 'record' });
    expect(await refused({ t: { seq: 2 } })).toEqual({ tag: 't', reason: 'future' });
    expect(await refused({ t: { seq: 1, stream: 'global', rev: 2 } })).toEqual({ tag: 't', reason: 'future' });
    expect((await failureOf(setTag(h.store, 'bad name'))).details).toEqual({ tag: 'bad name', reason: 'name' });
    expect((await failureOf(h.store.publish({ changes: { 'stateflow:other': { a: 1 } } }))).details).toEqual({ stream: 'stateflow:other' });
    expect(h.store.lastSeq()).toBe(1);
  });

  it('keep their revisions through compaction and retention', async () => {
    for (let i = 1; i <= 10; i++) await h.store.publish({ changes: { global: { n: i } } });
    await setTag(h.store, 'at-four', { seq: 4 });
    expect(await h.store.compact('global', { keepRevisions: 2 })).toEqual({ origin: 4, deleted: 4 });
    expect(await stateAtTag(h.store, 'global', 'at-four')).toEqual({ n: 4 });
    await removeTag(h.store, 'at-four');
    expect(await h.store.compact('global', { keepRevisions: 2 })).toEqual({ origin: 9, deleted: 5 });
    const kept = await h.reopen({ checkpointInterval: 2, retention: { keepRevisions: 2 } });
    await setTag(kept, 'at-ten', { stream: 'global', rev: 10 });
    for (let i = 11; i <= 20; i++) await kept.publish({ changes: { global: { n: i } } });
    expect((await kept.head('global')).origin).toBe(10);
    expect(await stateAtTag(kept, 'global', 'at-ten')).toEqual({ n: 10 });
    expect((await kept.audit()).problems).toEqual([]);
  });

  it('savepoints: the seq before each burst of a writer is tagged, after the idle gap', async () => {
    const clock = fakeClock({ start: Date.UTC(2025, 0, 1), tick: 0 });
    const store = await h.reopen({ savepoints: { idleMs: 60_000 }, clock: clock.clock });
    const agent = { meta: { writer: { user: 'agent-7', surface: 'mcp-http', client: 'claude-code/1.2.0' } } };
    await store.publish({ changes: { global: { a: 1 } }, ...agent });
    expect(await listTags(store)).toEqual([{ name: 'savepoint.agent-7-mcp-http-claude-code-1.2.0', seq: 0 }]);
    clock.advance(30_000);
    await store.publish({ changes: { global: { a: 2 } }, ...agent });
    expect((await listTags(store))[0]?.seq).toBe(0);
    clock.advance(61_000);
    const t = await store.publish({ changes: { global: { a: 3 } }, ...agent });
    const seq = t.transition?.seq as number;
    expect(await listTags(store)).toEqual([{ name: 'savepoint.agent-7-mcp-http-claude-code-1.2.0', seq: seq - 1 }]);
    expect((await store.transition(seq + 1)).meta).toEqual({ savepoint: { writer: 'agent-7 mcp-http claude-code/1.2.0', before: seq } });
    await store.publish({ changes: { global: { b: 1 } } });
    expect(await listTags(store)).toHaveLength(1);
    expect((await failureOf(h.reopen({ savepoints: { idleMs: 0 } }))).details).toEqual({ field: 'savepoints.idleMs' });
  });
});
