/** Test harness: real stores from the test kit, a stepping clock, fixture loading. */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openMemoryStore } from '@stateflow/store';
import { openStore } from '@stateflow/store-leveldb';
import type { Store, StoreOptions } from '@stateflow/store';
import { fakeClock, testBackends } from '@stateflow/test-kit';
import type { TestBackend } from '@stateflow/test-kit';

export const fixturesDir = path.dirname(fileURLToPath(import.meta.url));

export function fixture(name: string): string {
  return path.join(fixturesDir, name);
}

/** memory-level and LevelDB (classic-level) in a fresh temp directory. */
export const backends: TestBackend<Store, StoreOptions>[] = testBackends<Store, StoreOptions>({ memory: openMemoryStore, directory: openStore });

/** LevelDB in a fresh temp directory: the backend the runner's tests use. */
export const levelBackend = backends[1] as TestBackend<Store, StoreOptions>;

/** A clock that advances one second per reading from 2026-01-01T00:00:00Z. */
export function steppingClock(): () => Date {
  return fakeClock({ start: '2026-01-01T00:00:00.000Z', tick: 1000 }).clock;
}
