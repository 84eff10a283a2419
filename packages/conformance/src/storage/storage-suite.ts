/**
 * The storage seam's own suite (`@stateflow/store` `storage.ts`; CONVENTIONS.md "Backend seam",
 * like `abstract-level`'s tests): every behaviour the store relies on from a storage — point and
 * batched reads, ordered half-open iteration (differentially, against memory-level's byte order),
 * snapshots, write sessions (commit, abort, one at a time, atomic), sync, close, typed errors,
 * readers beside a writer, a failed commit as the store meets it — checked on any implementation
 * through its public interface. What is optional (synchronous reads, named locks, conditional
 * commits, commit notifications, pools, repairs, replicas) is registered from the initializer's
 * capability manifest, or skipped with the reason at registration, never passed by a test that
 * checks only that a method is absent; and a test holds every storage to that manifest.
 */
import type { ConformanceOptions, TestApi } from '../initializer.js';
import { persistence, readsAndIteration, snapshotsAndReaders, writeSessions } from './seam-core.js';
import { failedWrite } from './seam-failed-write.js';
import { manifestAgreement } from './seam-manifest.js';
import { optionalMembers } from './seam-optional.js';
import { byteOrder } from './seam-order.js';
import { seamRegistry } from './seam-support.js';
import type { StorageInitializer } from './seam-support.js';

export type { StorageInitializer } from './seam-support.js';

/**
 * Register the storage suite for `init` with the test runner `api`. Tests that need what the
 * manifest lacks are registered as skipped with the reason (and reported to `options.onSkip`,
 * by default one `console.warn` line each).
 *
 * @param options `runs` / `seed` of the byte-order property (default `STATEFLOW_FC_RUNS`, else
 *   20; `STATEFLOW_FC_SEED`), `timeoutMs` per test (default 60,000), `onSkip`.
 * @example
 * import { describe, it } from 'vitest';
 * import { openMemoryStorage, storageManifest } from '@stateflow/store';
 * const manifest = storageManifest(await openMemoryStorage());
 * runStorageConformance({ name: 'memory', manifest, create: openMemoryStorage, destroy: (s) => s.close() }, { describe, it });
 */
export function runStorageConformance(init: StorageInitializer, api: TestApi, options: ConformanceOptions = {}): void {
  api.describe(`storage seam on ${init.name}`, () => {
    const registry = seamRegistry(init, api, options);
    manifestAgreement(registry);
    readsAndIteration(registry);
    byteOrder(registry);
    writeSessions(registry);
    snapshotsAndReaders(registry);
    persistence(registry);
    failedWrite(registry);
    optionalMembers(registry);
  });
}
