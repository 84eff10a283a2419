/**
 * Whether a LevelDB store that failed a write (a full disk) can be reopened now (README "Fail
 * closed"; the server's `reopeningStore` asks before it closes the store it still reads from).
 * Reopening replays the write-ahead logs into a new table and writes a new log and MANIFEST, so
 * the file system must have room for about the logs' size, plus a margin.
 */
import { readdir, stat, statfs } from 'node:fs/promises';
import path from 'node:path';

/** Free bytes a reopen needs beyond the size of the logs it replays. */
const REOPEN_MARGIN_BYTES = 1024 * 1024;

/**
 * `true` when the file system of `dir` has at least the size of `dir`'s write-ahead logs plus
 * 1 MiB free for this user; `false` otherwise, and when `dir` cannot be read (the reopen would
 * fail anyway). Cost: one `statfs`, one `readdir`, a `stat` per log.
 */
export async function hasRoomToReopen(dir: string): Promise<boolean> {
  try {
    const fs = await statfs(dir);
    let logs = 0;
    for (const name of await readdir(dir)) if (name.endsWith('.log')) logs += (await stat(path.join(dir, name))).size;
    return fs.bavail * fs.bsize >= logs + REOPEN_MARGIN_BYTES;
  } catch {
    return false;
  }
}
