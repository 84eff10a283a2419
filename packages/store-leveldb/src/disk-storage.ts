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
import { lstat, rm } from 'node:fs/promises';
import path from 'node:path';
import { ClassicLevel } from 'classic-level';
import { StateflowError } from '@stateflow/core';
import { openLevelStorage, translateLevelError } from '@stateflow/store';
import type { Storage, StorageRepair } from '@stateflow/store';
import { bootId } from './internal/boot-id.js';
import { crashVerdict } from './internal/crash-policy.js';
import { checkLevelDbFiles, fileCorrupt } from './internal/file-check.js';
import { noStoreAt } from './internal/no-store.js';
import { dropUnsyncedTail } from './internal/tail-repair.js';
import { WAL_MARK_KEY, encodeWalMark } from './internal/wal-mark.js';

/** What LevelDB on disk promises the store. */
const CAPABILITIES = { persistent: true, fsync: true, soleWriter: true, reopenAfterFailedWrite: true } as const;
/** A key range that holds no key: every store key starts with an ASCII family letter, the mark's with 0xff then a letter. */
const NO_KEYS = Buffer.from([0xff, 0xff]);
/**
 * The file in which a development build of Stateflow kept buffered commits before LevelDB had
 * them. This version writes them to LevelDB alone and does not read it.
 */
const LEFTOVER_JOURNAL = 'stateflow-journal';

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
export async function openDiskStorage(dir: string, options: { createIfMissing: boolean } = { createIfMissing: true }): Promise<Storage> {
  const files = await checkLevelDbFiles(dir);
  if (!files.exists && !options.createIfMissing) throw noStoreAt(dir);
  const journal = await leftoverJournal(dir);
  if (journal !== null && journal > 0) {
    throw new StateflowError(
      'STORE_VERSION',
      `Store ${dir} holds ${Number.isFinite(journal) ? `${journal} bytes in ${LEFTOVER_JOURNAL}` : `a ${LEFTOVER_JOURNAL} that is not a regular file`}: buffered commits written by a development build of Stateflow that kept them outside LevelDB; this version does not read that file. Open and close the store once with that build (it moves them into LevelDB and empties the file), then delete the file. Nothing was changed`,
      { found: LEFTOVER_JOURNAL, supported: 3 },
    );
  }
  const boot = bootId();
  const repairs: StorageRepair[] = [];
  if (files.exists) {
    const verdict = crashVerdict(files.logs, boot);
    if (verdict.kind === 'corrupt') throw fileCorrupt(dir, verdict.file, verdict.offset, verdict.detail);
    if (verdict.kind === 'drop-tail') {
      const kept = await io(dir, () => dropUnsyncedTail(dir, verdict.cuts));
      const bytes = verdict.cuts.reduce((sum, cut) => sum + cut.bytes - cut.from, 0);
      repairs.push({ kind: 'unsynced-tail-dropped', file: verdict.file, offset: verdict.offset, reason: verdict.reason, bytes, keptIn: kept, lostThrough: verdict.lostThrough });
    }
  }
  const storage = await openUncheckedDiskStorage(dir, { createIfMissing: options.createIfMissing, boot, repairs });
  // A cleanly closed development build's journal is empty: nothing to keep.
  if (journal === 0) await io(dir, () => rm(path.join(dir, LEFTOVER_JOURNAL), { force: true }));
  return storage;
}

/**
 * Open LevelDB at `dir` without checking its files first: LevelDB's recovery runs over whatever
 * damage there is. Only for a copy made by `recoverStore`, never for a user's store.
 * @throws as LevelDB's open, translated (STORE_CORRUPT, NOT_FOUND, STORE_IO)
 */
export function openDiskStorageRecovering(dir: string): Promise<Storage> {
  return openUncheckedDiskStorage(dir, { createIfMissing: false, boot: bootId(), repairs: [] });
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

/** The Level adapter over LevelDB at `dir`, with this process's marks and LevelDB's flush before close. */
async function openUncheckedDiskStorage(dir: string, options: { createIfMissing: boolean; boot: string; repairs: StorageRepair[] }): Promise<Storage> {
  const level = new ClassicLevel<Uint8Array, Uint8Array>(dir, { keyEncoding: 'view', valueEncoding: 'view', createIfMissing: options.createIfMissing });
  return openLevelStorage(level, {
    location: dir,
    capabilities: CAPABILITIES,
    mark: { key: WAL_MARK_KEY, unsynced: encodeWalMark({ boot: options.boot, synced: false }), synced: encodeWalMark({ boot: options.boot, synced: true }) },
    beforeClose: () => level.compactRange(NO_KEYS, NO_KEYS),
    // Every key of the store, the mark's included, lies in [0x00, 0xff 0xff 0xff).
    reclaim: () => level.compactRange(Buffer.from([0x00]), Buffer.from([0xff, 0xff, 0xff])),
    repairs: options.repairs,
  });
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
