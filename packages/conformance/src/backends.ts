/**
 * Ready-made initializers for the backends Stateflow ships: `memory-level`, `classic-level`
 * (LevelDB on disk, one temporary directory per store) and PostgreSQL (one schema per store).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openMemoryStore, openStore } from '@stateflow/store';
import type { Store, StoreOptions } from '@stateflow/store';
import { dropPostgresStore, openPostgresStore } from '@stateflow/store-postgres';
import { randomBytes } from 'node:crypto';
import type { ConformanceGroup, StoreInitializer } from './initializer.js';

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

/** Where the PostgreSQL initializer puts its stores, or why there is no server to test. */
export type PostgresServer = { url: string } | { unavailable: string };

/**
 * Initializer for PostgreSQL stores (`openPostgresStore`): each store in a new schema
 * `sf_conformance_<random>` of the database at `server.url`, dropped by `destroy`; `openShared`
 * opens a second store over the same schema, as another process would. Given
 * `{ unavailable }`, every group is skipped with that reason.
 */
export function postgresInitializer(server: PostgresServer): StoreInitializer {
  if ('unavailable' in server) {
    const skip = Object.fromEntries(Object.keys(GROUP_NAMES).map((group) => [group, server.unavailable]));
    return { name: 'postgres', create: () => Promise.reject(new Error(server.unavailable)), destroy: async () => undefined, skip };
  }
  const urls = new WeakMap<Store, { url: string; options: StoreOptions | undefined }>();
  const fresh = (): string => {
    const url = new URL(server.url);
    url.searchParams.set('schema', `sf_conformance_${randomBytes(6).toString('hex')}`);
    return url.toString();
  };
  return {
    name: 'postgres',
    async create(options?: StoreOptions) {
      const url = fresh();
      const store = await openPostgresStore(url, { ...options, maxConnections: 4 });
      urls.set(store, { url, options });
      return store;
    },
    async reopen(store: Store, options?: StoreOptions) {
      const entry = urls.get(store);
      if (!entry) throw new Error('reopen: this store was not created by this initializer');
      await store.close();
      const next = await openPostgresStore(entry.url, { ...(options ?? entry.options), maxConnections: 4 });
      urls.set(next, { url: entry.url, options: options ?? entry.options });
      return next;
    },
    async openShared(store: Store, options?: StoreOptions) {
      const entry = urls.get(store);
      if (!entry) throw new Error('openShared: this store was not created by this initializer');
      const other = await openPostgresStore(entry.url, { ...(options ?? entry.options), maxConnections: 4 });
      urls.set(other, entry);
      return other;
    },
    async destroy(store: Store) {
      await store.close();
      const entry = urls.get(store);
      if (entry) await dropPostgresStore(entry.url);
    },
  };
}

/** Every group's name (for skipping them all). */
const GROUP_NAMES: Record<ConformanceGroup, true> = {
  publish: true,
  read: true,
  history: true,
  patchAt: true,
  effectiveAt: true,
  compaction: true,
  forkRevert: true,
  merge: true,
  audit: true,
  watch: true,
  persistence: true,
  modelBased: true,
  sharedWriters: true,
};
