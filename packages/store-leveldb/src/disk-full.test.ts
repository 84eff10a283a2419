/**
 * Disk full on a real file system (README "Fail closed", "Durability contract"): a store on a
 * 3 MB tmpfs takes ~60 KB patches until a write fails with "No space left on device"; the disk
 * then grows. LevelDB keeps appending to its log after a failed append and its recovery drops
 * what follows the torn record, so the store must accept no write until it is reopened — and a
 * reopen must show exactly the acknowledged transitions, audited clean.
 * Needs root for `mount` (skips with a visible reason elsewhere; fails under CI=true).
 */
import { describe, expect, it } from 'vitest';
import { isStateflowError } from '@stateflow/core';
import { tmpfsForTest } from '@stateflow/test-kit';
import type { Durability, Store } from '@stateflow/store';
import { openStore } from './open-store.js';

const PATCH = 'x'.repeat(60_000);

/** Publish until the disk is full; returns the seqs acknowledged and the failure. */
async function fillDisk(store: Store): Promise<{ acked: number[]; failure: unknown }> {
  const acked: number[] = [];
  for (let i = 1; i < 1_000; i++) {
    try {
      const r = await store.publish({ changes: { global: { [`k${i}`]: PATCH } } });
      acked.push(r.transition?.seq ?? -1);
    } catch (failure) {
      return { acked, failure };
    }
  }
  throw new Error('the disk never filled');
}

describe.each<Durability>(['buffered', 'fsync'])('disk full (%s)', (durability) => {
  it('refuses every write after a failed one until reopened; the reopen holds exactly the acknowledged transitions', async (t) => {
    const disk = await tmpfsForTest(3 * 1024 * 1024, { skip: () => t.skip(), onFinished: (fn) => t.onTestFinished(fn) });
    if (disk === null) return;
    const dir = `${disk.dir}/store`;
    let store = await openStore(dir, { durability, checkpointInterval: 4 });
    await store.publish({ changes: { 'cwd:/w': { tactics: { step: 'before' } } } });
    const { acked, failure } = await fillDisk(store);
    expect(isStateflowError(failure, 'STORE_IO') && failure.message).toContain('No space left on device');
    expect(acked.length).toBeGreaterThan(5);
    const lastAcked = store.lastSeq();

    await disk.resize(64 * 1024 * 1024);
    // Every kind of write fails fast, typed, and names the failure; nothing is written.
    const writes: [string, () => Promise<unknown>][] = [
      ['publish', () => store.publish({ changes: { global: { after: PATCH } } })],
      ['fork', () => store.fork('cwd:/w', 'session:copy')],
      ['revert', () => store.revert('global', 1)],
      ['compact', () => store.compact('global', { keepRevisions: 2 })],
      ['append', async () => store.append({ ...(await store.transition(1)), seq: lastAcked + 1 })],
    ];
    for (const [name, write] of writes) {
      const err = await write().then(
        () => null,
        (e: unknown) => e,
      );
      expect(isStateflowError(err, 'REOPEN_REQUIRED') && err.details, name).toEqual({ location: dir, failure: 'STORE_IO' });
    }
    // Reads keep working, from memory and from disk.
    expect(store.lastSeq()).toBe(lastAcked);
    expect((await store.state('cwd:/w')).tactics).toEqual({ step: 'before' });
    expect(Object.keys(await store.stateAt('global', 3))).toEqual(['k1', 'k2', 'k3']);

    await store.close();
    store = await openStore(dir, { durability, checkpointInterval: 4 });
    try {
      expect(store.lastSeq()).toBe(lastAcked);
      const seqs: number[] = [];
      for await (const tr of store.transitions()) seqs.push(tr.seq);
      expect(seqs).toEqual([1, ...acked]);
      expect((await store.audit()).problems).toEqual([]);
      // The reopened store writes again, after the last acknowledged transition.
      const next = await store.publish({ changes: { global: { after: 'grown' } } });
      expect(next.transition?.seq).toBe(lastAcked + 1);
    } finally {
      await store.close();
    }
    store = await openStore(dir);
    expect(store.lastSeq()).toBe(lastAcked + 1);
    expect((await store.audit()).problems).toEqual([]);
    await store.close();
  });
});
