/**
 * The store conformance suite on LevelDB (`openStore` of `@stateflow/store-leveldb`): each store
 * in a new temporary directory, removed by `destroy`; `reopen` opens the same directory again.
 */
import { describe, it } from 'vitest';
import { runConformance } from '@stateflow/conformance';
import type { StoreInitializer } from '@stateflow/conformance';
import type { Store, StoreOptions } from '@stateflow/store';
import { openStore } from '@stateflow/store-leveldb';
import { removeDir, tempDir } from '@stateflow/test-kit';

const dirs = new WeakMap<Store, { dir: string; options: StoreOptions | undefined }>();

const classicLevel: StoreInitializer = {
  name: 'classic-level',
  async create(options) {
    const dir = await tempDir('conformance');
    const store = await openStore(dir, options);
    dirs.set(store, { dir, options });
    return store;
  },
  async reopen(store, options) {
    const entry = dirs.get(store);
    if (!entry) throw new Error('reopen: this store was not created by this initializer');
    await store.close();
    const next = await openStore(entry.dir, options ?? entry.options);
    dirs.set(next, { dir: entry.dir, options: options ?? entry.options });
    return next;
  },
  async destroy(store) {
    await store.close();
    const entry = dirs.get(store);
    if (entry) await removeDir(entry.dir);
  },
};

runConformance(classicLevel, { describe, it });
