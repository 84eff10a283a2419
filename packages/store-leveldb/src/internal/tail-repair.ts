/**
 * The one repair made in place (DESIGN.md "Process crash vs power loss"; README "Durability
 * contract"): after an OS crash or power loss, the unsynced tail of LevelDB's write-ahead log
 * that `crash-policy.ts` let go is cut off before LevelDB reads the log, so that LevelDB's
 * recovery (which skips damage and reads on) cannot leave a hole in the log. Nothing is
 * destroyed: the dropped bytes are first written, synced, to `stateflow-dropped/` beside the
 * store, one file per log, `<log name>.from-<offset>`. A crash during the repair leaves either the
 * log as it was (the next open repairs it again, overwriting the same file with the same bytes)
 * or the log cut with its bytes already kept.
 */
import { mkdir, open, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { TailCut } from './crash-policy.js';
import { syncDirectory } from './creation.js';

/** The folder beside the store's files that keeps dropped log tails. */
export const DROPPED_DIR = 'stateflow-dropped';

/**
 * Keep the bytes of each cut in {@link DROPPED_DIR}, then cut each log to its intact prefix.
 * @returns the path of each kept file, in the order of `cuts`
 * @throws the fs error (the caller translates it) — before any log was cut when keeping failed
 */
export async function dropUnsyncedTail(dir: string, cuts: TailCut[]): Promise<string[]> {
  const folder = path.join(dir, DROPPED_DIR);
  await mkdir(folder, { recursive: true });
  const kept: string[] = [];
  for (const cut of cuts) {
    const bytes = (await readFile(path.join(dir, cut.file))).subarray(cut.from, cut.bytes);
    const file = path.join(folder, `${cut.file}.from-${cut.from}`);
    await withFile(file, 'w', async (handle) => {
      await handle.writeFile(bytes);
      await handle.sync();
    });
    kept.push(file);
  }
  await syncDirectory(folder);
  await syncDirectory(dir);
  for (const cut of cuts) {
    await withFile(path.join(dir, cut.file), 'r+', async (handle) => {
      await handle.truncate(cut.from);
      await handle.sync();
    });
  }
  return kept;
}

async function withFile(file: string, flags: string, work: (handle: Awaited<ReturnType<typeof open>>) => Promise<void>): Promise<void> {
  const handle = await open(file, flags);
  try {
    await work(handle);
  } finally {
    await handle.close();
  }
}
