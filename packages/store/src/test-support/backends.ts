/**
 * Test backends: every storage behaviour runs on memory-level and on classic-level in a temp
 * directory. `reopen` closes the store and opens a new instance over the same data; `raw` closes
 * the store and hands out the raw storage (for dumps and deliberate corruption).
 */
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MemoryLevel } from 'memory-level';
import type { Store, StoreOptions } from '../types.js';
import { openEventStore } from '../internal/event-store.js';
import { openDiskStorage, openMemoryStorage } from '../level-storage.js';
import type { Storage, StorageOp } from '../storage.js';

/** A store under test plus the means to reopen it and reach its raw storage. */
export interface Harness {
  store: Store;
  /** Directory on disk, or null. */
  dir: string | null;
  reopen(options?: StoreOptions): Promise<Store>;
  /** Close the store, run `fn` on the raw storage of the same data, close it again. */
  raw<T>(fn: (storage: Storage) => Promise<T>): Promise<T>;
  destroy(): Promise<void>;
}

/** A backend factory. */
export interface Backend {
  name: 'memory' | 'disk';
  /** Whether its data outlives the store object (on disk). */
  persistent: boolean;
  create(options?: StoreOptions): Promise<Harness>;
}

function harness(openStorage: () => Promise<Storage>, dir: string | null, options: StoreOptions | undefined, store: Store): Harness {
  const h: Harness = {
    store,
    dir,
    async reopen(o) {
      await h.store.close();
      h.store = await openEventStore(await openStorage(), o ?? options);
      return h.store;
    },
    async raw(fn) {
      await h.store.close();
      const storage = await openStorage();
      try {
        return await fn(storage);
      } finally {
        await storage.close();
      }
    },
    async destroy() {
      await h.store.close();
      if (dir !== null) await rm(dir, { recursive: true, force: true });
    },
  };
  return h;
}

export const memoryBackend: Backend = {
  name: 'memory',
  persistent: false,
  async create(options) {
    const db = new MemoryLevel<Uint8Array, Uint8Array>({ keyEncoding: 'view', valueEncoding: 'view' });
    const open = (): Promise<Storage> => openMemoryStorage(db);
    return harness(open, null, options, await openEventStore(await open(), options));
  },
};

export const diskBackend: Backend = {
  name: 'disk',
  persistent: true,
  async create(options) {
    const dir = await mkdtemp(path.join(tmpdir(), 'stateflow-store-'));
    const open = (): Promise<Storage> => openDiskStorage(dir);
    return harness(open, dir, options, await openEventStore(await open(), options));
  },
};

/** Both backends, for `describe.each`. */
export const backends: Backend[] = [memoryBackend, diskBackend];

/** Every key/value of a storage as hex pairs (for byte-for-byte comparisons). */
export async function dump(storage: Storage): Promise<string[]> {
  const out: string[] = [];
  for await (const [k, v] of storage.iterate({})) out.push(`${Buffer.from(k).toString('hex')}=${Buffer.from(v).toString('hex')}`);
  return out;
}

/** sha256 over every file of a directory (names and contents), except LevelDB's info logs. */
export async function hashDir(dir: string): Promise<string> {
  const hash = createHash('sha256');
  for (const name of (await readdir(dir)).sort()) {
    if (name === 'LOG' || name === 'LOG.old') continue;
    hash.update(name).update(await readFile(path.join(dir, name)));
  }
  return hash.digest('hex');
}

/** Collect an async iterable. */
export async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

/**
 * A full byte dump of a directory: every file (LevelDB's info log and LOCK included) by name →
 * sha256 of its bytes. Two equal dumps mean the directory is byte for byte the same.
 */
export async function byteDump(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const name of (await readdir(dir)).sort()) out[name] = createHash('sha256').update(await readFile(path.join(dir, name))).digest('hex');
  return out;
}

/** Write `ops` to raw storage in a write session of their own (deliberate damage in tests). */
export async function rawWrite(storage: Storage, ops: StorageOp[]): Promise<void> {
  const session = await storage.beginWrite();
  await session.commit(ops, { sync: false });
}
