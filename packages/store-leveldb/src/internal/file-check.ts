/**
 * The check of a LevelDB directory's files that runs before LevelDB opens it (README "The files
 * are checked before LevelDB opens them"). LevelDB's open is never read-only: it rotates its
 * info log, replays the write-ahead log into a new table, writes a new MANIFEST and deletes the
 * old log, and its recovery silently drops records it cannot read (with them, every transition
 * after a damaged one). So Stateflow reads the files itself first and lets LevelDB open only a
 * directory whose damage, if any, is the torn tail a crash leaves; anything else is
 * `STORE_CORRUPT` naming the file and byte offset, and the directory is left byte for byte as it
 * was.
 *
 * What is checked, in order: the lock (a directory another process holds is changing under the
 * reader: `STORE_LOCKED`, also when its `LOCK` file was deleted while a process still has the
 * store's files open), `CURRENT` (a missing one beside LevelDB files would make LevelDB create a
 * new, empty database over them), the MANIFEST it names (every record's checksum, every
 * VersionEdit; LevelDB syncs it, so only a torn tail is tolerated), every live table (present,
 * with the size the MANIFEST recorded), and every log recovery will replay (present when the
 * MANIFEST names it; read record by record). What damage to a log the store may still open with
 * is the crash policy's to decide (`crash-policy.ts`): this check only reads.
 *
 * A clean close flushes LevelDB's memtable into a table (see `disk-storage.ts`), so a cleanly
 * closed store has an empty log: bytes in a log at open come from a session that did not close
 * (a crash) or from damage to the files.
 */
import { readFile, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { StateflowError } from '@stateflow/core';
import type { ReplayedLog } from './crash-policy.js';
import { scanLog } from './log-format.js';
import { CREATING, isCreationLeftover } from './creation.js';
import { lockHolder, openFileHolder } from './lock-holder.js';
import { foldManifest } from './manifest.js';
import type { ManifestVersion } from './manifest.js';


/**
 * One damaged place in a LevelDB directory. `kind`: `missing` (a log or table the MANIFEST names
 * is gone) and `truncated` (a table shorter than the MANIFEST says) lose records that no
 * remaining file names; `damaged` is anything else (bytes that do not verify, a missing or
 * garbled CURRENT or MANIFEST, which LevelDB's repair rebuilds from the tables and logs).
 */
export interface FileDamage {
  kind: 'missing' | 'truncated' | 'damaged';
  file: string;
  offset: number;
  detail: string;
}

/**
 * What the check found: nothing (no LevelDB database yet), or the logs recovery will replay (with
 * their scans, damaged or not) and (with `tolerateDamage`) the damage found in the other files.
 */
export type LevelDbFiles =
  | {
      exists: false;
      /** The files an unfinished creation left (`creation.ts`), to remove before creating. */
      leftovers: string[];
    }
  | {
      exists: true;
      logs: ReplayedLog[];
      damage: FileDamage[];
      /** No live table and only empty logs: a database without a record (`creation.ts`). */
      empty: boolean;
    };

const LOG_FILE = /^(\d+)\.log$/;
const TABLE_FILE = /^(\d+)\.(ldb|sst)$/;
const isLevelDbData = (name: string): boolean => LOG_FILE.test(name) || TABLE_FILE.test(name) || name.startsWith('MANIFEST-');

/** `STORE_CORRUPT { file, offset, detail }` for damage found in `dir`'s files before LevelDB opened them. */
export function fileCorrupt(dir: string, file: string, offset: number, detail: string, cause?: unknown): StateflowError<'STORE_CORRUPT'> {
  return new StateflowError(
    'STORE_CORRUPT',
    `Store ${dir} is damaged: ${file} at byte ${offset}: ${detail}. Nothing was changed (LevelDB was not allowed to open it); ` +
      `run "stateflow recover --dir ${dir} --into NEWDIR" to recover what is intact into a copy, or restore a backup`,
    { file, offset, detail },
    cause === undefined ? undefined : { cause },
  );
}

/**
 * Check the LevelDB files in `dir` before LevelDB opens them (see the module comment).
 * @param options.tolerateDamage report damage instead of throwing (`stateflow recover`, which
 *   needs to know what a damaged store held); the lock is still checked.
 * @throws STORE_LOCKED `{ dir, pid }` when a process holds the directory (this one included), or
 *   has its files open while its LOCK file is missing; STORE_CORRUPT `{ file, offset, detail }`
 *   for damage to CURRENT, the MANIFEST or the tables, or a missing log;
 *   STORE_IO when the files cannot be read.
 */
export async function checkLevelDbFiles(dir: string, options: { tolerateDamage?: boolean } = {}): Promise<LevelDbFiles> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { exists: false, leftovers: [] };
    throw ioError(dir, err);
  }
  const present = new Set(names);
  await checkHolders(dir, present);
  if (present.has(CREATING) && !names.some((name) => TABLE_FILE.test(name))) return { exists: false, leftovers: names.filter(isCreationLeftover) };
  const damage: FileDamage[] = [];
  const corrupt: Corrupt = (kind, file, offset, detail) => {
    if (options.tolerateDamage !== true) throw fileCorrupt(dir, file, offset, detail);
    damage.push({ kind, file, offset, detail });
  };
  if (!present.has('CURRENT')) {
    const data = names.filter(isLevelDbData);
    if (data.length === 0) return { exists: false, leftovers: [] };
    corrupt('damaged', 'CURRENT', 0, `missing, while LevelDB files are present (${data.slice(0, 3).join(', ')}${data.length > 3 ? ', …' : ''}); LevelDB would create an empty database over them`);
    return { exists: true, logs: [], damage, empty: false };
  }
  const version = await readVersion(dir, present, corrupt);
  if (version === null) return { exists: true, logs: [], damage, empty: false };
  const files = new Map<number, string>();
  for (const name of names) {
    const m = TABLE_FILE.exec(name) ?? LOG_FILE.exec(name);
    if (m !== null) files.set(Number(m[1]), name);
  }
  await checkTables(dir, version, files, corrupt);
  const logs = await replayedLogs(dir, version, files, corrupt);
  return { exists: true, logs, damage, empty: version.intact && version.tables.size === 0 && logs.every((log) => log.bytes === 0) };
}

/** Report damage of one kind at one place (throws unless damage is tolerated). */
type Corrupt = (kind: FileDamage['kind'], file: string, offset: number, detail: string) => void;

/**
 * @throws STORE_LOCKED when a process holds `dir`'s LevelDB lock, or holds a lock and has its
 *   files open while its LOCK file is missing or not the one locked (someone deleted or replaced
 *   it while the store was open)
 */
async function checkHolders(dir: string, present: Set<string>): Promise<void> {
  const holder = await lockHolder(dir);
  if (typeof holder === 'number') {
    const message =
      holder === process.pid
        ? `Store directory ${dir} is in use by another open store in this process; close it first`
        : `Store directory ${dir} is in use by process ${holder}. If that is a stateflow server (stateflow serve, or the background server of stateflow mcp), stop it with "stateflow stop --dir ${dir}" or reach the store through it (openRemoteStore of @stateflow/client); otherwise stop that process`;
    throw new StateflowError('STORE_LOCKED', message, { dir, pid: holder });
  }
  if (!present.has('CURRENT')) return;
  const pid = await openFileHolder(dir);
  if (pid !== null) {
    const lock = present.has('LOCK') ? 'its LOCK file is not the one that process locked' : 'it has no LOCK file';
    throw new StateflowError(
      'STORE_LOCKED',
      `Store directory ${dir} is held by process ${pid}, which has its files open and holds a lock, though ${lock}: someone deleted or replaced LOCK (rm, touch, a symlink) while that process held the store (LevelDB never deletes it). Stop process ${pid} before opening the store; never delete LOCK or replace it by hand`,
      { dir, pid },
    );
  }
}

/** The version the MANIFEST that CURRENT names describes (`intact`: every byte of it reads as records); `null` (damage reported) when it cannot be read. */
async function readVersion(dir: string, present: Set<string>, corrupt: Corrupt): Promise<(ManifestVersion & { intact: boolean }) | null> {
  const current = (await read(dir, 'CURRENT')).toString('latin1');
  const manifestName = /^(MANIFEST-\d+)\n$/.exec(current)?.[1];
  if (manifestName === undefined) {
    corrupt('damaged', 'CURRENT', 0, `does not name a MANIFEST (holds ${JSON.stringify(current.slice(0, 40))})`);
    return null;
  }
  if (!present.has(manifestName)) {
    corrupt('damaged', manifestName, 0, 'missing (CURRENT names it)');
    return null;
  }
  const manifestScan = scanLog(await read(dir, manifestName));
  if (manifestScan.damage !== null && manifestScan.damage.verifiedAfter !== null) corrupt('damaged', manifestName, manifestScan.damage.offset, manifestScan.damage.reason);
  try {
    return { ...foldManifest(manifestScan.records.map((r) => r.data)), intact: manifestScan.damage === null };
  } catch (err) {
    corrupt('damaged', manifestName, 0, (err as Error).message);
    return null;
  }
}

/** Every live table exists with the size the MANIFEST recorded. */
async function checkTables(dir: string, version: ManifestVersion, files: Map<number, string>, corrupt: Corrupt): Promise<void> {
  for (const [number, size] of version.tables) {
    const name = files.get(number);
    if (name === undefined || !TABLE_FILE.test(name)) {
      corrupt('missing', `${String(number).padStart(6, '0')}.ldb`, 0, `table missing (the MANIFEST lists it with ${size} bytes)`);
      continue;
    }
    const actual = (await statFile(dir, name)).size;
    if (actual !== size) corrupt('truncated', name, Math.min(actual, size), `table is ${actual} bytes, the MANIFEST says ${size}${actual < size ? ' (truncated)' : ''}`);
  }
}

/** The logs LevelDB's recovery will replay, oldest first, each scanned; the one the MANIFEST expects must exist. */
async function replayedLogs(dir: string, version: ManifestVersion, files: Map<number, string>, corrupt: Corrupt): Promise<ReplayedLog[]> {
  const replayed = [...files]
    .filter(([number, name]) => LOG_FILE.test(name) && (number >= version.logNumber || number === version.prevLogNumber))
    .sort(([a], [b]) => a - b)
    .map(([, name]) => name);
  const expectedLog = `${String(version.logNumber).padStart(6, '0')}.log`;
  if (version.logNumber > 0 && !replayed.some((name) => Number(LOG_FILE.exec(name)?.[1]) === version.logNumber)) {
    corrupt('missing', expectedLog, 0, 'write-ahead log missing (the MANIFEST expects it)');
  }
  const logs: ReplayedLog[] = [];
  for (const name of replayed) {
    const bytes = await read(dir, name);
    logs.push({ name, bytes: bytes.length, scan: scanLog(bytes) });
  }
  return logs;
}

async function read(dir: string, name: string): Promise<Buffer> {
  try {
    return await readFile(path.join(dir, name));
  } catch (err) {
    throw ioError(dir, err);
  }
}

async function statFile(dir: string, name: string): Promise<{ size: number }> {
  try {
    return await stat(path.join(dir, name));
  } catch (err) {
    throw ioError(dir, err);
  }
}

function ioError(dir: string, err: unknown): StateflowError<'STORE_IO'> {
  const { code = null, path: failed } = err as NodeJS.ErrnoException;
  const message =
    code === 'ENOTDIR' && failed === dir
      ? `Store ${dir} is a file, not a directory: open a store directory (a missing one is created)`
      : `Cannot read the files of store ${dir}: ${(err as Error).message}`;
  return new StateflowError('STORE_IO', message, { location: dir, code }, { cause: err });
}
