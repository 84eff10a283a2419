/**
 * The backend the engine's tests run on: memory-level, which opens the same database again after
 * a close, as a reopen on disk would. LevelDB's and PostgreSQL's coverage of the same behaviour is
 * the conformance suite and the storage-seam suite (`test/conformance/`), and each backend
 * package's own tests. `reopen` closes the store and opens a new instance over the same data;
 * `raw` closes the store and hands out the raw storage (for dumps and deliberate corruption).
 */
import { MemoryLevel } from 'memory-level';
import type { Store, StoreOptions } from '../types.js';
import { openEventStore } from '../internal/event-store.js';
import { openMemoryStorage } from '../memory-storage.js';
import type { Storage } from '../storage.js';

/** A store under test plus the means to reopen it and reach its raw storage. */
export interface Harness {
  store: Store;
  reopen(options?: StoreOptions): Promise<Store>;
  /** Close the store, run `fn` on the raw storage of the same data, close it again. */
  raw<T>(fn: (storage: Storage) => Promise<T>): Promise<T>;
  destroy(): Promise<void>;
}

/** A backend factory. */
export interface Backend {
  name: 'memory';
  create(options?: StoreOptions): Promise<Harness>;
}

function harness(openStorage: () => Promise<Storage>, options: StoreOptions | undefined, store: Store): Harness {
  const h: Harness = {
    store,
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
    },
  };
  return h;
}

export const memoryBackend: Backend = {
  name: 'memory',
  async create(options) {
    const db = new MemoryLevel<Uint8Array, Uint8Array>({ keyEncoding: 'view', valueEncoding: 'view' });
    const open = (): Promise<Storage> => openMemoryStorage(db);
    return harness(open, options, await openEventStore(await open(), options));
  },
};

/** The engine's test backends, for `describe.each` (title `$name`). */
export const backends: Backend[] = [memoryBackend];
