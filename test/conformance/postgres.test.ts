/**
 * The store conformance suite on PostgreSQL (`openPostgresStore`): each store in a fresh schema
 * of the test server (`freshPostgresUrl`), dropped by `destroy`; `openShared` opens a second
 * store over the same schema, as another process would. Without a server every group is
 * skipped with the reason recorded.
 */
import { describe, it } from 'vitest';
import { conformanceGroups, runConformance } from '@stateflow/conformance';
import type { StoreInitializer } from '@stateflow/conformance';
import type { Store, StoreOptions } from '@stateflow/store';
import { dropPostgresStore, openPostgresStore } from '@stateflow/store-postgres';
import { freshPostgresUrl, testPostgres } from '@stateflow/test-kit';

/** Connections per store: the suite opens many stores, one after another, on one server. */
const MAX_CONNECTIONS = 4;

function postgres(server: { url: string } | { unavailable: string }): StoreInitializer {
  if ('unavailable' in server) {
    const skip = Object.fromEntries(Object.keys(conformanceGroups).map((group) => [group, server.unavailable]));
    return { name: 'postgres', create: () => Promise.reject(new Error(server.unavailable)), destroy: async () => undefined, skip };
  }
  const urls = new WeakMap<Store, { url: string; options: StoreOptions | undefined }>();
  const open = (url: string, options: StoreOptions | undefined): Promise<Store> => openPostgresStore(url, { ...options, maxConnections: MAX_CONNECTIONS });
  return {
    name: 'postgres',
    async create(options) {
      const url = freshPostgresUrl('conformance');
      const store = await open(url, options);
      urls.set(store, { url, options });
      return store;
    },
    async reopen(store, options) {
      const entry = urls.get(store);
      if (!entry) throw new Error('reopen: this store was not created by this initializer');
      await store.close();
      const next = await open(entry.url, options ?? entry.options);
      urls.set(next, { url: entry.url, options: options ?? entry.options });
      return next;
    },
    async openShared(store, options) {
      const entry = urls.get(store);
      if (!entry) throw new Error('openShared: this store was not created by this initializer');
      const other = await open(entry.url, options ?? entry.options);
      urls.set(other, entry);
      return other;
    },
    async destroy(store) {
      await store.close();
      const entry = urls.get(store);
      if (entry) await dropPostgresStore(entry.url);
    },
  };
}

runConformance(postgres(await testPostgres()), { describe, it });
