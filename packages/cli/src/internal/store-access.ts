/**
 * Opening the store a command works on, and closing it whatever happens.
 */
import { mkdir, readdir } from 'node:fs/promises';
import { StateflowError } from '@stateflow/core';
import { openStore, type Store } from '@stateflow/store';

/** How a command uses the store directory. */
export type StoreAccess =
  /** The store must exist already (reads, audit, export). */
  | 'existing'
  /** Create the directory and the store when absent (patch, import, serve). */
  | 'create'
  /** The directory must be absent or empty (replay builds a new store). */
  | 'new';

/**
 * Open the store at `dir`, run `work`, and close the store (also when `work` throws).
 *
 * @throws NOT_FOUND when `access` is `'existing'` and there is no store at `dir`.
 * @throws USAGE when `access` is `'new'` and `dir` holds files.
 * @throws whatever `openStore` throws (STORE_LOCKED, STORE_VERSION, STORE_CORRUPT, STORE_IO).
 */
export async function withStore<T>(dir: string, access: StoreAccess, work: (store: Store) => Promise<T>): Promise<T> {
  const entries = await listDir(dir);
  if (access === 'existing' && (entries === null || entries.length === 0)) {
    throw new StateflowError(
      'NOT_FOUND',
      `No store at ${dir}: pass --dir (or set STATEFLOW_DIR) to an existing store, or create one with "stateflow patch" or "stateflow import".`,
      { dir },
    );
  }
  if (access === 'new' && entries !== null && entries.length > 0) {
    throw new StateflowError('USAGE', `${dir} is not empty: pass --dir with a new or empty directory to build the store in.`, {
      dir,
    });
  }
  if (entries === null) await mkdir(dir, { recursive: true });
  const store = await openStore(dir);
  try {
    return await work(store);
  } finally {
    await store.close();
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
