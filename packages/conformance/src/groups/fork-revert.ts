/**
 * Conformance: `fork` and `revert` (DESIGN.md "Store model": both are ordinary publications, so
 * history is kept and the hash chain continues).
 */
import type { ConformanceOptions, StoreInitializer, TestApi } from '../initializer.js';
import { assert, assertJsonEqual, rejectsWithCode } from '../internal/assert.js';
import { defineGroup } from '../internal/group.js';
import { accept, counterSeries, publishSeries } from '../internal/publish.js';

/**
 * Register the `forkRevert` group: fork copies the current (or a historical) state into an
 * empty stream as one transition; revert publishes the old state as a new revision; both are
 * no-ops when nothing would change and reject revisions that do not exist.
 */
export function forkRevertGroup(init: StoreInitializer, api: TestApi, options: ConformanceOptions = {}): void {
  defineGroup('forkRevert', 'fork and revert', init, api, options, ({ test }) => {
    test('fork copies the current state into an empty stream as one transition', async ({ store }) => {
      const { patches, states } = counterSeries(6);
      await publishSeries(store, 'session:a', patches);
      const result = await store.fork('session:a', 'session:b');
      assert.equal(result.status, 'accepted');
      assert.equal(result.transition?.seq, 7);
      assert.equal(result.transition?.changes.length, 1);
      assertJsonEqual(result.transition?.changes[0]?.stream ?? null, 'session:b', 'changed stream');
      assertJsonEqual(await store.state('session:b'), states[6]!, 'forked state');
      assert.equal((await store.head('session:b')).rev, 1);
      assertJsonEqual(await store.state('session:a'), states[6]!, 'source untouched');
      await accept(store, { 'session:b': { only: 'b' } });
      assertJsonEqual(await store.state('session:a'), states[6]!, 'streams independent after fork');
    });

    test('fork at a historical revision copies that revision', async ({ store }) => {
      const { patches, states } = counterSeries(9);
      await publishSeries(store, 'session:a', patches);
      await store.fork('session:a', 'session:b', { at: 4 });
      assertJsonEqual(await store.state('session:b'), states[4]!, 'forked state');
      await rejectsWithCode(store.fork('session:a', 'session:c', { at: 10 }), 'REVISION_NOT_FOUND', 'at past head');
    }, { options: { checkpointInterval: 3 } });

    test('fork into a stream that has revisions is CONFLICT', async ({ store }) => {
      await accept(store, { 'session:a': { a: 1 }, 'session:b': { b: 1 } });
      await rejectsWithCode(store.fork('session:a', 'session:b'), 'CONFLICT');
      assertJsonEqual(await store.state('session:b'), { b: 1 }, 'target untouched');
      assert.equal(store.lastSeq(), 1);
    });

    test('revert publishes an old state as a new revision and keeps history', async ({ store }) => {
      const { patches, states } = counterSeries(8);
      await publishSeries(store, 'global', patches);
      const result = await store.revert('global', 3);
      assert.equal(result.status, 'accepted');
      assert.equal(result.transition?.changes[0]?.rev, 9);
      assertJsonEqual(await store.state('global'), states[3]!, 'reverted state');
      assertJsonEqual(await store.stateAt('global', 8), states[8]!, 'history kept');
      assertJsonEqual(await store.stateAt('global', 9), states[3]!, 'new revision');
      await store.revert('global', 0);
      assertJsonEqual(await store.state('global'), {}, 'revert to rev 0 empties the state');
    }, { options: { checkpointInterval: 3 } });

    test('revert to the current state is a noop; to a missing revision REVISION_NOT_FOUND', async ({ store }) => {
      await accept(store, { global: { a: 1 } });
      await accept(store, { global: { a: 2 } });
      const same = await store.revert('global', 2);
      assert.equal(same.status, 'noop');
      assert.equal(store.lastSeq(), 2);
      await rejectsWithCode(store.revert('global', 3), 'REVISION_NOT_FOUND');
    });

    test('revert below the origin is HISTORY_NOT_RETAINED', async ({ store }) => {
      await publishSeries(store, 'global', counterSeries(8).patches);
      await store.compact('global', { keepRevisions: 2 });
      await rejectsWithCode(store.revert('global', 2), 'HISTORY_NOT_RETAINED');
      assert.equal(store.lastSeq(), 8);
    });
  });
}
