/**
 * The store a server opens from its directory: held by this process alone (LevelDB's lock), and
 * reopened by itself after a failed write, so a server never stays broken (`reopening-store.ts`).
 */
import { StateflowError, isStateflowError } from '@stateflow/core';
import { readDiscovery } from '@stateflow/client';
import { hasRoomToReopen, openStore } from '@stateflow/store-leveldb';
import type { Store, StoreOptions } from '@stateflow/store';
import { reopeningStore } from '../reopening-store.js';

/**
 * Open the store at `dir` to serve it, with `options` (the server's store observer) on every open.
 * @throws the store's errors when `dir` cannot be opened; STORE_LOCKED names the server holding
 *   it when its discovery file does.
 */
export async function openServedStore(dir: string, options: StoreOptions = {}): Promise<Store> {
  return reopeningStore(await openLocked(dir, options), () => openStore(dir, options), { canReopen: () => hasRoomToReopen(dir) });
}

/**
 * Open the store at `dir`; when another process holds it and a live discovery file names that
 * process, STORE_LOCKED says which server it is and how to stop it.
 */
async function openLocked(dir: string, options: StoreOptions): Promise<Store> {
  try {
    return await openStore(dir, options);
  } catch (err) {
    if (!isStateflowError(err, 'STORE_LOCKED')) throw err;
    const holder = await readDiscovery(dir);
    if (holder === null) throw err;
    // The store's own message guesses at who the holder is; the discovery file knows.
    throw new StateflowError(
      'STORE_LOCKED',
      `Store directory ${dir} is in use by the stateflow server pid ${holder.pid} on ${holder.url}: use it (the CLI and stateflow mcp go through it), or stop it with "stateflow stop --dir ${dir}".`,
      { dir, pid: holder.pid },
      { cause: err },
    );
  }
}
