/**
 * Conformance: `patchAt` (DESIGN.md "Store model": the net patch of each revision, such that
 * `apply(stateAt(rev - 1), patchAt(rev))` equals `stateAt(rev)`; seed "patch projection":
 * distinguishes no-change from deletion).
 */
import { applyPatch } from '@stateflow/core';
import type { ConformanceOptions, StoreInitializer, TestApi } from '../initializer.js';
import { assert, assertJsonEqual, collect, rejectsWithCode } from '../internal/assert.js';
import { defineGroup } from '../internal/group.js';
import { accept, counterSeries, publishSeries } from '../internal/publish.js';

/**
 * Register the `patchAt` group: each revision's patch equals the transition's change, replays
 * onto the previous state across checkpoints, keeps deletions as `null`, and rev 0 / past the
 * head are `REVISION_NOT_FOUND`; `revisionSeq` names the seq of each revision.
 */
export function patchAtGroup(init: StoreInitializer, api: TestApi, options: ConformanceOptions = {}): void {
  defineGroup('patchAt', 'patchAt', init, api, options, ({ test }) => {
    test('patchAt(rev) is the net patch of the transition that produced rev', async ({ store }) => {
      const { patches } = counterSeries(10);
      const transitions = await publishSeries(store, 'global', patches);
      for (const t of transitions) {
        const change = t.changes[0]!;
        assertJsonEqual(await store.patchAt('global', change.rev), change.patch, `patchAt ${change.rev}`);
      }
    }, { options: { checkpointInterval: 3 } });

    test('revisionSeq(rev) is the seq of the transition that produced rev, also at the origin after compaction', async ({ store }) => {
      await accept(store, { 'session:other': { x: 1 } });
      for (let i = 1; i <= 9; i++) await accept(store, i % 3 === 0 ? { global: { n: i }, 'session:other': { x: i } } : { global: { n: i } });
      const seqs = (await collect(store.transitions({ stream: 'global' }))).map((t) => t.seq);
      for (let rev = 1; rev <= 9; rev++) assert.equal(await store.revisionSeq('global', rev), seqs[rev - 1], `revisionSeq ${rev}`);
      await rejectsWithCode(store.revisionSeq('global', 0), 'REVISION_NOT_FOUND', 'rev 0');
      await rejectsWithCode(store.revisionSeq('global', 10), 'REVISION_NOT_FOUND', 'past the head');
      await store.compact('global', { keepRevisions: 4 });
      assert.equal(await store.revisionSeq('global', 6), seqs[5], 'the origin');
      assert.equal(await store.revisionSeq('global', 8), seqs[7], 'above the origin');
      await rejectsWithCode(store.revisionSeq('global', 5), 'HISTORY_NOT_RETAINED', 'below the origin');
    }, { options: { checkpointInterval: 3 } });

    test('apply(stateAt(rev - 1), patchAt(rev)) equals stateAt(rev) for every revision', async ({ store }) => {
      const { patches, states } = counterSeries(14);
      await publishSeries(store, 'global', patches);
      for (let r = 1; r < states.length; r++) {
        const patch = await store.patchAt('global', r);
        assertJsonEqual(applyPatch(states[r - 1]!, patch), states[r]!, `replay of rev ${r}`);
      }
    }, { options: { checkpointInterval: 3 } });

    test('a deletion is recorded as null and a multi-stream transition gives each stream its own patch', async ({ store }) => {
      await accept(store, { global: { a: 1, b: 2 }, 'session:s': { c: 3 } });
      await accept(store, { global: { a: null }, 'session:s': { c: 4, d: { e: 'f' } } });
      assertJsonEqual(await store.patchAt('global', 2), { a: null }, 'deletion');
      assertJsonEqual(await store.patchAt('session:s', 2), { c: 4, d: { e: 'f' } }, 'other stream');
      assertJsonEqual(await store.patchAt('session:s', 1), { c: 3 }, 'first revision');
    });

    test('patchAt of rev 0 or past the head is REVISION_NOT_FOUND', async ({ store }) => {
      await accept(store, { global: { a: 1 } });
      await rejectsWithCode(store.patchAt('global', 0), 'REVISION_NOT_FOUND', 'rev 0');
      const err = await rejectsWithCode(store.patchAt('global', 2), 'REVISION_NOT_FOUND', 'past head');
      assert.equal(err.details.head, 1);
      await rejectsWithCode(store.patchAt('session:none', 1), 'REVISION_NOT_FOUND', 'empty stream');
    });
  });
}
