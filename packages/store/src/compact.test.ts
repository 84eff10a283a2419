import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isStateflowError } from '@stateflow/core';
import type { Harness } from './test-support/backends.js';
import { backends } from './test-support/backends.js';
import { collect, dump, failureOf } from '@stateflow/test-kit';
import { COMPACTION_SLICE } from './internal/compaction.js';
import { MemoryLevel } from 'memory-level';
import { openMemoryStorage } from './memory-storage.js';
import { openStoreOver } from './open-store.js';
import { Family, streamRange } from './internal/keys.js';
import type { Storage } from './storage.js';
import type { Store } from './types.js';

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

describe('compaction in slices', () => {
  /** A memory store whose commits are recorded: the keys each batch deletes. */
  async function recorded(): Promise<{ store: Store; deletes: number[]; storage: Storage }> {
    const storage = await openMemoryStorage();
    const deletes: number[] = [];
    const beginWrite = storage.beginWrite.bind(storage);
    storage.beginWrite = async () => {
      const session = await beginWrite();
      return { ...session, commit: (ops, options) => (deletes.push(ops.filter((op) => op.type === 'del').length), session.commit(ops, options)) };
    };
    return { store: await openStoreOver(storage, { checkpointInterval: 16 }), deletes, storage };
  }

  it('moves the origin at most COMPACTION_SLICE revisions per atomic batch, and publishes go in between', async () => {
    const { store, deletes, storage } = await recorded();
    for (let i = 1; i <= 3 * COMPACTION_SLICE; i++) await store.publish({ changes: { long: { i } } });
    deletes.length = 0;
    const order: string[] = [];
    const compaction = store.compact('long', { keepRevisions: 1 }).then((r) => (order.push('compaction'), r));
    const publish = store.publish({ changes: { other: { x: 1 } } }).then(() => order.push('publish'));
    expect(await compaction).toEqual({ origin: 3 * COMPACTION_SLICE, deleted: 3 * COMPACTION_SLICE });
    await publish;
    expect(order).toEqual(['publish', 'compaction']);
    // Three slices (the publish's batch deletes nothing), each deleting a bounded number of keys:
    // its revision-index and seq-index entries, the checkpoints (and their pages) below it.
    const slices = deletes.filter((n) => n > 0);
    expect(slices).toHaveLength(3);
    for (const n of slices) expect(n).toBeLessThanOrEqual(3 * COMPACTION_SLICE);
    // Only the origin's seq-index entry stays; a seq before it reads as not retained.
    const seqIndex: Uint8Array[] = [];
    for await (const [key] of storage.iterate(streamRange(Family.seq, 'long', 0, store.lastSeq()))) seqIndex.push(key);
    expect(seqIndex).toHaveLength(1);
    expect((await failureOf(store.statesAt(['long'], 5))).code).toBe('HISTORY_NOT_RETAINED');
    expect(await store.stateAt('long', 3 * COMPACTION_SLICE)).toEqual({ i: 3 * COMPACTION_SLICE });
    expect((await store.audit()).problems).toEqual([]);
    await store.close();
  });

  it('a commit failing in the second slice leaves the first one committed: a consistent store that audits clean', async () => {
    const db = new MemoryLevel<Uint8Array, Uint8Array>({ keyEncoding: 'view', valueEncoding: 'view' });
    const storage = await openMemoryStorage(db);
    let failAt = -1;
    const beginWrite = storage.beginWrite.bind(storage);
    storage.beginWrite = async () => {
      const session = await beginWrite();
      return { ...session, commit: async (ops, options) => (ops.some((op) => op.type === 'del') && failAt-- === 0 ? Promise.reject(new Error('disk gone')) : session.commit(ops, options)) };
    };
    const store = await openStoreOver(storage, { checkpointInterval: 16 });
    for (let i = 1; i <= 2 * COMPACTION_SLICE; i++) await store.publish({ changes: { s: { i } } });
    failAt = 1;
    await expect(store.compact('s', { keepRevisions: 1 })).rejects.toThrow();
    await store.close().catch(() => undefined);
    const reopened = await openStoreOver(await openMemoryStorage(db));
    expect(await reopened.head('s')).toMatchObject({ rev: 2 * COMPACTION_SLICE, origin: COMPACTION_SLICE });
    for (let rev = COMPACTION_SLICE; rev <= 2 * COMPACTION_SLICE; rev++) expect(await reopened.stateAt('s', rev)).toEqual({ i: rev });
    expect((await reopened.audit()).problems).toEqual([]);
    await reopened.close();
  });

  it('a write to the stream between a slice read and its commit makes it stale: read again, nothing lost', async () => {
    const { store } = await recorded();
    for (let i = 1; i <= 2 * COMPACTION_SLICE; i++) await store.publish({ changes: { hot: { i } } });
    const compaction = store.compact('hot', { keepRevisions: 1 });
    const writes = Array.from({ length: 20 }, (_, i) => store.publish({ changes: { hot: { w: i } } }));
    await Promise.all([compaction, ...writes]);
    const head = await store.head('hot');
    expect(head.origin).toBeGreaterThanOrEqual(2 * COMPACTION_SLICE);
    for (let rev = head.origin; rev <= head.rev; rev++) await store.stateAt('hot', rev);
    expect(await store.state('hot')).toMatchObject({ i: 2 * COMPACTION_SLICE, w: 19 });
    expect((await store.audit()).problems).toEqual([]);
    await store.close();
  });
});
