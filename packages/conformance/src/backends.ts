/**
 * Ready-made initializers for the two backends Stateflow ships: `memory-level` and
 * `classic-level` (LevelDB on disk, one temporary directory per store).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openMemoryStore, openStore } from '@stateflow/store';
import type { Store, StoreOptions } from '@stateflow/store';
import type { StoreInitializer } from './initializer.js';

/**
 * Initializer for in-memory stores (`openMemoryStore`). It has no `reopen`: tests that need
 * persistence are skipped with that reason recorded.
 */
export function memoryInitializer(): StoreInitializer {
  return {
    name: 'memory-level',
    create: (options?: StoreOptions) => openMemoryStore(options),
    // close() is idempotent: a test may already have closed the store.
    destroy: (store: Store) => store.close(),
  };
}

/**
 * Initializer for LevelDB stores on disk (`openStore`), each in a new directory under the OS
 * temp directory (or `parent` when given), removed by `destroy`.
 */
export function classicLevelInitializer(parent: string = tmpdir()): StoreInitializer {
  const dirs = new WeakMap<Store, { dir: string; options: StoreOptions | undefined }>();
  return {
    name: 'classic-level',
    async create(options?: StoreOptions) {
      const dir = await mkdtemp(path.join(parent, 'stateflow-conformance-'));
      const store = await openStore(dir, options);
      dirs.set(store, { dir, options });
      return store;
    },
    async reopen(store: Store, options?: StoreOptions) {
      const entry = dirs.get(store);
      if (!entry) throw new Error('reopen: this store was not created by this initializer');
      await store.close();
      const next = await openStore(entry.dir, options ?? entry.options);
      dirs.set(next, { dir: entry.dir, options: options ?? entry.options });
      return next;
    },
    async destroy(store: Store) {
      await store.close();
      const entry = dirs.get(store);
      if (entry) await rm(entry.dir, { recursive: true, force: true });
    },
  };
}
