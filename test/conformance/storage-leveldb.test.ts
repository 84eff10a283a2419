import { describe, it } from 'vitest';
import { openDiskStorage } from '@stateflow/store-leveldb';
import { runStorageConformance } from '@stateflow/conformance';
import { removeDir, tempDir } from '@stateflow/test-kit';

const dirs = new WeakMap<object, string>();
runStorageConformance(
  {
    name: 'classic-level',
    // LevelDB: durable, one process holds the directory, and a failed write needs a reopen.
    manifest: {
      ...{ persistent: true, fsync: true, soleWriter: true, reopenAfterFailedWrite: true },
      ...{ getSync: true, readRanges: false, commitIf: false, onCommit: false, lock: false, replicas: false, connections: false, repairs: true },
    },
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
