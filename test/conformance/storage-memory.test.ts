import { describe, it } from 'vitest';
import { openMemoryStorage } from '@stateflow/store';
import { runStorageConformance } from '@stateflow/conformance';

runStorageConformance({ name: 'memory-level', create: () => openMemoryStorage(), destroy: (storage) => storage.close() }, { describe, it });
