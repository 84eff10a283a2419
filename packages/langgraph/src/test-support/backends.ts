/**
 * Store backends the saver's tests run on: the test kit's memory-level and LevelDB in a
 * temporary directory. Each test file that runs on every backend takes this list (or one
 * entry); a new backend is one more entry here.
 */
import { openMemoryStore, openStore } from '@stateflow/store';
import type { Store, StoreOptions } from '@stateflow/store';
import { testBackends } from '@stateflow/test-kit';
import type { TestBackend, TestStore } from '@stateflow/test-kit';

/** A new, empty store and the means to throw it away. */
export type OpenedStore = TestStore<Store>;

/** One kind of store. */
export type SaverBackend = TestBackend<Store, StoreOptions>;

/** Every backend, for `describe.each` (title `$name`). */
export const backends: SaverBackend[] = testBackends<Store, StoreOptions>({ memory: openMemoryStore, directory: openStore });

/** memory-level: fast, nothing on disk; LevelDB (classic-level) in a new temporary directory. */
export const [memoryBackend, levelBackend] = backends as [SaverBackend, SaverBackend];
