/**
 * Who holds a LevelDB directory. LevelDB locks its `LOCK` file with a POSIX record lock
 * (`fcntl(F_SETLK)`), which Node cannot take or test; on Linux the kernel lists every such lock,
 * with its process id, device and inode, in `/proc/locks`. Stateflow asks there before it reads a
 * store's files, because the files of a store another process has open are changing under the
 * reader (a log being appended, tables being replaced) and must not be judged as damage.
 */
import { readFile, readdir, readlink, realpath, stat } from 'node:fs/promises';
import path from 'node:path';

/**
 * The pid holding `dir`'s LevelDB lock, `null` when nobody holds it (or there is no LOCK file),
 * or `undefined` when this platform cannot tell (no readable `/proc/locks`).
 */
export async function lockHolder(dir: string): Promise<number | null | undefined> {
  let locks: string;
  try {
    locks = await readFile('/proc/locks', 'utf8');
  } catch {
    return undefined;
  }
  let file;
  try {
    file = await stat(path.join(dir, 'LOCK'), { bigint: true });
  } catch {
    return null;
  }
  // Linux's dev_t: major in bits 8–19 and 32–43, minor in bits 0–7 and 20–31; /proc/locks
  // prints them in hex as "major:minor:inode".
  const dev = file.dev;
  const major = ((dev >> 8n) & 0xfffn) | ((dev >> 32n) & ~0xfffn);
  const minor = (dev & 0xffn) | ((dev >> 12n) & ~0xffn);
  const id = `${major.toString(16).padStart(2, '0')}:${minor.toString(16).padStart(2, '0')}:${file.ino}`;
  for (const line of locks.split('\n')) {
    // "1: POSIX  ADVISORY  WRITE 19189 fe:00:2146657 0 EOF" (blocked waiters start with "->")
    const fields = line.trim().split(/\s+/);
    if (fields[1] !== 'POSIX' || fields[5] !== id) continue;
    const pid = Number(fields[4]);
    if (Number.isSafeInteger(pid)) return pid;
  }
  return null;
}

/**
 * A process other than this one that holds a POSIX lock (any, per `/proc/locks`) and has a file
 * of `dir` open, or `null` when none is found (or this platform cannot tell: no `/proc`, or
 * processes of other users whose descriptors cannot be read). Asked when nobody holds `dir`'s
 * `LOCK` file as it is now: LevelDB never deletes or replaces it, so when a process still holds
 * the store through a deleted `LOCK` (`rm`), or one replaced by a new file (`rm; touch`) or a
 * symlink, LevelDB's lock would let a second opener in, and two processes would write the same
 * files at once. Cost: reading `/proc/locks`, and one `readlink` per open descriptor of each
 * process holding a lock (a few, usually).
 */
export async function openFileHolder(dir: string): Promise<number | null> {
  const prefix = `${await realpath(dir).catch(() => path.resolve(dir))}${path.sep}`;
  let locks: string;
  try {
    locks = await readFile('/proc/locks', 'utf8');
  } catch {
    return null;
  }
  const pids = new Set(
    locks
      .split('\n')
      .map((line) => line.trim().split(/\s+/))
      .filter((fields) => fields[1] === 'POSIX')
      .map((fields) => Number(fields[4]))
      .filter((pid) => Number.isSafeInteger(pid) && pid !== process.pid),
  );
  for (const pid of pids) {
    let fds: string[];
    try {
      fds = await readdir(`/proc/${pid}/fd`);
    } catch {
      continue; // gone, or another user's
    }
    for (const fd of fds) {
      const target = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => '');
      if (target.startsWith(prefix)) return pid;
    }
  }
  return null;
}
