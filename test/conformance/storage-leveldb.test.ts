import { describe, it } from 'vitest';
import { openDiskStorage } from '@stateflow/store-leveldb';
import { runStorageConformance } from '@stateflow/conformance';
import { removeDir, tempDir } from '@stateflow/test-kit';

const dirs = new WeakMap<object, string>();
runStorageConformance(
  {
    name: 'classic-level',
    async create() {
      const dir = await tempDir('storage-suite');
      const storage = await openDiskStorage(dir);
      dirs.set(storage, dir);
      return storage;
    },
    async reopen(storage) {
      const dir = dirs.get(storage) as string;
      await storage.close();
      const next = await openDiskStorage(dir);
      dirs.set(next, dir);
      return next;
    },
    async destroy(storage) {
      await storage.close();
      await removeDir(dirs.get(storage) as string);
    },
  },
  { describe, it },
);
