/**
 * Conformance: `audit` (DESIGN.md "Store model", Tamper evidence: replays every stream from its
 * origin and checks the chain, every checkpoint and every head).
 */
import type { ConformanceOptions, StoreInitializer, TestApi } from '../initializer.js';
import { assert, assertJsonEqual } from '../internal/assert.js';
import { defineGroup } from '../internal/group.js';
import { accept, counterSeries, publishSeries } from '../internal/publish.js';

/**
 * Register the `audit` group: counts of a clean store, progress reports, and a clean report
 * after every kind of write (multi-stream, fork, revert, compaction, append).
 */
export function auditGroup(init: StoreInitializer, api: TestApi, options: ConformanceOptions = {}): void {
  defineGroup('audit', 'audit', init, api, options, ({ test }) => {
    test('audit counts every transition and stream of an uncompacted store', async ({ store }) => {
      await publishSeries(store, 'global', counterSeries(10).patches);
      await accept(store, { 'session:s': { a: 1 }, 'cwd:/w': { b: [1, 2] } });
      await store.fork('global', 'session:f', { at: 5 });
      await store.revert('global', 2);
      const report = await store.audit();
      assertJsonEqual(report.problems as never, [], 'problems');
      assert.equal(report.transitions, 13);
      assert.equal(report.streams, 4);
    });

    test('an empty store audits clean', async ({ store }) => {
      const report = await store.audit();
      assertJsonEqual(report as never, { transitions: 0, streams: 0, checkpoints: 0, problems: [] } as never, 'report');
    });

    test('a store after every kind of write, compaction last, audits clean', async ({ store }) => {
      await publishSeries(store, 'global', counterSeries(10).patches);
      await accept(store, { 'session:s': { a: 1 }, 'cwd:/w': { b: [1, 2] } });
      await store.fork('global', 'session:f', { at: 5 });
      await store.revert('global', 2);
      await store.compact('global', { keepRevisions: 4 });
      const report = await store.audit();
      assertJsonEqual(report.problems as never, [], 'problems');
      // Compaction removed the transitions that only held revisions below the origin.
      assert.ok(report.transitions >= 1 && report.transitions <= store.lastSeq(), `transitions ${report.transitions}`);
      assert.equal(report.streams, 4);
      assert.ok(report.checkpoints >= 1, `checkpoints ${report.checkpoints}`);
    }, { options: { checkpointInterval: 3 } });

    test('onProgress reports done ≤ total, ending at total', async ({ store }) => {
      await publishSeries(store, 'global', counterSeries(7).patches);
      const calls: Array<[number, number]> = [];
      await store.audit({ onProgress: (done, total) => calls.push([done, total]) });
      assert.ok(calls.length >= 1, 'called at least once');
      for (const [done, total] of calls) assert.ok(done <= total, `${done} ≤ ${total}`);
      const last = calls.at(-1)!;
      assert.equal(last[0], last[1]);
      for (let i = 1; i < calls.length; i++) assert.ok(calls[i]![0] >= calls[i - 1]![0], 'monotonic');
    });

    test('audit publishes nothing', async ({ store }) => {
      await accept(store, { global: { a: 1 } });
      await store.audit();
      assert.equal(store.lastSeq(), 1);
      assertJsonEqual(await store.state('global'), { a: 1 }, 'state');
    });
  });
}
