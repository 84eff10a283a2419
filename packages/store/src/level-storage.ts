/**
 * The LevelDB adapter of the storage seam (`storage.ts`): one class over `abstract-level` serves
 * `classic-level` on disk and `memory-level`. LevelDB's LOCK file keeps a directory to one
 * process, so write sessions only need to be one at a time within it (a promise chain). Every
 * commit is one LevelDB batch, synced or not: LevelDB's write-ahead log is the only log. On disk
 * it adds what LevelDB does not do (README "Durability contract", "Fail closed"):
 *
 * - **Open checks the files first** (`leveldb/file-check.ts`) and applies the crash policy
 *   (`leveldb/crash-policy.ts`): LevelDB's own open recovers silently over a damaged write-ahead
 *   log and rewrites the directory, so it runs only on a directory whose log is intact, ends in a
 *   crash's torn tail, or — after an OS crash — had its unsynced tail dropped
 *   (`leveldb/tail-repair.ts`, the one repair made in place).
 * - **Every batch carries the mark `{ boot, synced }`** (`leveldb/wal-mark.ts`), under a key of
 *   the adapter's own that iteration never returns, so that the log says of each of its records
 *   whether it was synced and on which boot it was written: what the crash policy reads.
 * - **Close flushes the memtable** into a table before LevelDB closes (LevelDB's CompactRange
 *   flushes the memtable first; over an empty key range it compacts nothing else), so a cleanly
 *   closed store has an empty write-ahead log and any damage to a log found at open is either a
 *   crash's or damage to the files, never a log cut short after a clean close.
 */
import { lstat, rm } from 'node:fs/promises';
import path from 'node:path';
import { ClassicLevel } from 'classic-level';
import { MemoryLevel } from 'memory-level';
import { StateflowError } from '@stateflow/core';
import { bootId } from './internal/leveldb/boot-id.js';
import { crashVerdict } from './internal/leveldb/crash-policy.js';
import { checkLevelDbFiles, fileCorrupt } from './internal/leveldb/file-check.js';
import { dropUnsyncedTail } from './internal/leveldb/tail-repair.js';
import { WAL_MARK_KEY, encodeWalMark } from './internal/leveldb/wal-mark.js';
import { translateStorageError } from './internal/level-errors.js';
import { storeNotFound } from './internal/store-not-found.js';
import type { IterateOptions, Storage, StorageCapabilities, StorageOp, StorageReader, StorageRepair, WriteSession } from './storage.js';

/** What one LevelDB snapshot is to the adapter: something to read with, then close. */
interface LevelSnapshot {
  close(): Promise<void>;
}

/** Read options: the snapshot to read from, if any. */
type ReadOptions = { snapshot?: LevelSnapshot };

/**
 * The part of `abstract-level` the adapter uses, which `classic-level` and `memory-level` both
 * have (`highWaterMarkBytes` is classic-level's read-ahead; memory-level ignores it).
 */
interface LevelDatabase {
  readonly status: string;
  open(): Promise<void>;
  close(): Promise<void>;
  get(key: Uint8Array, options?: ReadOptions): Promise<Uint8Array | undefined>;
  getMany(keys: Uint8Array[], options?: ReadOptions): Promise<(Uint8Array | undefined)[]>;
  getSync(key: Uint8Array): Uint8Array | undefined;
  snapshot(): LevelSnapshot;
  batch(): { put(key: Uint8Array, value: Uint8Array): unknown; del(key: Uint8Array): unknown; write(options: { sync: boolean }): Promise<void>; close(): Promise<void> };
  iterator(options: ReadOptions & { gte?: Uint8Array; lt?: Uint8Array; reverse?: boolean; limit?: number; highWaterMarkBytes?: number }): {
    nextv(size: number): Promise<[Uint8Array, Uint8Array][]>;
    close(): Promise<void>;
  };
}

const LEVEL_OPTIONS = { keyEncoding: 'view', valueEncoding: 'view' } as const;
/**
 * Read-ahead of an iterator: up to this many entries, or until this many bytes, per round trip
 * to LevelDB's thread. classic-level's default (16 KiB) stops after ~80 log records; each round
 * trip costs a thread hop (tens of µs on these VMs while the main thread is busy between
 * batches), which made a tenth of an audit's time idle. Memory stays bounded: one batch is at
 * most ITERATE_BYTES plus one entry.
 */
const ITERATE_ENTRIES = 1024;
const ITERATE_BYTES = 1024 * 1024;
/** A key range that holds no Stateflow key (every key starts with an ASCII family letter). */
const NO_KEYS = Buffer.from([0xff, 0xff]);
/**
 * The file in which a development build of Stateflow kept buffered commits before LevelDB had
 * them. This version writes them to LevelDB alone and does not read it.
 */
const LEFTOVER_JOURNAL = 'stateflow-journal';

/** What the disk adapter adds to a plain LevelDB database. */
interface DiskExtras {
  /** Flush the memtable into a table (see the module comment). */
  flush: () => Promise<void>;
  /** The mark's value for an unsynced and for a synced batch (this process's boot id). */
  marks: { unsynced: Uint8Array; synced: Uint8Array };
  repairs: StorageRepair[];
}

class LevelStorage implements Storage {
  readonly location: string | null;
  readonly capabilities: StorageCapabilities;
  readonly repairs: readonly StorageRepair[];
  readonly #db: LevelDatabase;
  readonly #disk: DiskExtras | null;
  /** Resolves when the current write session ends: the next `beginWrite` waits for it. */
  #writer: Promise<void> = Promise.resolve();

  constructor(db: LevelDatabase, location: string | null, capabilities: StorageCapabilities, disk: DiskExtras | null) {
    this.#db = db;
    this.location = location;
    this.capabilities = capabilities;
    this.#disk = disk;
    this.repairs = disk?.repairs ?? [];
  }

  async open(): Promise<void> {
    await this.#guard(() => this.#db.open());
  }

  get(key: Uint8Array): Promise<Uint8Array | undefined> {
    return this.#guard(() => this.#db.get(key));
  }

  getMany(keys: Uint8Array[]): Promise<(Uint8Array | undefined)[]> {
    return this.#guard(() => this.#db.getMany(keys));
  }

  /** abstract-level's `getSync` (classic-level and memory-level both have it). */
  getSync(key: Uint8Array): Uint8Array | undefined {
    try {
      return this.#db.getSync(key);
    } catch (err) {
      throw translateStorageError(err, this.location);
    }
  }

  /** LevelDB's (and memory-level's) explicit snapshots: reads pinned to one sequence number. */
  async snapshot<T>(read: (reader: StorageReader) => Promise<T>): Promise<T> {
    let snapshot: ReturnType<LevelDatabase['snapshot']>;
    try {
      snapshot = this.#db.snapshot();
    } catch (err) {
      throw translateStorageError(err, this.location);
    }
    const options = { snapshot };
    try {
      return await read({
        get: (key) => this.#guard(() => this.#db.get(key, options)),
        getMany: (keys) => this.#guard(() => this.#db.getMany(keys, options)),
        iterate: (range) => this.#iterate(range, snapshot),
      });
    } finally {
      await snapshot.close().catch(() => undefined);
    }
  }

  /** The next write session, once the one before has ended (sessions are one at a time). */
  async beginWrite(): Promise<WriteSession> {
    const before = this.#writer;
    let end!: () => void;
    this.#writer = new Promise<void>((resolve) => (end = resolve));
    await before;
    let open = true;
    const finish = (): void => {
      open = false;
      end();
    };
    return {
      commit: async (ops, options) => {
        if (!open) throw new StateflowError('STORE_CLOSED', 'This write session has ended', {});
        try {
          await this.#writeBatch(ops, options);
        } finally {
          finish();
        }
      },
      abort: async () => {
        if (open) finish();
      },
    };
  }

  /**
   * One atomic LevelDB write batch, with the write-ahead-log mark on disk, built as a chained batch:
   * abstract-level's array form copies the options into every operation (`{ ...options, ...op }`),
   * which with any options object (even `{ sync: false }`) took longer than LevelDB's write of the
   * batch itself. The chained form hands `sync` to the write alone; the batch is just as atomic.
   */
  #writeBatch(ops: StorageOp[], options: { sync: boolean }): Promise<void> {
    if (ops.length === 0) return Promise.resolve();
    const mark = this.#disk === null ? null : options.sync ? this.#disk.marks.synced : this.#disk.marks.unsynced;
    return this.#guard(async () => {
      const batch = this.#db.batch();
      try {
        for (const op of ops) {
          if (op.type === 'put') batch.put(op.key, op.value);
          else batch.del(op.key);
        }
        if (mark !== null) batch.put(WAL_MARK_KEY, mark);
      } catch (err) {
        await batch.close();
        throw err;
      }
      await batch.write({ sync: options.sync });
    });
  }

  iterate(options: IterateOptions): AsyncIterable<[Uint8Array, Uint8Array]> {
    return this.#iterate(options, undefined);
  }

  async *#iterate(options: IterateOptions, snapshot: ReturnType<LevelDatabase['snapshot']> | undefined): AsyncIterable<[Uint8Array, Uint8Array]> {
    let it;
    try {
      it = this.#db.iterator({
        highWaterMarkBytes: ITERATE_BYTES,
        ...(snapshot === undefined ? {} : { snapshot }),
        ...(options.gte === undefined ? {} : { gte: options.gte }),
        ...(options.lt === undefined ? {} : { lt: options.lt }),
        ...(options.reverse === true ? { reverse: true } : {}),
        ...(options.limit === undefined ? {} : { limit: options.limit }),
      });
    } catch (err) {
      throw translateStorageError(err, this.location);
    }
    try {
      for (;;) {
        const batch = await this.#guard(() => it.nextv(ITERATE_ENTRIES));
        if (batch.length === 0) return;
        for (const entry of batch) if (this.#disk === null || entry[0][0] !== 0xff || !WAL_MARK_KEY.equals(entry[0])) yield entry;
      }
    } finally {
      await it.close().catch(() => undefined);
    }
  }

  /**
   * Flush the memtable (disk only), then close. A flush that fails (a full disk) does not stop
   * the close: the log then keeps its records, and its torn tail if a write failed, which the
   * next open accepts as it accepts a crash's.
   */
  async close(): Promise<void> {
    if (this.#disk !== null && this.#db.status === 'open') await this.#disk.flush().catch(() => undefined);
    return this.#guard(() => this.#db.close());
  }

  async #guard<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw translateStorageError(err, this.location);
    }
  }
}

/**
 * Open LevelDB (classic-level) at `dir`, creating it when missing unless `createIfMissing` is
 * false. The directory's files are checked, and the crash policy applied, before LevelDB opens
 * them (see the module comment); every refusal leaves the directory byte for byte as it was.
 * @throws STORE_LOCKED `{ dir, pid? }` when another process (or store) holds the directory, also
 *   through a deleted LOCK file; STORE_CORRUPT `{ file, offset, detail }` when its files are
 *   damaged beyond what a crash may leave (nothing is changed), or `{ detail }` when LevelDB finds
 *   damage itself; STORE_VERSION `{ found: 'stateflow-journal' }` for a directory a development
 *   build left buffered commits in; NOT_FOUND `{ dir }` when `createIfMissing` is false and there
 *   is no database; STORE_IO otherwise.
 */
export async function openDiskStorage(dir: string, options: { createIfMissing: boolean } = { createIfMissing: true }): Promise<Storage> {
  const files = await checkLevelDbFiles(dir);
  if (!files.exists && !options.createIfMissing) throw storeNotFound(dir, 'no LevelDB CURRENT file');
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
  const storage = await openCheckedDiskStorage(dir, { createIfMissing: options.createIfMissing, boot, repairs });
  // A cleanly closed development build's journal is empty: nothing to keep.
  if (journal === 0) await io(dir, () => rm(path.join(dir, LEFTOVER_JOURNAL), { force: true }));
  return storage;
}

/**
 * Open LevelDB at `dir` without checking its files first: LevelDB's recovery runs over whatever
 * damage there is. Only for a copy made by `recoverStore`, never for a user's store.
 */
export function openDiskStorageRecovering(dir: string): Promise<Storage> {
  return openCheckedDiskStorage(dir, { createIfMissing: false, boot: bootId(), repairs: [] });
}

/**
 * Run LevelDB's repair (RepairDB) on `dir`: it rebuilds a MANIFEST from the tables and logs it
 * finds and moves unreadable files to `dir/lost`. Only for a copy made by `recoverStore`, when
 * LevelDB cannot even open it (a missing or garbled CURRENT or MANIFEST, a truncated table).
 * @throws STORE_CORRUPT / STORE_IO (translated) when the repair fails
 */
export async function repairDiskStorage(dir: string): Promise<void> {
  try {
    await ClassicLevel.repair(dir);
  } catch (err) {
    throw translateStorageError(err, dir);
  }
}

async function openCheckedDiskStorage(dir: string, options: { createIfMissing: boolean; boot: string; repairs: StorageRepair[] }): Promise<Storage> {
  const level = new ClassicLevel<Uint8Array, Uint8Array>(dir, { ...LEVEL_OPTIONS, createIfMissing: options.createIfMissing });
  const disk: DiskExtras = {
    flush: () => level.compactRange(NO_KEYS, NO_KEYS),
    marks: { unsynced: encodeWalMark({ boot: options.boot, synced: false }), synced: encodeWalMark({ boot: options.boot, synced: true }) },
    repairs: options.repairs,
  };
  const storage = new LevelStorage(level, dir, { persistent: true, fsync: true, soleWriter: true, reopenAfterFailedWrite: true }, disk);
  await storage.open();
  return storage;
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

async function io<T>(dir: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw translateStorageError(err, dir);
  }
}

/** Open storage over a `memory-level` database (a fresh one unless `db` is given, e.g. to reopen it in tests). */
export async function openMemoryStorage(db?: MemoryLevel<Uint8Array, Uint8Array>): Promise<Storage> {
  const level = db ?? new MemoryLevel<Uint8Array, Uint8Array>(LEVEL_OPTIONS);
  const storage = new LevelStorage(level, null, { persistent: false, fsync: false, soleWriter: true, reopenAfterFailedWrite: false }, null);
  await storage.open();
  return storage;
}
