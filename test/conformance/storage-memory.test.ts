import { describe, it } from 'vitest';
import { openMemoryStorage } from '@stateflow/store';
import { runStorageConformance } from '@stateflow/conformance';

// What memory-level promises: nothing survives the process; this process is its only writer.
const manifest = {
  ...{ persistent: false, fsync: false, soleWriter: true, reopenAfterFailedWrite: false },
  ...{ getSync: true, readRanges: false, commitIf: false, onCommit: false, lock: false, replicas: false, connections: false, repairs: true },
};
runStorageConformance({ name: 'memory-level', manifest, create: () => openMemoryStorage(), destroy: (storage) => storage.close() }, { describe, it });
