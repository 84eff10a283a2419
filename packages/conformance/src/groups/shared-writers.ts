/**
 * Conformance: two stores over the same data, as two processes (or machines) sharing a
 * database are (store README "Storage seam"). Each sees every commit of the other; expected
 * revisions, idempotency ids, the seq and the hash chain hold across both; a watch on one sees
 * the other's transitions; a compaction by one moves the origin the other reads. Skipped with
 * the reason recorded for backends one process holds at a time (no `openShared`).
 */
import type { Store, StoreOptions } from '@stateflow/store';
import type { ConformanceOptions, StoreInitializer, TestApi } from '../initializer.js';
import { assert, assertJsonEqual, collect, rejectsWithCode } from '../internal/assert.js';
import { defineGroup, type GroupBuilder, withStore } from '../internal/group.js';
import { accept } from '../internal/publish.js';
import { assertLockExcludes } from '../internal/locks.js';

const NO_SHARED_REASON = 'the backend is held by one process at a time (no openShared)';

/** Run `body` with two stores over one store's data; both are destroyed afterwards. */
function withTwo(init: StoreInitializer, options: StoreOptions | undefined, body: (a: Store, b: Store) => Promise<void>): Promise<void> {
  return withStore(init, options, async (ctx) => {
    const other = await (init.openShared as NonNullable<StoreInitializer['openShared']>)(ctx.store, options);
    try {
      await body(ctx.store, other);
    } finally {
      await other.close();
    }
  });
}

/**
 * Register the `sharedWriters` group (needs {@link StoreInitializer.openShared}).
 */
export function sharedWritersGroup(init: StoreInitializer, api: TestApi, options: ConformanceOptions = {}): void {
  const skipping = init.openShared === undefined ? { ...init, skip: { ...init.skip, sharedWriters: init.skip?.sharedWriters ?? NO_SHARED_REASON } } : init;
  defineGroup('sharedWriters', 'shared writers', skipping, api, options, ({ plain }) => {
    sharedCommits(plain, init);
    sharedIdsWatchCompaction(plain, init);
  });
}

/** Commits, CAS and locks seen across stores. */
function sharedCommits(plain: GroupBuilder['plain'], init: StoreInitializer): void {
  plain('each store sees every commit of the other: heads, states, transitions, one chain', () =>
    withTwo(init, { checkpointInterval: 3 }, async (a, b) => {
      for (let i = 1; i <= 5; i++) await accept(a, { global: { n: i, [`k${i}`]: i } });
      assert.equal((await b.head('global')).rev, 5);
      assertJsonEqual(await b.state('global'), { n: 5, k1: 1, k2: 2, k3: 3, k4: 4, k5: 5 }, 'state through the other store');
      assertJsonEqual((await collect(b.transitions())) as never, (await collect(a.transitions())) as never, 'transitions');
      const t6 = await accept(b, { global: { n: 6 } });
      assert.equal(t6.seq, 6);
      assert.equal(t6.prevHash, (await a.transition(5)).hash);
      assert.equal((await a.head('global')).rev, 6);
      assertJsonEqual(await a.stateAt('global', 6), { n: 6, k1: 1, k2: 2, k3: 3, k4: 4, k5: 5 }, 'stateAt 6 through the first store');
      assert.equal((await a.audit()).problems.length, 0);
    }),
  );

  plain('expected revisions hold across stores: of two racing on one revision, one wins and the other gets CONFLICT', () =>
    withTwo(init, undefined, async (a, b) => {
      await accept(a, { 'session:s': { v: 0 } });
      const rev = (await b.head('session:s')).rev;
      const results = await Promise.allSettled([
        a.publish({ changes: { 'session:s': { v: 'a' } }, expected: { 'session:s': rev } }),
        b.publish({ changes: { 'session:s': { v: 'b' } }, expected: { 'session:s': rev } }),
      ]);
      assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1, 'exactly one wins');
      const lost = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
      const err = await rejectsWithCode(Promise.reject(lost.reason), 'CONFLICT');
      assertJsonEqual(err.details as never, { stream: 'session:s', expected: rev, actual: rev + 1 }, 'conflict details');
      assert.equal((await a.head('session:s')).rev, rev + 1);
    }),
  );

  plain('concurrent publishes through both stores get gap-free seqs, one chain, no revision twice', () =>
    withTwo(init, { checkpointInterval: 4 }, async (a, b) => {
      const streams = ['global', 'session:x', 'cwd:/y'];
      const calls = Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? a : b).publish({ changes: { [streams[i % 3] as string]: { [`k${i}`]: i } } }));
      const results = await Promise.all(calls);
      const seqs = results.map((r) => r.transition?.seq as number).sort((x, y) => x - y);
      assertJsonEqual(seqs, Array.from({ length: 40 }, (_, i) => i + 1), 'seqs');
      for (const stream of streams) {
        const revs = results.flatMap((r) => r.transition?.changes.filter((c) => c.stream === stream).map((c) => c.rev) ?? []).sort((x, y) => x - y);
        assertJsonEqual(revs, Array.from({ length: revs.length }, (_, i) => i + 1), `revisions of ${stream}`);
      }
      assert.equal((await b.audit()).problems.length, 0);
    }),
  );

  plain('a named lock excludes holders across stores (withLock waits, withLockIfFree declines)', () =>
    withTwo(init, undefined, (a, b) => assertLockExcludes(a, b)),
  );
}

/** Ids, watches and compaction across stores. */
function sharedIdsWatchCompaction(plain: GroupBuilder['plain'], init: StoreInitializer): void {
  plain('an idempotency id is shared: a retry through the other store returns the original', () =>
    withTwo(init, undefined, async (a, b) => {
      const original = await accept(a, { global: { once: true } }, { id: 'request-1' });
      const retry = await b.publish({ changes: { global: { once: 'again' } }, id: 'request-1' });
      assert.equal(retry.status, 'duplicate');
      assert.equal(retry.transition?.hash, original.hash);
      assert.equal(b.lastSeq(), 1);
    }),
  );

  plain("a watch on one store sees the other's transitions live, in seq order, none skipped", () =>
    withTwo(init, undefined, async (a, b) => {
      await accept(a, { global: { before: true } });
      const controller = new AbortController();
      const seen: number[] = [];
      const watching = (async () => {
        for await (const t of b.watch({ from: 0, signal: controller.signal })) {
          seen.push(t.seq);
          if (seen.length === 6) controller.abort();
        }
      })();
      for (let i = 0; i < 5; i++) await accept(a, { [`session:${i}`]: { i } });
      await Promise.race([watching, new Promise((_, reject) => setTimeout(() => reject(new Error(`watch saw only ${JSON.stringify(seen)}`)), 10_000))]);
      assertJsonEqual(seen, [1, 2, 3, 4, 5, 6], 'seqs seen by the watch');
    }),
  );

  plain('a compaction through one store moves the origin the other reads', () =>
    withTwo(init, { checkpointInterval: 4 }, async (a, b) => {
      for (let i = 1; i <= 10; i++) await accept(a, { global: { n: i } });
      assert.equal((await b.head('global')).origin, 0);
      const { origin } = await a.compact('global', { keepRevisions: 3 });
      assert.equal((await b.head('global')).origin, origin);
      await rejectsWithCode(b.stateAt('global', origin - 1), 'HISTORY_NOT_RETAINED');
      assertJsonEqual(await b.stateAt('global', origin), { n: origin }, 'state at the new origin');
      const next = await accept(b, { global: { n: 11 } });
      assert.equal(next.seq, 11);
      assert.equal((await a.audit()).problems.length, 0);
    }),
  );
}
