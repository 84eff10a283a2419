/**
 * Conformance: historical reads — `stateAt`, `statesAt`, `transition`, `transitions`, `diff`,
 * `append` (DESIGN.md "Store model": checkpoints every K revisions, replay, hash chain).
 */
import { applyPatch } from '@stateflow/core';
import type { Transition } from '@stateflow/store';
import type { ConformanceOptions, StoreInitializer, TestApi } from '../initializer.js';
import { assert, assertJsonEqual, collect, rejectsWithCode } from '../internal/assert.js';
import { defineGroup, type GroupBuilder, withStore } from '../internal/group.js';
import { accept, counterSeries, publishSeries } from '../internal/publish.js';

const K = 4;
const REVS = 3 * K + 3;

/**
 * Register the `history` group: every revision of a stream read back across several
 * checkpoint intervals, `REVISION_NOT_FOUND` past the head, `statesAt` by global seq,
 * transitions by seq and as ranges, `diff` round trips, and `append` of exported transitions
 * (verbatim copy; a tampered one is refused and appends nothing).
 */
export function historyGroup(init: StoreInitializer, api: TestApi, options: ConformanceOptions = {}): void {
  defineGroup('history', 'history', init, api, options, ({ test }) => {
    reads(test);
    verbatimCopies(test, init);
  });
}

/** Historical reads: stateAt, statesAt, transitions, diff. */
function reads(test: GroupBuilder['test']): void {
  test(`stateAt reads every revision across ${REVS} revisions with checkpointInterval ${K}`, async ({ store }) => {
    const { patches, states } = counterSeries(REVS);
    await publishSeries(store, 'global', patches);
    // Read in a scrambled order so that no cache of the previous read helps.
    const order = states.map((_, r) => (r * 7) % states.length);
    for (const r of order) assertJsonEqual(await store.stateAt('global', r), states[r]!, `stateAt(global, ${r})`);
  }, { options: { checkpointInterval: K } });

  test('stateAt past the head is REVISION_NOT_FOUND with stream, rev and head', async ({ store }) => {
    await accept(store, { global: { a: 1 } });
    const err = await rejectsWithCode(store.stateAt('global', 2), 'REVISION_NOT_FOUND');
    assertJsonEqual(err.details, { stream: 'global', rev: 2, head: 1 }, 'details');
    await rejectsWithCode(store.stateAt('global', -1), ['REVISION_NOT_FOUND', 'INPUT_INVALID'], 'negative rev');
    await rejectsWithCode(store.stateAt('global', 0.5), ['REVISION_NOT_FOUND', 'INPUT_INVALID'], 'fractional rev');
  });

  test('statesAt reads several streams as of a global seq', async ({ store }) => {
    await accept(store, { global: { a: 1 } });
    await accept(store, { 'session:s': { b: 1 } });
    await accept(store, { global: { a: 2 }, 'session:s': { b: 2 } });
    assertJsonEqual(await store.statesAt(['global', 'session:s'], 0), { global: {}, 'session:s': {} }, 'seq 0');
    assertJsonEqual(await store.statesAt(['global', 'session:s'], 1), { global: { a: 1 }, 'session:s': {} }, 'seq 1');
    assertJsonEqual(await store.statesAt(['global', 'session:s'], 2), { global: { a: 1 }, 'session:s': { b: 1 } }, 'seq 2');
    assertJsonEqual(await store.statesAt(['global', 'session:s'], 3), { global: { a: 2 }, 'session:s': { b: 2 } }, 'seq 3');
    await rejectsWithCode(store.statesAt(['global'], 4), 'TRANSITION_NOT_FOUND', 'seq past last');
  });

  test('transition(seq) returns exactly what publish returned', async ({ store }) => {
    const published: Transition[] = [];
    published.push(await accept(store, { global: { a: 1 } }, { meta: { m: 1 }, id: 'x' }));
    published.push(await accept(store, { global: { a: 2 }, 'session:s': { b: [1] } }));
    for (const t of published) assertJsonEqual((await store.transition(t.seq)) as never, t as never, `transition ${t.seq}`);
    await rejectsWithCode(store.transition(3), 'TRANSITION_NOT_FOUND', 'seq past last');
    await rejectsWithCode(store.transition(0), 'TRANSITION_NOT_FOUND', 'seq 0');
  });

  test('transitions() yields every transition in seq order; from/to are inclusive; stream filters', async ({ store }) => {
    for (let i = 1; i <= 6; i++) await accept(store, { [i % 2 ? 'global' : 'session:s']: { i } });
    const all = await collect(store.transitions());
    assert.deepEqual(all.map((t) => t.seq), [1, 2, 3, 4, 5, 6]);
    for (let i = 1; i < all.length; i++) assert.equal(all[i]?.prevHash, all[i - 1]?.hash);
    assert.deepEqual((await collect(store.transitions({ from: 2, to: 4 }))).map((t) => t.seq), [2, 3, 4]);
    assert.deepEqual((await collect(store.transitions({ stream: 'session:s' }))).map((t) => t.seq), [2, 4, 6]);
    assert.deepEqual((await collect(store.transitions({ stream: 'global', from: 2 }))).map((t) => t.seq), [3, 5]);
  });

  test('diff(a, b) applied to stateAt(a) gives stateAt(b), in both directions', async ({ store }) => {
    const { patches, states } = counterSeries(12);
    await publishSeries(store, 'global', patches);
    for (const [a, b] of [[0, 12], [3, 9], [9, 3], [12, 0], [5, 5]] as const) {
      const d = await store.diff('global', a, b);
      assertJsonEqual(Object.keys(d).length === 0 ? states[a]! : applyPatch(states[a]!, d), states[b]!, `diff ${a}→${b}`);
    }
  }, { options: { checkpointInterval: K } });
}

/** append and appendMany: exported transitions copied verbatim. */
function verbatimCopies(test: GroupBuilder['test'], init: StoreInitializer): void {
  test('append copies exported transitions verbatim; the copy audits clean', async ({ store }) => {
    const { patches } = counterSeries(9);
    await publishSeries(store, 'global', patches);
    await accept(store, { 'session:s': { x: 1 }, global: { extra: true } }, { meta: { by: 'test' } });
    const exported = await collect(store.transitions());
    await withStore(init, undefined, async ({ store: copy }) => {
      for (const t of exported) await copy.append(t);
      assert.equal(copy.lastSeq(), store.lastSeq());
      assertJsonEqual((await collect(copy.transitions())) as never, exported as never, 'transitions');
      assertJsonEqual(await copy.state('global'), await store.state('global'), 'state');
      assertJsonEqual(await copy.stateAt('global', 4), await store.stateAt('global', 4), 'stateAt');
      const report = await copy.audit();
      assertJsonEqual(report.problems as never, [], 'audit problems');
    });
  });

  test('append refuses a tampered or out-of-order transition and appends nothing', async ({ store }) => {
    await accept(store, { global: { a: 1 } });
    await accept(store, { global: { a: 2 } });
    const [t1, t2] = await collect(store.transitions());
    await withStore(init, undefined, async ({ store: copy }) => {
      await rejectsWithCode(copy.append(t2!), ['CONFLICT', 'STORE_CORRUPT', 'INPUT_INVALID'], 'out of order');
      const tampered: Transition = { ...t1!, changes: [{ stream: 'global', rev: 1, patch: { a: 666 } }] };
      await rejectsWithCode(copy.append(tampered), ['STORE_CORRUPT', 'INPUT_INVALID'], 'tampered');
      assert.equal(copy.lastSeq(), 0);
      assertJsonEqual(await copy.state('global'), {}, 'nothing appended');
      await copy.append(t1!);
      assert.equal(copy.lastSeq(), 1);
    });
  });

  test('appendMany copies exported transitions in one batch, each checked against the ones before it; all or nothing', async ({ store }) => {
    const { patches } = counterSeries(6);
    await publishSeries(store, 'global', patches);
    await accept(store, { 'session:s': { x: 1 } }, { id: 'once' });
    const exported = await collect(store.transitions());
    await withStore(init, undefined, async ({ store: copy }) => {
      const tampered: Transition = { ...exported[4]!, meta: { altered: true } };
      const err = await rejectsWithCode(copy.appendMany([...exported.slice(0, 4), tampered, ...exported.slice(5)]), ['STORE_CORRUPT', 'INPUT_INVALID'], 'tampered fifth');
      assert.match(err.message, /^Transition 5 of 7: /);
      assert.equal(copy.lastSeq(), 0);
      await rejectsWithCode(copy.appendMany([exported[0]!, exported[0]!]), ['CONFLICT', 'STORE_CORRUPT', 'INPUT_INVALID'], 'seq 1 twice');
      await rejectsWithCode(copy.appendMany([]), 'INPUT_INVALID', 'empty');
      assert.equal(copy.lastSeq(), 0);
      await copy.appendMany(exported.slice(0, 3));
      await copy.appendMany(exported.slice(3));
      assertJsonEqual((await collect(copy.transitions())) as never, exported as never, 'transitions');
      assertJsonEqual(await copy.stateAt('global', 5), await store.stateAt('global', 5), 'stateAt');
      assertJsonEqual((await copy.audit()).problems as never, [], 'audit problems');
    });
  });
}
