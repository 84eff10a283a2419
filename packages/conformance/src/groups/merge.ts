/**
 * Conformance: `merge` (store README "Merge"): a three-way merge of one stream into another from
 * their merge base — found through the fork and merge records of their histories — published
 * as one ordinary transition on the receiving stream, with conflicts by path.
 */
import type { JsonObject } from '@stateflow/core';
import type { MergeResult, Store, Transition } from '@stateflow/store';
import type { ConformanceOptions, StoreInitializer, TestApi } from '../initializer.js';
import { assert, assertJsonEqual, rejectsWithCode } from '../internal/assert.js';
import { defineGroup, type GroupBuilder } from '../internal/group.js';
import { accept, publishSeries } from '../internal/publish.js';

const MAIN = 'cwd:/work/project';
const DRAFT = 'session:draft';

/** A main stream with a plan and notes, and a draft forked from it at its head (rev 2). */
async function forkedDraft(store: Store): Promise<void> {
  await accept(store, { [MAIN]: { strategy: { plan: 'v1', owner: 'ana' }, lazy: { notes: { a: 'first' } } } });
  await accept(store, { [MAIN]: { tactics: { next: 'review' } } });
  await store.fork(MAIN, DRAFT);
}

/** Assert the result was accepted and return its transition. */
function accepted(result: MergeResult): Transition {
  assert.equal(result.status, 'accepted', `merge ${JSON.stringify(result)} should be accepted`);
  assert.ok(result.transition !== null && !('pruned' in result.transition));
  return result.transition as Transition;
}

/**
 * Register the `merge` group: disjoint changes merge without conflict into one transition
 * carrying the merge meta; conflicts refuse the merge unless resolved; a dry run publishes
 * nothing; the merge base follows forks of forks, sibling forks, repeated forks and earlier
 * merges; unrelated or compacted histories, stale heads and bad input are refused.
 */
export function mergeGroup(init: StoreInitializer, api: TestApi, options: ConformanceOptions = {}): void {
  defineGroup('merge', 'merge', init, api, options, ({ test }) => {
    mergeOutcomes(test);
    resolutions(test);
    mergeBases(test);
    refusals(test);
  });
}

/** A merge that publishes, and one refused by its conflicts. */
function mergeOutcomes(test: GroupBuilder['test']): void {
  test('disjoint changes of a fork and its origin merge into one transition with the merge meta', async ({ store, callerMeta }) => {
    await forkedDraft(store);
    await accept(store, { [DRAFT]: { strategy: { plan: 'v2' }, lazy: { notes: { b: 'from the draft' } } } });
    await accept(store, { [MAIN]: { strategy: { owner: 'bo' }, tactics: { next: null } } });
    const before = await store.head(MAIN);
    const result = await store.merge({ from: DRAFT, into: MAIN });
    const t = accepted(result);
    if (result.status !== 'accepted') return;
    assertJsonEqual(result.base, { stream: MAIN, rev: 2 }, 'merge base: the fork point');
    assert.equal(result.fromRev, 2);
    assert.equal(result.intoRev, before.rev);
    assertJsonEqual(result.conflicts, [], 'conflicts');
    // tactics was emptied on main (its one key deleted) and left alone on the draft: it stays {}.
    assertJsonEqual(await store.state(MAIN), { strategy: { plan: 'v2', owner: 'bo' }, lazy: { notes: { a: 'first', b: 'from the draft' } }, tactics: {} }, 'merged state');
    assert.equal(t.changes.length, 1);
    assertJsonEqual(t.changes[0]?.stream ?? null, MAIN, 'the changed stream');
    assert.equal(t.changes[0]?.rev, before.rev + 1);
    assertJsonEqual(callerMeta(t.meta), { merge: { from: DRAFT, fromRev: 2, base: { stream: MAIN, rev: 2 } } }, 'meta');
    assertJsonEqual((await store.transition(t.seq)).meta ?? null, t.meta ?? null, 'the log keeps the meta');
    assertJsonEqual(await store.diff(MAIN, before.rev, before.rev + 1), result.patch, 'diff of the merge = its patch');
    assertJsonEqual(await store.state(DRAFT), { strategy: { plan: 'v2', owner: 'ana' }, tactics: { next: 'review' }, lazy: { notes: { a: 'first', b: 'from the draft' } } }, 'from untouched');
    assertJsonEqual((await store.audit()).problems, [], 'audit');
  });

  test('conflicts without a resolution refuse the merge with every conflict listed; nothing is published', async ({ store }) => {
    await forkedDraft(store);
    await accept(store, { [DRAFT]: { strategy: { plan: 'v2' }, lazy: { notes: null } } });
    await accept(store, { [MAIN]: { strategy: { plan: 'v3' }, lazy: { notes: { a: 'edited' } } } });
    const seq = store.lastSeq();
    const err = await rejectsWithCode(store.merge({ from: DRAFT, into: MAIN }), 'MERGE_CONFLICT');
    assertJsonEqual(
      err.details,
      {
        from: DRAFT,
        into: MAIN,
        fromRev: 2,
        intoRev: 3,
        base: { stream: MAIN, rev: 2 },
        conflicts: [
          { path: '/strategy/plan', base: 'v1', ours: 'v3', theirs: 'v2' },
          { path: '/lazy/notes', base: { a: 'first' }, ours: { a: 'edited' }, theirs: null },
        ],
      },
      'details',
    );
    assert.equal(store.lastSeq(), seq, 'nothing published');
    assert.equal((await store.head(MAIN)).rev, 3);
  });
}

/** Resolving conflicts, and dry runs. */
function resolutions(test: GroupBuilder['test']): void {
  test('resolve settles each conflict (ours, theirs, a value, a deletion) and prefer the rest', async ({ store }) => {
    await forkedDraft(store);
    await accept(store, { [DRAFT]: { strategy: { plan: 'v2', owner: 'cy' }, tactics: { next: 'ship' }, lazy: { notes: null } } });
    await accept(store, { [MAIN]: { strategy: { plan: 'v3', owner: 'bo' }, tactics: { next: 'test' }, lazy: { notes: { a: 'edited' } } } });
    await rejectsWithCode(store.merge({ from: DRAFT, into: MAIN, resolve: { '/strategy/plan': 'theirs' } }), 'MERGE_CONFLICT', 'a conflict left open');
    await rejectsWithCode(store.merge({ from: DRAFT, into: MAIN, resolve: { '/strategy/nope': 'theirs' }, prefer: 'ours' }), 'INPUT_INVALID', 'a path that is no conflict');
    const result = await store.merge({
      from: DRAFT,
      into: MAIN,
      resolve: { '/strategy/plan': 'theirs', '/strategy/owner': { value: 'both' }, '/lazy/notes': 'theirs' },
      prefer: 'ours',
    });
    accepted(result);
    if (result.status !== 'accepted') return;
    assertJsonEqual(await store.state(MAIN), { strategy: { plan: 'v2', owner: 'both' }, tactics: { next: 'test' }, lazy: {} }, 'resolved state');
    assertJsonEqual(
      result.conflicts.map((c) => [c.path, c.resolution ?? null]),
      [['/strategy/plan', 'theirs'], ['/strategy/owner', { value: 'both' }], ['/lazy/notes', 'theirs'], ['/tactics/next', 'ours']],
      'resolutions',
    );
  });

  test('a dry run answers the patch and the conflicts and publishes nothing', async ({ store }) => {
    await forkedDraft(store);
    await accept(store, { [DRAFT]: { strategy: { plan: 'v2' }, lazy: { notes: { b: 'new' } } } });
    await accept(store, { [MAIN]: { strategy: { plan: 'v3' } } });
    const seq = store.lastSeq();
    const preview = await store.merge({ from: DRAFT, into: MAIN, dryRun: true });
    assert.equal(preview.status, 'preview');
    if (preview.status !== 'preview') return;
    assert.equal(preview.transition, null);
    assertJsonEqual(preview.patch, { lazy: { notes: { b: 'new' } } }, 'the non-conflicting part');
    assertJsonEqual(preview.conflicts, [{ path: '/strategy/plan', base: 'v1', ours: 'v3', theirs: 'v2' }], 'conflicts');
    const resolved = await store.merge({ from: DRAFT, into: MAIN, dryRun: true, prefer: 'theirs' });
    assertJsonEqual(resolved.status === 'preview' ? resolved.patch : null, { strategy: { plan: 'v2' }, lazy: { notes: { b: 'new' } } }, 'resolved preview');
    assert.equal(store.lastSeq(), seq, 'nothing published');
    const published = await store.merge({ from: DRAFT, into: MAIN, fromRev: preview.fromRev, expected: preview.intoRev, prefer: 'theirs' });
    assertJsonEqual(published.status === 'accepted' ? published.patch : null, resolved.status === 'preview' ? resolved.patch : null, 'published what the preview showed');
  });
}

/** How the merge base is found through fork and merge records. */
function mergeBases(test: GroupBuilder['test']): void {
  test('a second merge starts from the first one; with nothing new it is a noop; merging back finds it too', async ({ store }) => {
    await forkedDraft(store);
    await accept(store, { [DRAFT]: { strategy: { plan: 'v2' }, lazy: { notes: { b: 'draft' } } } });
    await accept(store, { [MAIN]: { strategy: { plan: 'v3' } } });
    accepted(await store.merge({ from: DRAFT, into: MAIN, prefer: 'ours' }));
    const again = await store.merge({ from: DRAFT, into: MAIN });
    assert.equal(again.status, 'noop', 'nothing new: no conflict, no transition');
    if (again.status === 'noop') assertJsonEqual(again.base, { stream: DRAFT, rev: 2 }, 'base: the revision merged last');
    await accept(store, { [DRAFT]: { lazy: { notes: { c: 'later' } } } });
    const second = await store.merge({ from: DRAFT, into: MAIN });
    accepted(second);
    if (second.status === 'accepted') {
      assertJsonEqual(second.base, { stream: DRAFT, rev: 2 }, 'second base');
      assertJsonEqual(second.patch, { lazy: { notes: { c: 'later' } } }, 'only what changed since');
    }
    const back = await store.merge({ from: MAIN, into: DRAFT });
    accepted(back);
    if (back.status === 'accepted') assertJsonEqual(back.base, { stream: DRAFT, rev: 3 }, 'merging back: base is the draft revision merged last');
    assertJsonEqual(await store.state(DRAFT), await store.state(MAIN), 'both streams hold the same state');
  });

  test('the merge base follows a fork of a fork, sibling forks and the latest of repeated forks', async ({ store }) => {
    await publishSeries(store, 'global', [{ n: { v: 1 } }, { n: { v: 2 } }, { n: { v: 3 } }, { n: { v: 4 } }, { n: { v: 5 } }]);
    await store.fork('global', 'session:b', { at: 2 });
    await store.fork('session:b', 'session:c');
    await store.fork('global', 'session:d', { at: 4 });
    const grandchild = await store.merge({ from: 'session:c', into: 'global', dryRun: true });
    assertJsonEqual(grandchild.status === 'preview' ? grandchild.base : null, { stream: 'global', rev: 2 }, 'fork of a fork');
    const siblings = await store.merge({ from: 'session:d', into: 'session:c', dryRun: true });
    assertJsonEqual(siblings.status === 'preview' ? siblings.base : null, { stream: 'global', rev: 2 }, 'sibling forks: the earlier fork point');
    await store.fork('global', 'session:b', { at: 5, expected: 'any' });
    const refork = await store.merge({ from: 'session:b', into: 'global', dryRun: true });
    assertJsonEqual(refork.status === 'preview' ? refork.base : null, { stream: 'global', rev: 5 }, 'the latest fork point');
  });

  test('a lineage record after the revision a stream is reached at does not count', async ({ store }) => {
    await publishSeries(store, 'global', [{ n: 1 }, { n: 2 }, { n: 3 }]);
    await store.fork('global', 'session:b', { at: 2 });
    await accept(store, { 'session:b': { m: 1 } });
    await store.fork('global', 'session:c');
    // global takes in session:b after session:c was forked from it: not an ancestor of session:c.
    accepted(await store.merge({ from: 'session:b', into: 'global' }));
    const preview = await store.merge({ from: 'session:b', into: 'session:c', dryRun: true });
    assertJsonEqual(preview.status === 'preview' ? [preview.base, preview.patch] : null, [{ stream: 'global', rev: 2 }, { m: 1 }], 'base and patch');
  });
}

/** Merges refused: unrelated streams, compacted bases, guards, bad input. */
function refusals(test: GroupBuilder['test']): void {
  test('streams of any scope merge when they share an origin; unrelated streams are MERGE_UNRELATED', async ({ store }) => {
    await accept(store, { 'cwd:/repo': { lazy: { doc: { title: 'x' } } }, 'session:other': { tactics: { t: 1 } } });
    await store.fork('cwd:/repo', 'slate:@me/ladder:s1');
    await accept(store, { 'slate:@me/ladder:s1': { lazy: { doc: { body: 'y' } } } });
    accepted(await store.merge({ from: 'slate:@me/ladder:s1', into: 'cwd:/repo' }));
    assertJsonEqual(await store.state('cwd:/repo'), { lazy: { doc: { title: 'x', body: 'y' } } }, 'merged across scopes');
    const seq = store.lastSeq();
    const err = await rejectsWithCode(store.merge({ from: 'session:other', into: 'cwd:/repo' }), 'MERGE_UNRELATED');
    assertJsonEqual(err.details, { from: 'session:other', into: 'cwd:/repo' }, 'details');
    await rejectsWithCode(store.merge({ from: 'session:none', into: 'cwd:/repo' }), 'MERGE_UNRELATED', 'a stream with no revision');
    assert.equal(store.lastSeq(), seq);
  });

  test('a merge base before a retained origin is HISTORY_NOT_RETAINED naming it', async ({ store }) => {
    const patches: JsonObject[] = Array.from({ length: 8 }, (_, i) => ({ n: i + 1 }));
    await publishSeries(store, 'global', patches.slice(0, 2));
    await store.fork('global', 'session:b');
    await publishSeries(store, 'global', patches.slice(2));
    await store.compact('global', { keepRevisions: 3 });
    const err = await rejectsWithCode(store.merge({ from: 'session:b', into: 'global' }), 'HISTORY_NOT_RETAINED', 'base compacted');
    assertJsonEqual(err.details, { stream: 'global', rev: 2, origin: 6 }, 'details name the base and the origin');
    await accept(store, { 'session:x': { n: 1 } });
    await store.fork('session:x', 'session:c');
    await publishSeries(store, 'session:c', patches.map((p) => ({ m: p.n as number })));
    await store.compact('session:c', { keepRevisions: 2 });
    const lost = await rejectsWithCode(store.merge({ from: 'session:c', into: 'session:x' }), 'HISTORY_NOT_RETAINED', 'fork record compacted');
    assertJsonEqual(lost.details, { stream: 'session:c', rev: 8, origin: 8 }, 'details name the compacted stream');
  });

  test('expected guards into; fromRev must exist; a retry with an accepted id is a duplicate', async ({ store, callerMeta }) => {
    await forkedDraft(store);
    await accept(store, { [DRAFT]: { strategy: { plan: 'v2' } } });
    const conflict = await rejectsWithCode(store.merge({ from: DRAFT, into: MAIN, expected: 1 }), 'CONFLICT');
    assertJsonEqual(conflict.details, { stream: MAIN, expected: 1, actual: 2 }, 'details');
    await rejectsWithCode(store.merge({ from: DRAFT, into: MAIN, fromRev: 3 }), 'REVISION_NOT_FOUND');
    const first = accepted(await store.merge({ from: DRAFT, into: MAIN, expected: 2, id: 'merge-1', meta: { by: 'agent' } }));
    assertJsonEqual(callerMeta(first.meta), { by: 'agent', merge: { from: DRAFT, fromRev: 2, base: { stream: MAIN, rev: 2 } } }, 'caller meta beside the merge record');
    const retry = await store.merge({ from: DRAFT, into: MAIN, expected: 2, id: 'merge-1' });
    assert.equal(retry.status, 'duplicate');
    assert.equal(retry.transition?.seq, first.seq);
    assert.equal(store.lastSeq(), first.seq);
  });

  test('bad input is refused and publishes nothing', async ({ store }) => {
    await forkedDraft(store);
    await rejectsWithCode(store.merge({ from: MAIN, into: MAIN }), 'INPUT_INVALID', 'from = into');
    await rejectsWithCode(store.merge({ from: DRAFT, into: MAIN, meta: { merge: 1 } }), 'INPUT_INVALID', 'meta.merge');
    await rejectsWithCode(store.merge({ from: DRAFT, into: MAIN, meta: { fork: 1 } }), 'INPUT_INVALID', 'meta.fork');
    await rejectsWithCode(store.merge({ from: DRAFT, into: MAIN, prefer: 'mine' as 'ours' }), 'INPUT_INVALID', 'prefer');
    await rejectsWithCode(store.merge({ from: '', into: MAIN }), ['STREAM_INVALID', 'INPUT_INVALID'], 'empty stream id');
    await rejectsWithCode(store.merge({ from: DRAFT, into: MAIN, fromRev: -1 }), 'INPUT_INVALID', 'fromRev');
    await rejectsWithCode(store.merge({ from: DRAFT, into: MAIN, resolve: { '/a': { value: [null] } } }), 'INPUT_INVALID', 'a resolution holding null');
    assert.equal(store.lastSeq(), 3);
  });

  test('a resolution that leaves an invalid state is PATCH_INVALID', async ({ store }) => {
    await forkedDraft(store);
    await accept(store, { [DRAFT]: { lazy: { notes: null, other: 1 } } });
    await accept(store, { [MAIN]: { lazy: null } });
    await rejectsWithCode(store.merge({ from: DRAFT, into: MAIN, resolve: { '/lazy': { value: 'flat' } } }), 'PATCH_INVALID');
    assert.equal((await store.head(MAIN)).rev, 3);
  });
}
