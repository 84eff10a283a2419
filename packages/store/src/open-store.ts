/**
 * Opening a store (DESIGN.md "Store model"; README "Storage layout", "Durability").
 */
import { StateflowError } from '@stateflow/core';
import type { Store, StoreOptions } from './types.js';
import { openEventStore } from './internal/event-store.js';
import { openDiskStorage, openMemoryStorage } from './internal/level-storage.js';
import { describeInput } from './internal/validate.js';

/**
 * Open (or create) the store in directory `dir` on disk (LevelDB through `classic-level`).
 *
 * A new directory gets a format-version record; an existing one must carry a supported version.
 * Opening loads every stream's head and the hash-chain tip only: stream states are loaded on
 * first use (latest checkpoint + tail replay), never by replaying the whole log.
 *
 * @param dir directory path; created when missing (unless `options.createIfMissing` is `false`).
 * @param options checkpoint interval K (default 64), durability (default `'buffered'`),
 *   historical-state cache size (default 256 states), retention, clock, `createIfMissing`
 *   (default `true`).
 * @throws StateflowError `NOT_FOUND` (details `{ dir }`) when `createIfMissing` is `false` and
 *   `dir` holds no Stateflow store (nothing is created); `STORE_LOCKED` (`{ dir }`) when another
 *   process or another open store holds `dir`; `STORE_VERSION` (`{ found, supported }`) when
 *   `dir` holds an unknown format or non-Stateflow data (nothing is rewritten); `STORE_CORRUPT`
 *   when the format record does not decode or LevelDB reports its files damaged; `INPUT_INVALID`
 *   for a bad `dir` or bad options; `STORE_IO` for other storage failures (a directory without
 *   write access says so: LevelDB needs it even to read).
 */
export async function openStore(dir: string, options?: StoreOptions): Promise<Store> {
  if (typeof dir !== 'string' || dir.length === 0 || dir.includes('\u0000')) {
    throw new StateflowError('INPUT_INVALID', `openStore needs a directory path, got ${describeInput(dir)}`, { field: 'dir' });
  }
  const createIfMissing = options?.createIfMissing ?? true;
  if (typeof createIfMissing !== 'boolean') {
    throw new StateflowError('INPUT_INVALID', `createIfMissing must be true or false, got ${describeInput(createIfMissing)}`, { field: 'createIfMissing' });
  }
  return openEventStore(await openDiskStorage(dir, { createIfMissing }), options, { create: createIfMissing });
}

/**
 * Open a fresh, empty in-memory store (`memory-level`): the same implementation as
 * {@link openStore}, for tests and ephemeral sessions. `location` is `null`; `'fsync'`
 * durability has nothing to sync and behaves as `'buffered'`.
 *
 * @throws StateflowError `INPUT_INVALID` for bad options.
 */
export async function openMemoryStore(options?: StoreOptions): Promise<Store> {
  return openEventStore(await openMemoryStorage(), options);
}
