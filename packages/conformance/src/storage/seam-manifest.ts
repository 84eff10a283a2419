/**
 * The manifest against the storages (abstract-level's manifest test): every storage the
 * initializer makes declares and implements exactly the manifest the suite registered its tests
 * from, and the manifest holds together — a storage many processes write has named locks and
 * commit notifications, one that only this process writes has neither; what persists can be
 * reopened.
 */
import assert from 'node:assert/strict';
import { storageManifest } from '@stateflow/store';
import type { StorageManifest } from '@stateflow/store';
import type { SeamRegistry } from './seam-support.js';

/** The rules a manifest keeps, each `[holds, why]`. */
function rules(manifest: StorageManifest, reopens: boolean): Array<[boolean, string]> {
  return [
    [manifest.lock === !manifest.soleWriter, 'named locks (lock) exactly when other processes write too (soleWriter false): the store locks in memory otherwise'],
    [manifest.onCommit === !manifest.soleWriter, "commit notifications (onCommit) exactly when other processes write too: the store's watch needs them then"],
    [manifest.persistent === reopens, 'the initializer reopens (reopen) exactly the storages that persist'],
    [!manifest.fsync || manifest.persistent, 'fsync only where data persists'],
    [!manifest.reopenAfterFailedWrite || manifest.persistent, 'reopenAfterFailedWrite only where data persists (a reopen keeps it)'],
  ];
}

/** The manifest test. */
export function manifestAgreement({ init, test }: SeamRegistry): void {
  test('declares and implements exactly the manifest the suite runs from, and the manifest holds together', async (storage) => {
    assert.deepEqual(storageManifest(storage), init.manifest, 'the storage against the manifest of the initializer');
    const broken = rules(init.manifest, init.reopen !== undefined).filter(([holds]) => !holds);
    assert.deepEqual(broken.map(([, why]) => why), []);
  });
}
