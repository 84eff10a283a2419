/**
 * Buffered commits through the journal (README "Durability contract"): a commit the journal holds
 * and LevelDB never got is replayed when the store opens; point reads see a commit before LevelDB
 * has it, iterators once it has; a damaged journal keeps the store closed and changes nothing; a
 * publishing loop lets the event loop turn; a commit is failed only when its own append failed.
 */
import { cp, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ClassicLevel } from 'classic-level';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { failureOf } from '@stateflow/test-kit';
import { openDiskStorage } from './level-storage.js';
import { openStore, openStoreOver } from './open-store.js';
import { recoverStore } from './recover-store.js';
import type { Storage, StorageOp } from './storage.js';
import { collect, hashDir, rawWrite } from './test-support/backends.js';
import { JOURNAL_FILE, Journal, encodeFrame } from './internal/leveldb/journal.js';
import { journalKey } from './internal/keys.js';
import { decodeJournalMark } from './internal/records.js';

/** The journal mark of the closed store at `dir`: the last frame its LevelDB holds. */
async function markOf(dir: string): Promise<number> {
  const storage = await openDiskStorage(dir);
  try {
    const bytes = await storage.get(journalKey());
    return bytes === undefined ? 0 : decodeJournalMark(journalKey(), bytes);
  } finally {
    await storage.close();
  }
}

/** `storage` with every commit's operations recorded in `into`. */
function recording(storage: Storage, into: StorageOp[][]): Storage {
  const beginWrite = storage.beginWrite.bind(storage);
  storage.beginWrite = async () => {
    const session = await beginWrite();
    return {
      commit: (ops, options) => {
        into.push(ops);
        return session.commit(ops, options);
      },
      abort: () => session.abort(),
    };
  };
  return storage;
}

describe('the journal of a LevelDB store', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'stateflow-journal-store-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('replays on open the commits it holds that LevelDB never got: same log, same states, audit clean, journal emptied', async () => {
    const original = path.join(dir, 'original');
    const behind = path.join(dir, 'behind');
    let store = await openStore(original, { checkpointInterval: 4 });
    for (let i = 1; i <= 5; i++) await store.publish({ changes: { global: { n: i } } });
    await store.close();
    await cp(original, behind, { recursive: true });

    const commits: StorageOp[][] = [];
    store = await openStoreOver(recording(await openDiskStorage(original), commits), { checkpointInterval: 4 });
    for (let i = 6; i <= 12; i++) await store.publish({ changes: { global: { n: i, [`k${i % 3}`]: { v: i } }, [`session:${i % 2}`]: { last: i } }, id: `id-${i}` });
    await store.compact('global', { keepRevisions: 4 });
    const expected = { transitions: await collect(store.transitions()), streams: await store.streams(), global: await store.state('global') };
    await store.close();
    expect(commits.length).toBe(8);

    // The store left behind at seq 5, with the later commits only in its journal.
    const journal = Journal.open(behind, 0, (await markOf(behind)) + 1);
    for (const ops of commits) journal.append(ops);
    journal.close();
    store = await openStore(behind, { checkpointInterval: 4, cacheSize: 0 });
    try {
      expect(await collect(store.transitions())).toEqual(expected.transitions);
      expect(await store.streams()).toEqual(expected.streams);
      expect(await store.state('global')).toEqual(expected.global);
      expect(await store.stateAt('global', 10)).toEqual({ n: 10, k0: { v: 9 }, k1: { v: 10 }, k2: { v: 8 } });
      expect((await store.publish({ changes: { global: { n: 99 } }, id: 'id-7' })).status).toBe('duplicate');
      expect((await store.audit()).problems).toEqual([]);
    } finally {
      await store.close();
    }
    expect((await stat(path.join(behind, JOURNAL_FILE))).size).toBe(0);
  });

  it('point reads see a buffered commit in the tick it is acknowledged, before LevelDB has it; iterators once LevelDB has it', async () => {
    const storage = await openDiskStorage(dir);
    try {
      const key = Buffer.from('Zpending');
      await rawWrite(storage, [{ type: 'put', key, value: Buffer.from('v1') }]);
      const session = await storage.beginWrite();
      await session.commit([{ type: 'put', key, value: Buffer.from('v2') }, { type: 'del', key: Buffer.from('Zother') }], { sync: false });
      // Same tick as the acknowledgement: LevelDB's write (in its thread pool) cannot have finished.
      expect(Buffer.from(storage.getSync?.(key) ?? []).toString()).toBe('v2');
      expect(await storage.getMany([key, Buffer.from('Zother')])).toEqual([Buffer.from('v2'), undefined]);
      const entries = await collect(storage.iterate({ gte: Buffer.from('Z') }));
      expect(entries.map(([k, v]) => `${Buffer.from(k).toString()}=${Buffer.from(v).toString()}`)).toEqual(['Zpending=v2']);
    } finally {
      await storage.close();
    }
    expect((await stat(path.join(dir, JOURNAL_FILE))).size).toBe(0);
  });

  it('stays bounded under a steady stream of buffered commits: emptied once past 4 MiB, never more than one commit beyond it', async () => {
    const store = await openStore(dir);
    const patch = 'p'.repeat(100_000);
    let largest = 0;
    try {
      for (let i = 0; i < 90; i++) {
        await store.publish({ changes: { global: { [`k${i % 5}`]: `${i}${patch}` } } });
        largest = Math.max(largest, (await stat(path.join(dir, JOURNAL_FILE))).size);
      }
      expect((await store.audit()).problems).toEqual([]);
    } finally {
      await store.close();
    }
    expect(largest).toBeGreaterThan(3 * 1024 * 1024);
    expect(largest).toBeLessThan(5 * 1024 * 1024); // 4 MiB plus one commit (a patch and a checkpoint of ~500 KB)
  });

  it('recoverStore copies a store with a damaged journal: the commits before the damage are kept, those after it named as lost', async () => {
    const original = path.join(dir, 'original');
    const behind = path.join(dir, 'behind');
    let store = await openStore(original);
    await store.publish({ changes: { global: { n: 1 } } });
    await store.close();
    await cp(original, behind, { recursive: true });
    const commits: StorageOp[][] = [];
    store = await openStoreOver(recording(await openDiskStorage(original), commits));
    for (let i = 2; i <= 6; i++) await store.publish({ changes: { global: { n: i } } });
    await store.close();
    const mark = await markOf(behind);
    const frames = commits.map((ops, i) => encodeFrame({ number: mark + 1 + i, ops }));
    (frames[2] as Buffer)[30] ^= 0x01; // seq 4's frame
    await writeFile(path.join(behind, JOURNAL_FILE), Buffer.concat(frames));
    const into = path.join(dir, 'recovered');
    const report = await recoverStore(behind, into);
    expect(report.damage).toEqual([{ kind: 'damaged', file: JOURNAL_FILE, offset: (frames[0] as Buffer).byteLength + (frames[1] as Buffer).byteLength, detail: 'a journal frame does not verify' }]);
    expect({ tip: report.tip, lastSeqHeld: report.lastSeqHeld, lost: report.lost, problems: report.problems }).toEqual({ tip: 3, lastSeqHeld: 6, lost: [[4, 6]], problems: [] });
    store = await openStore(into);
    try {
      expect(await store.state('global')).toEqual({ n: 3 });
    } finally {
      await store.close();
    }
  });

  it('a publishing loop lets timers and I/O run (at least every ms), so an iterator started meanwhile ends while it goes on', async () => {
    const store = await openStore(dir);
    try {
      let ticks = 0;
      const timer = setInterval(() => ticks++, 1);
      let read: Promise<number> | null = null;
      for (let i = 0; i < 3000; i++) {
        await store.publish({ changes: { noise: { i } } });
        if (i === 100) read = collect(store.transitions({ from: 1, to: 1 })).then((t) => t.length);
      }
      clearInterval(timer);
      expect(ticks).toBeGreaterThan(20);
      expect(await read).toBe(1);
    } finally {
      await store.close();
    }
  });

  it('a buffered commit is acknowledged once journaled, even when LevelDB then fails to take it; the next open has exactly the acknowledged ones', async () => {
    // A LevelDB batch write that fails on demand (only the chained batches the storage writes).
    const proto = ClassicLevel.prototype as unknown as { batch: (...args: unknown[]) => unknown };
    const batch = proto.batch;
    let fail = false;
    proto.batch = function (this: unknown, ...args: unknown[]) {
      const chained = batch.apply(this, args) as { write: (...a: unknown[]) => Promise<void>; close: () => Promise<void> };
      const write = chained.write.bind(chained);
      chained.write = async (...a: unknown[]) => {
        if (!fail) return write(...a);
        await chained.close();
        // Late enough that the next commits are journaled while this write is in flight.
        await new Promise((resolve) => setTimeout(resolve, 300));
        throw Object.assign(new Error('injected I/O error'), { code: 'LEVEL_IO_ERROR' });
      };
      return chained;
    };
    try {
      const store = await openStore(dir);
      await store.publish({ changes: { s: { i: 0 } } });
      fail = true;
      // A (~3 MiB journaled: patch, its R copy, a checkpoint) keeps the journal under 4 MiB; B
      // (~9 MiB) takes the pending commits past 8 MiB, so B waits for LevelDB, which fails.
      const outcomes: string[] = [];
      for (const [i, blob] of [[1, 'a'.repeat(1 << 20)], [2, 'b'.repeat(3 << 20)], [3, ''], [4, '']] as const) {
        outcomes.push(await store.publish({ changes: { s: { i, blob } } }).then((r) => `${r.status} ${String(r.transition?.seq)}`, (e: { code: string }) => e.code));
      }
      expect(outcomes).toEqual(['accepted 2', 'accepted 3', 'STORE_IO', 'REOPEN_REQUIRED']);
      expect(((await store.state('s')) as { i: number }).i).toBe(2);
      await store.close();
      fail = false;
      const again = await openStore(dir);
      try {
        expect(await again.head('s')).toEqual(expect.objectContaining({ rev: 3 }));
        expect(((await again.state('s')) as { i: number }).i).toBe(2);
        expect((await again.audit()).problems).toEqual([]);
      } finally {
        await again.close();
      }
    } finally {
      proto.batch = batch;
    }
  }, 60_000);

  it('a copy taken while the store writes (LevelDB files, then an fsync and buffered commits, then the journal) is refused at open, and recoverStore names the hole', async () => {
    const live = path.join(dir, 'live');
    const copy = path.join(dir, 'copy');
    const store = await openStore(live);
    await store.publish({ changes: { s: { v: 1 } }, id: 'a' });
    await new Promise((resolve) => setTimeout(resolve, 50)); // LevelDB takes frame 1
    for (const name of await readdir(live)) if (name !== JOURNAL_FILE && name !== 'LOCK') await cp(path.join(live, name), path.join(copy, name), { recursive: true });
    await store.publish({ changes: { f: { v: 2 } }, id: 'f', durability: 'fsync' }); // takes number 2, no frame
    await store.publish({ changes: { s: { v: 3 } }, id: 'b' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    await cp(path.join(live, JOURNAL_FILE), path.join(copy, JOURNAL_FILE));
    await store.close();
    expect(await failureOf(openStore(copy))).toEqual({ code: 'STORE_CORRUPT', details: expect.objectContaining({ file: JOURNAL_FILE, offset: 0 }) });
    const report = await recoverStore(copy, path.join(dir, 'recovered'));
    expect({ tip: report.tip, lost: report.lost, problems: report.problems }).toEqual({ tip: 1, lost: [[2, 3]], problems: [] });
  });

  it('a directory holding only a journal is refused without creating anything', async () => {
    await writeFile(path.join(dir, JOURNAL_FILE), encodeFrame({ number: 1, ops: [{ type: 'put', key: Buffer.from('Zx'), value: Buffer.from('1') }] }));
    expect(await failureOf(openStore(dir, { createIfMissing: false }))).toEqual({ code: 'NOT_FOUND', details: expect.anything() });
    expect(await failureOf(openStore(dir))).toEqual({ code: 'STORE_CORRUPT', details: expect.objectContaining({ file: JOURNAL_FILE, offset: 0 }) });
    expect(await readdir(dir)).toEqual([JOURNAL_FILE]);
  });

  it('a journal damaged before its tail keeps the store closed with STORE_CORRUPT naming it; nothing is changed', async () => {
    const store = await openStore(dir);
    await store.publish({ changes: { global: { n: 1 } } });
    await store.close();
    const frames = [encodeFrame({ number: 2, ops: [{ type: 'put', key: Buffer.from('Zx'), value: Buffer.from('1') }] }), encodeFrame({ number: 3, ops: [{ type: 'put', key: Buffer.from('Zy'), value: Buffer.from('2') }] })];
    (frames[0] as Buffer)[20] ^= 0xff;
    await writeFile(path.join(dir, JOURNAL_FILE), Buffer.concat(frames));
    const before = await hashDir(dir);
    expect(await failureOf(openStore(dir))).toEqual({ code: 'STORE_CORRUPT', details: { file: JOURNAL_FILE, offset: 0, detail: 'a journal frame does not verify' } });
    expect(await hashDir(dir)).toBe(before);
  });
});
