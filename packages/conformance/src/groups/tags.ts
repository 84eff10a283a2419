/**
 * Conformance: `tags` (store README "Tags"): tags are declarations on `stateflow:tags` — set,
 * moved, removed and read as transitions — that compaction and retention keep, and that a reopen
 * finds as they were; ill-formed tags and writes to other reserved ids are refused.
 */
import { listTags, removeTag, resolveTag, setTag, stateAtTag } from '@stateflow/store';
import type { ConformanceOptions, StoreInitializer, TestApi } from '../initializer.js';
import { assert, assertJsonEqual, rejectsWithCode } from '../internal/assert.js';
import { defineGroup, type GroupBuilder } from '../internal/group.js';
import { accept } from '../internal/publish.js';

const MAIN = 'cwd:/work/project';
const TAGS = 'stateflow:tags';

/** Register the `tags` group. */
export function tagsGroup(init: StoreInitializer, api: TestApi, options: ConformanceOptions = {}): void {
  defineGroup('tags', 'tags', init, api, options, ({ test }) => {
    declarations(test);
    keptRevisions(test);
  });
}

function declarations(test: GroupBuilder['test']): void {
  test('set on a seq or a revision, read at, moved and removed: each one transition on stateflow:tags', async ({ store }) => {
    await accept(store, { [MAIN]: { plan: 'v1' } });
    await setTag(store, 'before-cleanup');
    await accept(store, { [MAIN]: { plan: 'v2' } });
    await setTag(store, 'on-rev', { stream: MAIN, rev: 2 });
    assertJsonEqual(await listTags(store), [{ name: 'before-cleanup', seq: 1 }, { name: 'on-rev', seq: 3, stream: MAIN, rev: 2 }], 'tags');
    assertJsonEqual(await stateAtTag(store, MAIN, 'before-cleanup'), { plan: 'v1' }, 'state at the tag');
    await rejectsWithCode(setTag(store, 'before-cleanup', { seq: 3 }), 'TAG_INVALID', 'setting a tag that exists');
    await setTag(store, 'before-cleanup', { seq: 3 }, { move: true });
    assert.equal((await resolveTag(store, 'before-cleanup')).seq, 3);
    await removeTag(store, 'on-rev');
    await rejectsWithCode(resolveTag(store, 'on-rev'), 'TAG_NOT_FOUND');
    assertJsonEqual(await store.stateAt(TAGS, 1), { 'before-cleanup': { seq: 1 } }, 'the tags as they were');
    assertJsonEqual((await store.audit()).problems, [], 'audit');
  });

  test('refuses ill-formed tags and writes to reserved ids that are no declaration stream, writing nothing', async ({ store }) => {
    await accept(store, { [MAIN]: { plan: 'v1' } });
    await rejectsWithCode(store.publish({ changes: { [TAGS]: { t: { seq: 5 } } } }), 'TAG_INVALID', 'a seq the log does not hold');
    await rejectsWithCode(store.publish({ changes: { [TAGS]: { '9lives': { seq: 0 } } } }), 'TAG_INVALID', 'a bad name');
    await rejectsWithCode(store.publish({ changes: { [TAGS]: { t: { seq: 0, stream: MAIN } } } }), 'TAG_INVALID', 'a stream without a rev');
    await rejectsWithCode(store.publish({ changes: { 'stateflow:other': { a: 1 } } }), 'STREAM_INVALID', 'another reserved id');
    assert.equal(store.lastSeq(), 1, 'nothing published');
  });
}

function keptRevisions(test: GroupBuilder['test']): void {
  test('compaction keeps tagged revisions, and a reopen finds the tags', async ({ store, reopen }) => {
    for (let i = 1; i <= 8; i++) await accept(store, { [MAIN]: { n: i } });
    await setTag(store, 'at-three', { seq: 3 });
    assertJsonEqual(await store.compact(MAIN, { keepRevisions: 2 }), { origin: 3, deleted: 3 }, 'compaction stops at the tag');
    assertJsonEqual(await stateAtTag(store, MAIN, 'at-three'), { n: 3 }, 'the tagged revision');
    const reopened = await reopen();
    assertJsonEqual(await listTags(reopened), [{ name: 'at-three', seq: 3 }], 'tags after a reopen');
    await removeTag(reopened, 'at-three');
    assertJsonEqual(await reopened.compact(MAIN, { keepRevisions: 2 }), { origin: 7, deleted: 4 }, 'without the tag');
  }, { needsReopen: true });
}
