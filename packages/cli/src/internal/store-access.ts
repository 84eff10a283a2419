/**
 * Opening the store a command works on, and closing it whatever happens.
 */
import { mkdir, mkdtemp, readdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { StateflowError, isStateflowError } from '@stateflow/core';
import { openStore, type Store } from '@stateflow/store';

/** How a command uses the store directory. */
export type StoreAccess =
  /** A Stateflow store must exist already (reads, audit, export); nothing is created. */
  | 'existing'
  /** Create the directory and the store when absent (patch, import, serve). */
  | 'create';

/**
 * Open the store at `dir`, run `work`, and close the store (also when `work` throws).
 *
 * @throws NOT_FOUND when `access` is `'existing'` and `dir` holds no Stateflow store (the store's
 *   `createIfMissing: false`: no LevelDB `CURRENT` file or no format record; nothing is created).
 * @throws whatever `openStore` throws (STORE_LOCKED, STORE_VERSION, STORE_CORRUPT, STORE_IO).
 */
export async function withStore<T>(dir: string, access: StoreAccess, work: (store: Store) => Promise<T>): Promise<T> {
  let store: Store;
  if (access === 'create') {
    await mkdir(dir, { recursive: true });
    store = await openStore(dir);
  } else {
    try {
      store = await openStore(dir, { createIfMissing: false });
    } catch (err) {
      if (!isStateflowError(err, 'NOT_FOUND')) throw err;
      throw new StateflowError(
        'NOT_FOUND',
        `No store at ${dir}: pass --dir (or set STATEFLOW_DIR) to an existing store, or create one with "stateflow patch" or "stateflow import".`,
        { dir },
        { cause: err },
      );
    }
  }
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

/**
 * Build a new store for `dir` (which must be absent or empty) all or nothing: `work` fills a
 * store in a fresh sibling temporary directory, which is renamed to `dir` only when `work`
 * returns. When anything fails, the temporary directory (and any parent this call created) is
 * removed and `dir` is left exactly as it was.
 *
 * @throws USAGE when `dir` holds files; whatever `work` or `openStore` throws.
 */
export async function withNewStore<T>(dir: string, work: (store: Store) => Promise<T>): Promise<T> {
  const entries = await listDir(dir);
  if (entries !== null && entries.length > 0) {
    throw new StateflowError('USAGE', `${dir} is not empty: pass --dir with a new or empty directory to build the store in.`, {
      dir,
    });
  }
  const parent = path.dirname(dir);
  const createdParent = await mkdir(parent, { recursive: true });
  let staging: string | undefined;
  try {
    // A sibling, so the final rename stays on one file system and is atomic.
    staging = await mkdtemp(path.join(parent, `.${path.basename(dir)}.building-`));
    const store = await openStore(staging);
    let result: T;
    try {
      result = await work(store);
    } finally {
      await store.close();
    }
    await rename(staging, dir); // replaces `dir` when it is an empty directory
    staging = undefined;
    return result;
  } catch (err) {
    if (staging !== undefined) await rm(staging, { recursive: true, force: true });
    if (createdParent !== undefined) await rm(createdParent, { recursive: true, force: true });
    throw err;
  }
}

async function listDir(dir: string): Promise<string[] | null> {
  try {
    return await readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}
