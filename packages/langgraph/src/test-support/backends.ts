/**
 * Store backends the saver's tests run on. Each test file that runs on every backend takes
 * this list (or one entry); a new backend is one more entry here.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { openMemoryStore, openStore } from '@stateflow/store';
import type { Store } from '@stateflow/store';

/** A new, empty store and the means to throw it away. */
export interface OpenedStore {
  store: Store;
  /** Close the store and remove everything it created. */
  destroy(): Promise<void>;
}

/** One kind of store. */
export interface SaverBackend {
  name: string;
  open(): Promise<OpenedStore>;
}

/** memory-level: fast, nothing on disk. */
export const memoryBackend: SaverBackend = {
  name: 'memory-level',
  async open() {
    const store = await openMemoryStore();
    return { store, destroy: () => store.close() };
  },
};

/** LevelDB (classic-level) in a new temporary directory. */
export const levelBackend: SaverBackend = {
  name: 'LevelDB',
  async open() {
    const dir = await mkdtemp(path.join(tmpdir(), 'stateflow-langgraph-'));
    const store = await openStore(dir);
    return {
      store,
      async destroy() {
        await store.close();
        await rm(dir, { recursive: true, force: true });
      },
    };
  },
};

/** Every backend, for `describe.each`. */
export const backends: SaverBackend[] = [memoryBackend, levelBackend];

/**
 * A new store of `backend` for each test of the calling `describe` (destroyed after it);
 * `use` receives it first, to set up what the tests read.
 */
export function storePerTest(backend: SaverBackend, use: (opened: OpenedStore) => void): void {
  let opened: OpenedStore | undefined;
  beforeEach(async () => {
    opened = await backend.open();
    use(opened);
  });
  afterEach(async () => {
    await opened?.destroy();
  });
}
