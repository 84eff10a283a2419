/**
 * Opening a store in a LevelDB directory (README "Storage layout" of `@stateflow/store`; this
 * package's README "Durability contract", "The files are checked before LevelDB opens them").
 */
import { StateflowError, describeInput } from '@stateflow/core';
import { openStoreOver } from '@stateflow/store';
import type { Store, StoreOptions } from '@stateflow/store';
import { openDiskStorage } from './disk-storage.js';

/**
 * Open (or create) the store in directory `dir` on disk (LevelDB through `classic-level`): the
 * files are checked before LevelDB opens them ({@link openDiskStorage}), then the store opens over
 * that storage (`openStoreOver` of `@stateflow/store`).
 *
 * A new directory gets a format-version record; an existing one must carry a supported version.
 * Opening loads every stream's head and the hash-chain tip only: stream states are loaded on
 * first use (latest checkpoint + tail replay), never by replaying the whole log.
 *
 * @example
 * ```ts
 * const store = await openStore('.stateflow', { durability: 'fsync' });
 * await store.publish({ changes: { global: { strategy: { goal: 'ship' } } } });
 * await store.close();
 * ```
 * @param dir directory path; created when missing (unless `options.createIfMissing` is `false`).
 * @param options checkpoint interval K (default 64), durability (default `'buffered'`),
 *   historical-state cache size (default 256 states), retention, clock, `createIfMissing`
 *   (default `true`).
 * @throws StateflowError `NOT_FOUND` (details `{ dir }`) when `createIfMissing` is `false` and
 *   `dir` holds no Stateflow store (nothing is created); `STORE_LOCKED` (`{ dir, pid? }`) when
 *   another process or another open store holds `dir`; `STORE_VERSION` (`{ found, supported }`)
 *   when `dir` holds an unknown format or non-Stateflow data (nothing is rewritten);
 *   `STORE_CORRUPT` when the files are damaged beyond a crash's torn tail (`{ file, offset,
 *   detail }`, nothing changed), the format record does not decode or LevelDB reports its files
 *   damaged; `INPUT_INVALID` for a bad `dir` or bad options; `STORE_IO` for other storage
 *   failures (a directory without write access says so: LevelDB needs it even to read).
 */
export async function openStore(dir: string, options?: StoreOptions): Promise<Store> {
  if (typeof dir !== 'string' || dir.length === 0 || dir.includes('\u0000')) {
    throw new StateflowError('INPUT_INVALID', `openStore needs a directory path, got ${describeInput(dir)}`, { field: 'dir' });
  }
  const createIfMissing = options?.createIfMissing ?? true;
  if (typeof createIfMissing !== 'boolean') {
    throw new StateflowError('INPUT_INVALID', `createIfMissing must be true or false, got ${describeInput(createIfMissing)}`, { field: 'createIfMissing' });
  }
  return openStoreOver(await openDiskStorage(dir, { createIfMissing }), options);
}
