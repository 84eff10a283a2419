/**
 * Opening a store over a storage (DESIGN.md "Store model"; README "Storage layout", "Storage
 * seam"). Each backend's opener ends here: `openMemoryStore` below, `openStore(dir)` of
 * `@stateflow/store-leveldb`, `openPostgresStore(url)` of `@stateflow/store-postgres`.
 */
import type { Store, StoreOptions } from './types.js';
import { openEventStore } from './internal/event-store.js';
import { openMemoryStorage } from './memory-storage.js';
import type { Storage } from './storage.js';

/**
 * Open a store over `storage`, any implementation of the storage seam (`storage.ts`): the
 * function every backend's own opener ends in (`openMemoryStore`, `@stateflow/store-leveldb`'s
 * `openStore`, `@stateflow/store-postgres`'s `openPostgresStore`). A storage without a format
 * record and without data becomes a new store unless `options.createIfMissing` is false. The
 * storage is closed when opening fails, and by the store's `close()`.
 *
 * A new store gets a format-version record; an existing one must carry a supported version.
 * Opening loads every stream's head and the hash-chain tip only: stream states are loaded on
 * first use (latest checkpoint + tail replay), never by replaying the whole log.
 *
 * @param options checkpoint interval K (default 64), durability (default `'buffered'`),
 *   historical-state cache size (default 256 states), retention, clock, `createIfMissing`
 *   (default `true`).
 * @throws NOT_FOUND `{ dir }` (`createIfMissing` false and no store there; nothing is created),
 *   STORE_VERSION `{ found, supported }` (an unknown format or non-Stateflow data; nothing is
 *   rewritten), STORE_CORRUPT (the format record does not decode), INPUT_INVALID for bad
 *   options, and the storage's errors.
 */
export async function openStoreOver(storage: Storage, options?: StoreOptions): Promise<Store> {
  return openEventStore(storage, options, { create: options?.createIfMissing ?? true });
}

/**
 * Open a fresh, empty in-memory store (`memory-level`): the same implementation as every other
 * backend's, for tests and ephemeral sessions. `location` is `null`; `'fsync'` durability has
 * nothing to sync and behaves as `'buffered'`.
 *
 * @throws StateflowError `INPUT_INVALID` for bad options.
 */
export async function openMemoryStore(options?: StoreOptions): Promise<Store> {
  return openEventStore(await openMemoryStorage(), options);
}
