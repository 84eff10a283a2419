/**
 * Conformance: what survives closing and reopening (DESIGN.md "Store model": the log, heads,
 * checkpoints, origins, idempotency ids and the hash chain are all stored).
 */
import type { ConformanceOptions, StoreInitializer, TestApi } from '../initializer.js';
import { assert, assertJsonEqual, collect } from '../internal/assert.js';
import { defineGroup } from '../internal/group.js';
import { KEY_ORDERS, KEY_ORDER_WRITES } from '../internal/key-order.js';
import { accept, counterSeries, publishSeries } from '../internal/publish.js';

/**
 * Register the `persistence` group (skipped with a reason when the initializer has no
 * `reopen`): state, heads, history, hashes, origins and idempotency survive a reopen, and the
 * reopened store continues the seq and the chain and audits clean.
 */
export function persistenceGroup(init: StoreInitializer, api: TestApi, options: ConformanceOptions = {}): void {
  defineGroup('persistence', 'persistence', init, api, options, ({ test }) => {
    test('state, heads, transitions and history survive a reopen', async (ctx) => {
      const { patches, states } = counterSeries(11);
      await publishSeries(ctx.store, 'global', patches);
      await accept(ctx.store, { 'session:s': { s: [1, 2] }, 'cwd:/w': { c: true } }, { meta: { m: 1 } });
      const before = await collect(ctx.store.transitions());
      const heads = await ctx.store.streams();
      const store = await ctx.reopen();
      assert.equal(store.lastSeq(), 12);
      assertJsonEqual((await collect(store.transitions())) as never, before as never, 'transitions');
      assertJsonEqual(
        (await store.streams()).sort((a, b) => a.stream.localeCompare(b.stream)) as never,
        heads.sort((a, b) => a.stream.localeCompare(b.stream)) as never,
        'heads',
      );
      for (let r = 0; r <= 11; r++) assertJsonEqual(await store.stateAt('global', r), states[r]!, `stateAt ${r}`);
    }, { needsReopen: true, options: { checkpointInterval: 4 } });

    test('U2 key order survives a reopen: integer-like keys first, then write order', async (ctx) => {
      for (const write of KEY_ORDER_WRITES) await accept(ctx.store, { global: write });
      const store = await ctx.reopen();
      for (let rev = 1; rev <= KEY_ORDERS.length; rev++) {
        assert.deepEqual(Object.keys(await store.stateAt('global', rev)), KEY_ORDERS[rev - 1], `stateAt ${rev}`);
      }
      assert.deepEqual(Object.keys(await store.state('global')), KEY_ORDERS[KEY_ORDERS.length - 1], 'state');
    }, { needsReopen: true, options: { checkpointInterval: 2 } });

    test('a reopened store continues the seq and the hash chain and audits clean', async (ctx) => {
      const t1 = await accept(ctx.store, { global: { a: 1 } });
      const store = await ctx.reopen();
      const t2 = await accept(store, { global: { a: 2 } });
      assert.equal(t2.seq, 2);
      assert.equal(t2.prevHash, t1.hash);
      const reopened = await ctx.reopen();
      const report = await reopened.audit();
      assertJsonEqual(report.problems as never, [], 'problems');
      assert.equal(report.transitions, 2);
    }, { needsReopen: true });

    test('origins and idempotency ids survive a reopen', async (ctx) => {
      await publishSeries(ctx.store, 'global', counterSeries(9).patches);
      const original = await accept(ctx.store, { 'session:s': { a: 1 } }, { id: 'once' });
      await ctx.store.compact('global', { keepRevisions: 3 });
      const store = await ctx.reopen();
      assert.equal((await store.head('global')).origin, 7);
      const retry = await store.publish({ changes: { 'session:s': { a: 1 } }, id: 'once' });
      assert.equal(retry.status, 'duplicate');
      assert.equal(retry.transition?.seq, original.seq);
    }, { needsReopen: true, options: { checkpointInterval: 4 } });

    test("writes acknowledged with durability 'fsync' are readable after reopen", async (ctx) => {
      for (let i = 1; i <= 5; i++) await accept(ctx.store, { global: { i } }, { durability: 'fsync' });
      const store = await ctx.reopen({ durability: 'fsync' });
      assertJsonEqual(await store.state('global'), { i: 5 }, 'state');
    }, { needsReopen: true });
  });
}
