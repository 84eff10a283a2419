/**
 * The Level adapter's options (`openLevelStorage`): what a backend adds to any abstract-level
 * database — its mark in every batch, a step before close, the repairs of its open — on
 * memory-level. The seam's contract itself is the storage-seam suite's (`test/conformance/`).
 */
import { describe, expect, it } from 'vitest';
import { MemoryLevel } from 'memory-level';
import { collect } from '@stateflow/test-kit';
import { openLevelStorage } from './level-storage.js';
import type { StorageCapabilities, StorageRepair } from './storage.js';

const CAPABILITIES: StorageCapabilities = { persistent: false, fsync: true, soleWriter: true, reopenAfterFailedWrite: false };
const bytes = (text: string): Buffer => Buffer.from(text, 'latin1');
const MARK = { key: Buffer.concat([Buffer.from([0xff]), bytes('mark')]), value: (ops: readonly unknown[], options: { sync: boolean }) => bytes(`${options.sync ? 's' : 'u'}${ops.length}`) };

function database(): MemoryLevel<Uint8Array, Uint8Array> {
  return new MemoryLevel<Uint8Array, Uint8Array>({ keyEncoding: 'view', valueEncoding: 'view' });
}

describe('openLevelStorage', () => {
  it('puts the mark in every non-empty batch (synced or not, as the batch was written) and never iterates it', async () => {
    const db = database();
    const storage = await openLevelStorage(db, { location: null, capabilities: CAPABILITIES, mark: MARK });
    const session = await storage.beginWrite();
    await session.commit([{ type: 'put', key: bytes('Ka'), value: bytes('1') }], { sync: false });
    expect(Buffer.from((await db.get(MARK.key)) as Uint8Array).toString('latin1')).toBe('u1');
    await (await storage.beginWrite()).commit([{ type: 'put', key: bytes('Kb'), value: bytes('2') }], { sync: true });
    expect(Buffer.from((await db.get(MARK.key)) as Uint8Array).toString('latin1')).toBe('s1');
    await db.del(MARK.key);
    await (await storage.beginWrite()).commit([], { sync: true });
    expect(await db.get(MARK.key)).toBeUndefined();
    await (await storage.beginWrite()).commit([{ type: 'put', key: bytes('Kc'), value: bytes('3') }], { sync: true });
    const keys = (await collect(storage.iterate({}))).map(([key]) => Buffer.from(key).toString('latin1'));
    expect(keys).toEqual(['Ka', 'Kb', 'Kc']);
    expect(await collect(storage.iterate({ gte: Buffer.from([0xff]), reverse: true }))).toEqual([]);
    const snapshotKeys = await storage.snapshot(async (reader) => (await collect(reader.iterate({}))).length);
    expect(snapshotKeys).toBe(3);
    await storage.close();
  });

  it('without a mark, a batch holds its operations alone', async () => {
    const db = database();
    const storage = await openLevelStorage(db, { location: null, capabilities: CAPABILITIES });
    await (await storage.beginWrite()).commit([{ type: 'put', key: bytes('Ka'), value: bytes('1') }], { sync: true });
    expect((await collect(db.keys())).map((key) => Buffer.from(key).toString('latin1'))).toEqual(['Ka']);
    await storage.close();
  });

  it('runs afterSyncedWrite after a synced batch only, before its commit resolves, and fails the commit with it', async () => {
    const db = database();
    const seen: number[] = [];
    let fail = false;
    const storage = await openLevelStorage(db, {
      location: null,
      capabilities: CAPABILITIES,
      afterSyncedWrite: async (ops) => {
        if (fail) throw new Error('sync of an older log failed');
        seen.push(ops.length);
      },
    });
    await (await storage.beginWrite()).commit([{ type: 'put', key: bytes('Ka'), value: bytes('1') }], { sync: false });
    await (await storage.beginWrite()).commit([{ type: 'put', key: bytes('Kb'), value: bytes('2') }, { type: 'del', key: bytes('Ka') }], { sync: true });
    expect(seen).toEqual([2]);
    fail = true;
    await expect((await storage.beginWrite()).commit([{ type: 'put', key: bytes('Kc'), value: bytes('3') }], { sync: true })).rejects.toThrow();
    await storage.close();
  });

  it('with syncFirstBatch, writes the first non-empty batch synced and the rest as asked', async () => {
    const db = database();
    const storage = await openLevelStorage(db, { location: null, capabilities: CAPABILITIES, mark: MARK, syncFirstBatch: true });
    await (await storage.beginWrite()).commit([], { sync: false });
    await (await storage.beginWrite()).commit([{ type: 'put', key: bytes('Ka'), value: bytes('1') }], { sync: false });
    expect(Buffer.from((await db.get(MARK.key)) as Uint8Array).toString('latin1')).toBe('s1');
    await (await storage.beginWrite()).commit([{ type: 'put', key: bytes('Kb'), value: bytes('2') }], { sync: false });
    expect(Buffer.from((await db.get(MARK.key)) as Uint8Array).toString('latin1')).toBe('u1');
    await storage.close();
  });

  it('runs beforeClose while the database is open; a failing one does not stop the close', async () => {
    const db = database();
    const seen: string[] = [];
    const storage = await openLevelStorage(db, { location: null, capabilities: CAPABILITIES, beforeClose: async () => void seen.push(db.status) });
    await storage.close();
    expect(seen).toEqual(['open']);
    expect(db.status).toBe('closed');
    const failing = await openLevelStorage(database(), { location: null, capabilities: CAPABILITIES, beforeClose: () => Promise.reject(new Error('disk full')) });
    await failing.close();
    expect((await failing.get(bytes('Ka')).catch((err: { code?: string }) => err.code))).toBe('STORE_CLOSED');
  });

  it('reports the location, the capabilities and the repairs it was given', async () => {
    const repairs: StorageRepair[] = [{ kind: 'unsynced-tail-dropped', file: '000003.log', offset: 7, reason: 'checksum mismatch', bytes: 10, keptIn: ['/kept'], lostThrough: 4 }];
    const storage = await openLevelStorage(database(), { location: '/data', capabilities: CAPABILITIES, repairs });
    expect({ location: storage.location, capabilities: storage.capabilities, repairs: storage.repairs }).toEqual({ location: '/data', capabilities: CAPABILITIES, repairs });
    const plain = await openLevelStorage(database(), { location: null, capabilities: CAPABILITIES });
    expect(plain.repairs).toEqual([]);
    await storage.close();
    await plain.close();
  });
});
