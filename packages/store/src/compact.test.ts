import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isStateflowError } from '@stateflow/core';
import type { Harness } from './test-support/backends.js';
import { backends } from './test-support/backends.js';
import { collect, dump, failureOf } from '@stateflow/test-kit';

describe.each(backends)('compaction and retention on $name', (backend) => {
  let h: Harness;
  beforeEach(async () => {
    h = await backend.create({ checkpointInterval: 4 });
    // seq 1..10: global revs 1..10; session:b changes at seqs 3 and 9 (revs 1, 2).
    for (let i = 1; i <= 10; i++) {
      const changes: Record<string, Record<string, number>> = { global: { n: i } };
      if (i === 3 || i === 9) changes['session:b'] = { m: i };
      await h.store.publish({ changes, id: `p${i}` });
    }
    expect(h.store.lastSeq()).toBe(10);
  });
  afterEach(async () => {
    await h.destroy();
  });

  it('moves the origin forward; reads before it fail with HISTORY_NOT_RETAINED naming the origin', async () => {
    expect(await h.store.compact('global', { keepRevisions: 4 })).toEqual({ origin: 7, deleted: 7 });
    for (const reopen of [false, true]) {
      if (reopen) await h.reopen();
      expect(await h.store.head('global')).toEqual({ stream: 'global', rev: 10, seq: 10, origin: 7 });
      expect(await failureOf(h.store.stateAt('global', 6))).toEqual({ code: 'HISTORY_NOT_RETAINED', details: { stream: 'global', rev: 6, origin: 7 } });
      expect((await failureOf(h.store.patchAt('global', 7))).code).toBe('HISTORY_NOT_RETAINED');
      for (let rev = 7; rev <= 10; rev++) expect(await h.store.stateAt('global', rev)).toEqual({ n: rev });
      expect(await h.store.patchAt('global', 8)).toEqual({ n: 8 });
      expect(await h.store.state('global')).toEqual({ n: 10 });
      // Global seqs before the origin's seq: statesAt fails for global, session:b still reads.
      expect((await failureOf(h.store.statesAt(['global'], 5))).code).toBe('HISTORY_NOT_RETAINED');
      expect(await h.store.statesAt(['session:b'], 5)).toEqual({ 'session:b': { m: 3 } });
      expect(await h.store.stateAt('session:b', 1)).toEqual({ m: 3 });
      expect((await h.store.audit()).problems).toEqual([]);
    }
  });

  it('prunes transitions no retained revision needs, keeps shared ones, and the chain audits clean', async () => {
    await h.store.compact('global', { keepRevisions: 2 });
    // seq 3 also holds session:b rev 1 (retained): it stays whole; seqs 1,2,4..8 are pruned.
    expect((await collect(h.store.transitions())).map((t) => t.seq)).toEqual([3, 9, 10]);
    expect((await failureOf(h.store.transition(2))).code).toBe('HISTORY_NOT_RETAINED');
    // Every pruned transition keeps its `I` record (README "Compaction"): ids of seqs 1..10.
    const idRecords = (await h.raw(dump)).filter((entry) => entry.startsWith(Buffer.from('I').toString('hex')));
    expect(idRecords.map((entry) => Buffer.from(entry.split('=')[0] as string, 'hex').toString().slice(1)).sort()).toEqual(Array.from({ length: 10 }, (_, i) => `p${i + 1}`).sort());
    await h.reopen();
    // The pruned transition's id is kept in its stub: a retry is a duplicate carrying the stub.
    expect(await h.store.publish({ changes: { global: { n: 2 } }, id: 'p2' })).toEqual({
      status: 'duplicate',
      transition: { pruned: true, seq: 2, id: 'p2', changes: [{ stream: 'global', rev: 2 }], prevHash: expect.any(String), hash: expect.any(String) },
    });
    expect(await h.store.state('global')).toEqual({ n: 10 });
    expect((await h.store.publish({ changes: { global: { n: 2 } }, id: 'p11' })).status).toBe('accepted');
    expect((await h.store.publish({ changes: { global: { n: 3 } }, id: 'p10' })).status).toBe('duplicate');
    await h.store.compact('session:b', { keepRevisions: 1 });
    // seq 9 held global rev 9 and session:b rev 2, both at or below their origins now.
    expect((await collect(h.store.transitions())).map((t) => t.seq)).toEqual([10, 11]);
    expect(await h.store.compact('session:b', { keepRevisions: 5 })).toEqual({ origin: 2, deleted: 0 });
    const report = await h.store.audit();
    expect(report.problems).toEqual([]);
    expect(report.transitions).toBe(2);
    await h.reopen();
    expect(await h.store.state('session:b')).toEqual({ m: 9 });
    expect(await h.store.state('global')).toEqual({ n: 2 });
  });

  it('compacts a stream that was not loaded yet, down to its head', async () => {
    await h.reopen();
    expect(await h.store.compact('global', { keepRevisions: 1 })).toEqual({ origin: 10, deleted: 10 });
    expect(await h.store.stateAt('global', 10)).toEqual({ n: 10 });
    expect((await h.store.audit()).problems).toEqual([]);
  });

  it('historical reads racing a compaction either read the right state or HISTORY_NOT_RETAINED', async () => {
    await h.reopen({ checkpointInterval: 4, cacheSize: 0 });
    const reads = Array.from({ length: 30 }, (_, i) => {
      const rev = 1 + (i % 10);
      return h.store.stateAt('global', rev).then(
        (state) => expect(state).toEqual({ n: rev }),
        (err: unknown) => expect(isStateflowError(err, 'HISTORY_NOT_RETAINED') && rev < 6).toBe(true),
      );
    });
    const compaction = h.store.compact('global', { keepRevisions: 5 });
    const publishes = [11, 12].map((n) => h.store.publish({ changes: { global: { n } } }));
    await Promise.all([...reads, compaction, ...publishes]);
    expect(await h.store.state('global')).toEqual({ n: 12 });
    expect((await h.store.audit()).problems).toEqual([]);
  });

  it('validates keepRevisions', async () => {
    expect((await failureOf(h.store.compact('global', { keepRevisions: 0 }))).code).toBe('INPUT_INVALID');
  });

  it('applies a retention policy on publish at checkpoint boundaries', async () => {
    await h.reopen({ checkpointInterval: 4, retention: { keepRevisions: 3 } });
    await h.store.publish({ changes: { global: { n: 11 } } });
    // rev 11, keep ≥ 3 → origin = floor((11 - 3 + 1) / 4) * 4 = 8.
    expect((await h.store.head('global')).origin).toBe(8);
    for (let i = 12; i <= 16; i++) await h.store.publish({ changes: { global: { n: i } } });
    const head = await h.store.head('global');
    expect(head.rev - head.origin + 1).toBeGreaterThanOrEqual(3);
    expect(head.origin).toBe(12);
    expect((await h.store.audit()).problems).toEqual([]);
  });
});
