/**
 * Creating a store's directory so that a crash part way leaves nothing that looks like a store
 * (README "Durability contract"). LevelDB's creation writes CURRENT, a first MANIFEST that it
 * does not sync, a second MANIFEST and an empty write-ahead log; a crash or power loss part way
 * leaves CURRENT missing, or naming a MANIFEST of zeros, or an empty database — states no open
 * may take for a damaged store (nothing was acknowledged yet), nor an empty database for a new
 * one (a store whose log was emptied looks the same). So before LevelDB creates anything, the
 * marker file `stateflow-creating` is written and synced; once LevelDB's database exists and a
 * first synced batch is in its log, the marker is removed and the directory synced. A directory
 * with the marker and no table is an unfinished creation: no store, and its leftovers are
 * removed before the store is created again. An existing database with no table and only empty
 * logs, without the marker, is a store whose log was emptied (or a database some other program
 * left empty): it is refused, never taken for a new store.
 */
import { mkdir, open, rm } from 'node:fs/promises';
import path from 'node:path';

/** The marker of an unfinished creation. */
export const CREATING = 'stateflow-creating';

/** Whether `name` is a file LevelDB's creation leaves (removed with an unfinished creation). */
export const isCreationLeftover = (name: string): boolean => name === 'CURRENT' || name === CREATING || /^MANIFEST-\d+$|^\d+\.(log|dbtmp)$/.test(name);

/**
 * Start creating a store in `dir`: remove an unfinished creation's `leftovers`, then write and
 * sync the marker and the directory.
 * @throws the fs error (the caller translates it)
 */
export async function beginCreation(dir: string, leftovers: readonly string[]): Promise<void> {
  await mkdir(dir, { recursive: true });
  for (const name of leftovers) await rm(path.join(dir, name), { force: true });
  const marker = await open(path.join(dir, CREATING), 'w');
  try {
    await marker.writeFile('Stateflow is creating a store in this directory; if this file stays, the creation did not finish and nothing was stored.\n');
    await marker.sync();
  } finally {
    await marker.close();
  }
  await syncDirectory(dir);
}

/**
 * Finish creating a store in `dir` (its database exists and holds a synced batch): remove the
 * marker and sync the directory.
 * @throws the fs error (the caller translates it)
 */
export async function endCreation(dir: string): Promise<void> {
  await rm(path.join(dir, CREATING), { force: true });
  await syncDirectory(dir);
}

/** fsync a directory, so the names created and removed in it survive a power loss. */
export async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
