/**
 * Store backends the saver's tests run on: the test kit's memory-level and LevelDB in a
 * temporary directory, and PostgreSQL on the test server (one schema per store). Each test
 * file that runs on every embedded backend takes this list (or one entry); a new backend is
 * one more entry here.
 */
import { openMemoryStore } from '@stateflow/store';
import { openStore } from '@stateflow/store-leveldb';
import type { Store, StoreOptions } from '@stateflow/store';
import { dropPostgresStore, openPostgresStore } from '@stateflow/store-postgres';
import { freshPostgresUrl, testBackends, testPostgres } from '@stateflow/test-kit';
import type { TestBackend, TestStore } from '@stateflow/test-kit';

/** A new, empty store and the means to throw it away. */
export type OpenedStore = TestStore<Store>;

/** One kind of store. */
export type SaverBackend = TestBackend<Store, StoreOptions>;

/** Every backend, for `describe.each` (title `$name`). */
export const backends: SaverBackend[] = testBackends<Store, StoreOptions>({ memory: openMemoryStore, directory: openStore });

/** memory-level: fast, nothing on disk; LevelDB (classic-level) in a new temporary directory. */
export const [memoryBackend, levelBackend] = backends as [SaverBackend, SaverBackend];

/** A backend a suite can be registered on: a name for titles, and new empty stores. */
export interface NamedBackend {
  name: string;
  open(): Promise<OpenedStore>;
}

/** A backend that cannot run here, and why (already reported: a visible skip, a CI failure). */
export interface UnavailableBackend {
  name: string;
  unavailable: string;
}

/**
 * PostgreSQL on the test server (`STATEFLOW_TEST_POSTGRES`): each store in a new schema
 * `sf_lg_<random>`, dropped by `destroy`; `reopen` opens the same schema again. Where no server
 * answers, `{ unavailable }` (reported by the test kit; under `CI=true` this throws instead).
 */
export async function postgresBackend(): Promise<NamedBackend | UnavailableBackend> {
  const server = await testPostgres();
  if ('unavailable' in server) return { name: 'postgres', unavailable: server.unavailable };
  return {
    name: 'postgres',
    async open() {
      const url = freshPostgresUrl('lg');
      const handle: OpenedStore = {
        store: await openPostgresStore(url, { maxConnections: 4 }),
        dir: null,
        async reopen(options) {
          await handle.store.close();
          handle.store = await openPostgresStore(url, { ...(options as StoreOptions | undefined), maxConnections: 4 });
          return handle.store;
        },
        async destroy() {
          await handle.store.close().catch(() => undefined);
          await dropPostgresStore(url);
        },
      };
      return handle;
    },
  };
}
