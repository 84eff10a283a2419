/**
 * Conformance: compaction and retention (DESIGN.md "Store model", Retention: the origin moves
 * forward, older entries go, reads before the origin fail with HISTORY_NOT_RETAINED naming it).
 */
import type { ConformanceOptions, StoreInitializer, TestApi } from '../initializer.js';
import { assert, assertJsonEqual, rejectsWithCode } from '../internal/assert.js';
import { defineGroup } from '../internal/group.js';
import { accept, counterSeries, publishSeries } from '../internal/publish.js';

/**
 * Register the `compaction` group: `compact` keeps exactly the last `keepRevisions` revisions
 * readable (origin = head − keepRevisions + 1), older reads are `HISTORY_NOT_RETAINED` with
 * `origin` in the details, other streams are untouched, publishing and auditing go on, and the
 * `retention` store option compacts on publish.
 */
export function compactionGroup(init: StoreInitializer, api: TestApi, options: ConformanceOptions = {}): void {
  defineGroup('compaction', 'compaction', init, api, options, ({ test }) => {
    test('compact moves the origin; reads from it work, reads below it are HISTORY_NOT_RETAINED', async ({ store }) => {
      const { patches, states } = counterSeries(20);
      await publishSeries(store, 'global', patches);
      const { origin, deleted } = await store.compact('global', { keepRevisions: 6 });
      assert.equal(origin, 15);
      assert.ok(Number.isInteger(deleted) && deleted >= 0, `deleted ${deleted}`);
      assertJsonEqual(await store.head('global'), { stream: 'global', rev: 20, seq: 20, origin: 15 }, 'head');
      for (let r = 15; r <= 20; r++) assertJsonEqual(await store.stateAt('global', r), states[r]!, `stateAt ${r}`);
      for (const r of [0, 1, 14]) {
        const err = await rejectsWithCode(store.stateAt('global', r), 'HISTORY_NOT_RETAINED', `stateAt ${r}`);
        assertJsonEqual(err.details, { stream: 'global', rev: r, origin: 15 }, 'details');
        assert.ok(err.message.includes('15'), `message names the origin: ${err.message}`);
      }
      await rejectsWithCode(store.patchAt('global', 14), 'HISTORY_NOT_RETAINED', 'patchAt below origin');
      assertJsonEqual(await store.patchAt('global', 16), patches[15]!, 'patchAt above origin');
    }, { options: { checkpointInterval: 4 } });

    test('compaction leaves other streams and later publications intact; the store audits clean', async ({ store }) => {
      const { patches, states } = counterSeries(10);
      await publishSeries(store, 'global', patches);
      await accept(store, { 'session:s': { keep: 'all' } });
      await store.compact('global', { keepRevisions: 3 });
      assertJsonEqual(await store.stateAt('session:s', 1), { keep: 'all' }, 'other stream');
      const t = await accept(store, { global: { after: true } });
      assert.equal(t.changes[0]?.rev, 11);
      assertJsonEqual(await store.state('global'), { ...states[10]!, after: true }, 'state after');
      const report = await store.audit();
      assertJsonEqual(report.problems as never, [], 'audit problems');
    }, { options: { checkpointInterval: 4 } });

    test('compacting to more revisions than exist deletes nothing and keeps origin 0', async ({ store }) => {
      await publishSeries(store, 'global', counterSeries(3).patches);
      const { origin } = await store.compact('global', { keepRevisions: 10 });
      assert.equal(origin, 0);
      assertJsonEqual(await store.stateAt('global', 0), {}, 'rev 0 readable');
    });

    test('compaction never moves the origin backwards', async ({ store }) => {
      await publishSeries(store, 'global', counterSeries(12).patches);
      await store.compact('global', { keepRevisions: 2 });
      const { origin } = await store.compact('global', { keepRevisions: 8 });
      assert.equal(origin, 11);
      assert.equal((await store.head('global')).origin, 11);
    });

    test('keepRevisions below 1 is rejected', async ({ store }) => {
      await accept(store, { global: { a: 1 } });
      await rejectsWithCode(store.compact('global', { keepRevisions: 0 }), 'INPUT_INVALID');
      assert.equal((await store.head('global')).origin, 0);
    });

    test('the retention option compacts on publish', async ({ store }) => {
      const { patches, states } = counterSeries(12);
      await publishSeries(store, 'global', patches);
      const head = await store.head('global');
      assert.ok(head.origin >= 1, `origin ${head.origin} moved forward`);
      assert.ok(head.origin <= 12 - 5 + 1, `at least 5 revisions kept (origin ${head.origin})`);
      for (let r = head.origin; r <= 12; r++) assertJsonEqual(await store.stateAt('global', r), states[r]!, `stateAt ${r}`);
      if (head.origin > 0) await rejectsWithCode(store.stateAt('global', head.origin - 1), 'HISTORY_NOT_RETAINED');
    }, { options: { checkpointInterval: 2, retention: { keepRevisions: 5 } } });
  });
}
