/**
 * LevelDB on disk (`classic-level`) as a storage of the seam: the Level adapter of
 * `@stateflow/store` (`openLevelStorage`) over a `ClassicLevel` database, with what LevelDB does
 * not do itself (README "Durability contract", "The files are checked before LevelDB opens
 * them"):
 *
 * - **Open checks the files first** (`internal/file-check.ts`) and applies the crash policy
 *   (`internal/crash-policy.ts`): LevelDB's own open recovers silently over a damaged write-ahead
 *   log and rewrites the directory, so it runs only on a directory whose log is intact, ends in a
 *   crash's torn tail, or — after an OS crash — had its unsynced tail dropped
 *   (`internal/tail-repair.ts`, the one repair made in place).
 * - **Every batch carries the mark `{ boot, synced }`** (`internal/wal-mark.ts`), the adapter's
 *   `mark`, under a key iteration never returns, so that the log says of each of its records
 *   whether it was synced and on which boot it was written: what the crash policy reads.
 * - **Close flushes the memtable** into a table before LevelDB closes (the adapter's
 *   `beforeClose`: LevelDB's CompactRange flushes the memtable first; over an empty key range it
 *   compacts nothing else), so a cleanly closed store has an empty write-ahead log and any damage
 *   to a log found at open is either a crash's or damage to the files, never a log cut short
 *   after a clean close. A flush that fails (a full disk) does not stop the close: the log then
 *   keeps its records, and its torn tail if a write failed, which the next open accepts as it
 *   accepts a crash's.
 */
import { lstat, open, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { ClassicLevel } from 'classic-level';
import { StateflowError } from '@stateflow/core';
import { openLevelStorage, seqOfLogKey, translateLevelError } from '@stateflow/store';
import type { Storage, StorageRepair } from '@stateflow/store';
import { bootId } from './internal/boot-id.js';
import { crashVerdict } from './internal/crash-policy.js';
import { beginCreation, endCreation } from './internal/creation.js';
import { checkLevelDbFiles, fileCorrupt } from './internal/file-check.js';
import type { LevelDbFiles } from './internal/file-check.js';
import { noStoreAt } from './internal/no-store.js';
import { dropUnsyncedTail } from './internal/tail-repair.js';
import { WAL_MARK_KEY, decodeWalMark, encodeWalMark } from './internal/wal-mark.js';

/** What LevelDB on disk promises the store. */
const CAPABILITIES = { persistent: true, fsync: true, soleWriter: true, reopenAfterFailedWrite: true } as const;
/** A key range that holds no key: every store key starts with an ASCII family letter, the mark's with 0xff then a letter. */
const NO_KEYS = Buffer.from([0xff, 0xff]);
/**
 * The file in which a development build of Stateflow kept buffered commits before LevelDB had
 * them. This version writes them to LevelDB alone and does not read it.
 */
const LEFTOVER_JOURNAL = 'stateflow-journal';

/** Options of {@link openDiskStorage}. */
export interface DiskStorageOptions {
  /** Create the database when `dir` holds none (`false`: `NOT_FOUND`, nothing created). */
  createIfMissing: boolean;
  /**
   * LevelDB's memtable size in bytes (default 4 MiB; LevelDB clamps it to 64 KiB…1 GiB): when the
   * memtable outgrows it, LevelDB switches to a new write-ahead log and flushes the old one into a
   * table. A small one makes that happen after little data (the crash-state explorer's workloads).
   */
  writeBufferSize?: number;
}

/**
 * Open LevelDB (classic-level) at `dir` as raw storage of the seam (for `openStoreOver`, the
 * storage-seam suite, or reading the documented key layout), creating it when missing unless
 * `createIfMissing` is false. The directory's files are checked, and the crash policy applied,
 * before LevelDB opens them (see the module comment); every refusal leaves the directory byte for
 * byte as it was.
 * @example
 * ```ts
 * const storage = await openDiskStorage('/var/lib/stateflow', { createIfMissing: false });
 * const store = await openStoreOver(storage); // what openStore(dir) does
 * ```
 * @throws STORE_LOCKED `{ dir, pid? }` when another process (or store) holds the directory, also
 *   through a deleted LOCK file; STORE_CORRUPT `{ file, offset, detail }` when its files are
 *   damaged beyond what a crash may leave (nothing is changed), or `{ detail }` when LevelDB finds
 *   damage itself; STORE_VERSION `{ found: 'stateflow-journal' }` for a directory a development
 *   build left buffered commits in; NOT_FOUND `{ dir }` when `createIfMissing` is false and there
 *   is no database; STORE_IO otherwise.
 */
export async function openDiskStorage(dir: string, options: DiskStorageOptions = { createIfMissing: true }): Promise<Storage> {
  const files = await checkLevelDbFiles(dir);
  if (!files.exists && !options.createIfMissing) throw noStoreAt(dir);
  const journal = await leftoverJournal(dir);
  if (journal !== null && journal > 0) {
    throw new StateflowError(
      'STORE_VERSION',
      `Store ${dir} holds ${Number.isFinite(journal) ? `${journal} bytes in ${LEFTOVER_JOURNAL}` : `a ${LEFTOVER_JOURNAL} that is not a regular file`}: buffered commits written by a development build of Stateflow that kept them outside LevelDB; this version does not read that file. Open and close the store once with that build (it moves them into LevelDB and empties the file), then delete the file. Nothing was changed`,
      { found: LEFTOVER_JOURNAL, supported: 5 },
    );
  }
  const boot = bootId();
  const repairs = files.exists ? await judgeLogs(dir, files, boot, options.createIfMissing) : [];
  const creating = !files.exists;
  if (creating) await io(dir, () => beginCreation(dir, files.leftovers));
  const storage = await openUncheckedDiskStorage(dir, { createIfMissing: options.createIfMissing, writeBufferSize: options.writeBufferSize, boot, repairs, creating });
  // A cleanly closed development build's journal is empty: nothing to keep.
  if (journal === 0) await io(dir, () => rm(path.join(dir, LEFTOVER_JOURNAL), { force: true }));
  return storage;
}

/**
 * Apply the crash policy to the checked files of an existing database: refuse it, or drop an
 * unsynced tail (the one repair in place), and say what the store's notices must.
 * @throws STORE_CORRUPT (nothing changed) for damage a crash does not leave, and for an empty
 *   database (`internal/creation.ts`) — NOT_FOUND for that one when `createIfMissing` is false
 */
async function judgeLogs(dir: string, files: Extract<LevelDbFiles, { exists: true }>, boot: string, createIfMissing: boolean): Promise<StorageRepair[]> {
  if (files.empty) {
    const log = files.logs.at(-1)?.name ?? 'the write-ahead log';
    if (!createIfMissing) throw noStoreAt(dir, 'an empty LevelDB database without a Stateflow format record (nothing was changed)');
    throw fileCorrupt(
      dir,
      log,
      0,
      'the database has no table and only empty write-ahead logs, and no creation of a store is unfinished here: a store whose write-ahead log was emptied (every transition in it lost), or an empty database another program made; it is not taken for a new store',
    );
  }
  const verdict = crashVerdict(files.logs, boot);
  if (verdict.kind === 'corrupt') throw fileCorrupt(dir, verdict.file, verdict.offset, verdict.detail);
  if (verdict.kind === 'open') return [];
  const kept = await io(dir, () => dropUnsyncedTail(dir, verdict.cuts));
  const bytes = verdict.cuts.reduce((sum, cut) => sum + cut.bytes - cut.from, 0);
  return [{ kind: 'unsynced-tail-dropped', file: verdict.file, offset: verdict.offset, reason: verdict.reason, bytes, keptIn: kept, lostThrough: verdict.lostThrough }];
}

/**
 * Open LevelDB at `dir` without checking its files first: LevelDB's recovery runs over whatever
 * damage there is. Only for a copy made by `recoverStore`, never for a user's store.
 * @throws as LevelDB's open, translated (STORE_CORRUPT, NOT_FOUND, STORE_IO)
 */
export function openDiskStorageRecovering(dir: string): Promise<Storage> {
  return openUncheckedDiskStorage(dir, { createIfMissing: false, boot: bootId(), repairs: [], creating: false });
}

/**
 * Run LevelDB's repair (RepairDB) on `dir`: it rebuilds a MANIFEST from the tables and logs it
 * finds and moves unreadable files to `dir/lost`. Only for a copy made by `recoverStore`, when
 * LevelDB cannot even open it (a missing or garbled CURRENT or MANIFEST, a truncated table).
 * @throws STORE_CORRUPT / STORE_IO (translated) when the repair fails
 */
export async function repairDiskStorage(dir: string): Promise<void> {
  await io(dir, () => ClassicLevel.repair(dir));
}

/**
 * The Level adapter over LevelDB at `dir`, with this process's marks and LevelDB's flush before
 * close. Every open starts its session with a synced batch of the mark alone (so a log of this
 * session is never empty, and names its boot, whatever a power loss leaves of its later pages);
 * `creating`: the creation marker was written (`internal/creation.ts`), removed after that batch.
 */
async function openUncheckedDiskStorage(
  dir: string,
  options: { createIfMissing: boolean; writeBufferSize?: number; boot: string; repairs: StorageRepair[]; creating: boolean },
): Promise<Storage> {
  const level = new ClassicLevel<Uint8Array, Uint8Array>(dir, {
    keyEncoding: 'view',
    valueEncoding: 'view',
    createIfMissing: options.createIfMissing,
    ...(options.writeBufferSize === undefined ? {} : { writeBufferSize: options.writeBufferSize }),
  });
  let ackedThrough = 0;
  // Whether the close must mark itself: this session wrote, or the one before did not close.
  let closeMark = false;
  const olderLogs = new OlderLogs(dir);
  const storage = await openLevelStorage(level, {
    location: dir,
    capabilities: CAPABILITIES,
    mark: {
      key: WAL_MARK_KEY,
      value: (_ops, { sync }) => {
        closeMark = true;
        return encodeWalMark({ boot: options.boot, synced: sync, ackedThrough, closed: false });
      },
    },
    afterSyncedWrite: async (ops) => {
      await io(dir, () => olderLogs.sync());
      for (const op of ops) ackedThrough = Math.max(ackedThrough, (op.type === 'put' ? seqOfLogKey(op.key) : null) ?? 0);
    },
    // The session's first batch synced: its log then names this boot even when a power loss
    // zeroes every later page, and is never empty before a clean close.
    syncFirstBatch: true,
    beforeClose: async () => {
      if (closeMark) await level.put(WAL_MARK_KEY, encodeWalMark({ boot: options.boot, synced: false, ackedThrough, closed: true }));
      await level.compactRange(NO_KEYS, NO_KEYS);
    },
    // Every key of the store, the mark's included, lies in [0x00, 0xff 0xff 0xff).
    reclaim: () => level.compactRange(Buffer.from([0x00]), Buffer.from([0xff, 0xff, 0xff])),
    repairs: options.repairs,
  });
  try {
    const unclean = await previousSession(level, options.boot);
    closeMark = unclean !== null;
    if (unclean?.rebooted === true && options.repairs.length === 0) options.repairs.push({ kind: 'not-closed-before-reboot', boot: unclean.boot });
    if (options.creating) {
      // A first synced batch (the mark alone) before the creation marker goes.
      await level.put(WAL_MARK_KEY, encodeWalMark({ boot: options.boot, synced: true, ackedThrough: 0, closed: false }), { sync: true });
      await endCreation(dir);
    }
  } catch (err) {
    await storage.close();
    throw translateLevelError(err, dir);
  }
  return storage;
}

/**
 * How the session before this open ended, from the last mark the database holds: `null` when it
 * closed (or no mark says: a database without marks, or marks of builds before `ackedThrough`,
 * which say nothing of closing); otherwise its boot and whether that was an earlier boot — then
 * buffered transitions after the last one kept may have gone with the power (a log cut at a
 * record boundary, or a switched-to log lost whole, leaves no trace).
 */
async function previousSession(level: ClassicLevel<Uint8Array, Uint8Array>, boot: string): Promise<{ boot: string; rebooted: boolean } | null> {
  const value = await level.get(WAL_MARK_KEY);
  const last = value === undefined ? null : decodeWalMark(value);
  if (last === null || last.ackedThrough === null || last.closed) return null;
  return { boot: last.boot, rebooted: last.boot !== boot };
}

/**
 * The write-ahead logs LevelDB switched away from: when its memtable fills, LevelDB starts a new
 * log and closes the old one without a sync (its records reach a table later, in the
 * background), so a synced batch in the new log does not make the buffered batches of the old
 * one durable. After every synced batch, and before it is acknowledged, each older log still
 * present is synced once (it receives no more writes): "a synced batch makes every batch before
 * it durable" then holds across the switch. Cost: one `readdir` per synced batch, one `fsync` per
 * log switch.
 */
class OlderLogs {
  readonly #dir: string;
  readonly #synced = new Set<string>();

  constructor(dir: string) {
    this.#dir = dir;
  }

  async sync(): Promise<void> {
    const logs = (await readdir(this.#dir)).filter((name) => /^\d+\.log$/.test(name)).sort((a, b) => Number.parseInt(a, 10) - Number.parseInt(b, 10));
    // Forget logs LevelDB has since folded into tables and deleted: the set holds at most the listing.
    for (const name of this.#synced) if (!logs.includes(name)) this.#synced.delete(name);
    for (const name of logs.slice(0, -1)) {
      if (this.#synced.has(name)) continue;
      const handle = await open(path.join(this.#dir, name), 'r').catch((err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT') return null; // flushed into a table and deleted meanwhile
        throw err;
      });
      if (handle === null) continue;
      try {
        await handle.sync();
      } finally {
        await handle.close();
      }
      this.#synced.add(name);
    }
  }
}

/**
 * The size of a leftover journal in `dir` (see {@link LEFTOVER_JOURNAL}), or `null` when there is
 * none. Anything there but a regular file (a symlink to `/dev/zero`, a directory) counts as not
 * empty: it is refused, never read or removed.
 */
async function leftoverJournal(dir: string): Promise<number | null> {
  try {
    const entry = await lstat(path.join(dir, LEFTOVER_JOURNAL));
    return entry.isFile() ? entry.size : Number.POSITIVE_INFINITY;
  } catch {
    return null;
  }
}

/** Run file work on `dir`, its failures translated as LevelDB's are. */
async function io<T>(dir: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw translateLevelError(err, dir);
  }
}
