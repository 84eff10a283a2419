/**
 * The LevelDB adapter of the storage seam (`storage.ts`): one class over `abstract-level` serves
 * `classic-level` on disk and `memory-level`. LevelDB's LOCK file keeps a directory to one
 * process, so write sessions only need to be one at a time within it (a promise chain). On disk
 * it adds two things LevelDB does not do (README "Durability contract", "Fail closed"):
 *
 * - **Open checks the files first** (`leveldb/file-check.ts`): LevelDB's own open recovers
 *   silently over a damaged write-ahead log and rewrites the directory, so it runs only on a
 *   directory whose only damage is a crash's torn tail.
 * - **Close flushes the memtable** into a table before LevelDB closes (LevelDB's CompactRange
 *   flushes the memtable first; over an empty key range it compacts nothing else), so a cleanly
 *   closed store has an empty write-ahead log and any damage to a log found at open is either a
 *   crash's torn tail or damage to the files, never a log cut short after a clean close.
 * - **Buffered commits go through a journal** (`leveldb/journal.ts`): appended with one
 *   synchronous write and acknowledged, then written to LevelDB in the background, oldest first
 *   (`leveldb/pending-writes.ts` serves point reads of them meanwhile; iterators and snapshots
 *   wait until LevelDB has them). A synced commit first waits for every pending one, then is
 *   LevelDB's own synced batch, as before. Open replays the journal's frames into LevelDB.
 */
import { ClassicLevel } from 'classic-level';
import { MemoryLevel } from 'memory-level';
import type { AbstractLevel } from 'abstract-level';
import type { StateflowError } from '@stateflow/core';
import { checkLevelDbFiles, fileCorrupt } from './internal/leveldb/file-check.js';
import { JOURNAL_FILE, Journal, readJournal } from './internal/leveldb/journal.js';
import type { JournalRead } from './internal/leveldb/journal.js';
import { journalKey } from './internal/keys.js';
import { decodeJournalMark, encodeJournalMark } from './internal/records.js';
import { PendingWrites } from './internal/leveldb/pending-writes.js';
import { translateStorageError } from './internal/level-errors.js';
import { storeNotFound } from './internal/store-not-found.js';
import type { IterateOptions, Storage, StorageCapabilities, StorageOp, StorageReader, WriteSession } from './storage.js';

type BufferLevel = AbstractLevel<Uint8Array, Uint8Array, Uint8Array>;

const LEVEL_OPTIONS = { keyEncoding: 'view', valueEncoding: 'view' } as const;
/** Write options of a synced batch (classic-level's `sync`; memory-level ignores it). */
const SYNC = { sync: true } as never;
const NO_OPTIONS = {} as never;
/**
 * Read-ahead of an iterator: up to this many entries, or until this many bytes, per round trip
 * to LevelDB's thread. classic-level's default (16 KiB) stops after ~80 log records; each round
 * trip costs a thread hop (tens of µs on these VMs while the main thread is busy between
 * batches), which made a tenth of an audit's time idle. Memory stays bounded: one batch is at
 * most ITERATE_BYTES plus one entry.
 */
const ITERATE_ENTRIES = 1024;
const ITERATE_BYTES = 1024 * 1024;
/**
 * Pending buffered commits (bytes of keys and values) at which a commit waits for LevelDB to
 * catch up before it is acknowledged: memory stays bounded when LevelDB is slower than the
 * journal.
 */
const MAX_PENDING_BYTES = 8 * 1024 * 1024;
/**
 * Journal size at which the next buffered commit first waits for LevelDB to hold every frame and
 * empties it (one synced truncate per this many bytes; bounds the file and the replay at open).
 */
const EMPTY_JOURNAL_AT_BYTES = 4 * 1024 * 1024;
/** The journal mark put with the operations of frames up to `frame`. */
const markOp = (frame: number): StorageOp => ({ type: 'put', key: journalKey(), value: encodeJournalMark(frame) });
/** Longest run of buffered acknowledgements without a turn of the event loop, in ms. */
const MAX_TURN_MS = 1;
/** A key range that holds no Stateflow key (every key starts with an ASCII family letter). */
const NO_KEYS = Buffer.from([0xff, 0xff]);

class LevelStorage implements Storage {
  readonly location: string | null;
  readonly capabilities: StorageCapabilities;
  readonly #db: BufferLevel;
  readonly #flushOnClose: (() => Promise<void>) | null;
  /** Resolves when the current write session ends: the next `beginWrite` waits for it. */
  #writer: Promise<void> = Promise.resolve();
  /** The journal of buffered commits (disk only; see the module comment). */
  #journal: Journal | null = null;
  #pending = new PendingWrites(0);
  /** The background write of pending commits to LevelDB, while one runs. */
  #draining: Promise<void> | null = null;
  /** Its current round: one LevelDB batch of the commits pending when it began. */
  #round: Promise<void> | null = null;
  /** When a buffered commit last let the event loop turn (`performance.now()`, ms). */
  #turnAt = 0;
  /** Why LevelDB could not take pending commits: every later commit, iterator and snapshot fails with it. */
  #drainFailure: StateflowError | null = null;

  constructor(db: BufferLevel, location: string | null, capabilities: StorageCapabilities, flushOnClose: (() => Promise<void>) | null) {
    this.#db = db;
    this.location = location;
    this.capabilities = capabilities;
    this.#flushOnClose = flushOnClose;
  }

  async open(): Promise<void> {
    await this.#guard(() => this.#db.open());
  }

  /**
   * Use the journal of `dir` for buffered commits. Its frames that LevelDB does not hold (after
   * `M/journal`: the commits a crashed process acknowledged) are written to LevelDB first, in
   * one synced batch with the new mark; then the journal is emptied.
   * @throws STORE_CORRUPT when frames between the mark and the journal's first newer frame are
   *   missing (unless `options.tolerateDamage`); STORE_IO
   */
  async attachJournal(dir: string, read: JournalRead, options: { tolerateDamage: boolean }): Promise<void> {
    const markBytes = await this.#guard(() => this.#db.get(journalKey()));
    const applied = markBytes === undefined ? 0 : decodeJournalMark(journalKey(), markBytes);
    const missing = read.frames.filter((frame) => frame.number > applied);
    // The frames LevelDB lacks follow its mark without a gap: a synced commit settles every
    // pending frame and becomes the mark, so a gap is a commit neither LevelDB nor the journal
    // holds (LevelDB files older than the journal: a copy taken while the store was open).
    let expected = applied + 1;
    for (const { number } of missing) {
      if (number !== expected && !options.tolerateDamage) {
        throw fileCorrupt(dir, JOURNAL_FILE, 0, `commit ${expected}…${number - 1} of the journal's numbering is in neither LevelDB (which holds up to ${applied}) nor the journal`);
      }
      expected = number + 1;
    }
    const through = Math.max(applied, read.frames.at(-1)?.number ?? 0);
    if (missing.length > 0) await this.#writeBatch([...missing.flatMap((frame) => frame.ops), markOp(through)], { sync: true });
    const journal = Journal.open(dir, read.bytes, through + 1);
    try {
      journal.empty();
    } catch (err) {
      journal.close();
      throw err;
    }
    this.#journal = journal;
    this.#pending = new PendingWrites(through);
  }

  get(key: Uint8Array): Promise<Uint8Array | undefined> {
    const pending = this.#pending.lookup(key);
    if (pending !== null) return Promise.resolve(pending.value);
    return this.#guard(() => this.#db.get(key));
  }

  async getMany(keys: Uint8Array[]): Promise<(Uint8Array | undefined)[]> {
    if (this.#pending.empty) return this.#guard(() => this.#db.getMany(keys));
    const pending = keys.map((key) => this.#pending.lookup(key));
    const rest = keys.filter((_, i) => pending[i] === null);
    const stored = rest.length === 0 ? [] : await this.#guard(() => this.#db.getMany(rest));
    let next = 0;
    return pending.map((hit) => (hit === null ? stored[next++] : hit.value));
  }

  /** abstract-level's `getSync` (classic-level and memory-level both have it), pending commits first. */
  getSync(key: Uint8Array): Uint8Array | undefined {
    const pending = this.#pending.lookup(key);
    if (pending !== null) return pending.value;
    try {
      return this.#db.getSync(key);
    } catch (err) {
      throw translateStorageError(err, this.location);
    }
  }

  /** LevelDB's (and memory-level's) explicit snapshots: reads pinned to one sequence number. */
  async snapshot<T>(read: (reader: StorageReader) => Promise<T>): Promise<T> {
    await this.#settled();
    let snapshot: ReturnType<BufferLevel['snapshot']>;
    try {
      snapshot = this.#db.snapshot();
    } catch (err) {
      throw translateStorageError(err, this.location);
    }
    const options = { snapshot } as never;
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
        if (!open) throw new Error('write session already ended');
        try {
          await this.#write(ops, options);
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
   * One commit: buffered on disk, a journal append (acknowledged at once; LevelDB gets it in the
   * background), unless pending commits are over {@link MAX_PENDING_BYTES}, when it also waits
   * for LevelDB to take them; synced (or in memory), LevelDB's own batch once every pending
   * commit is in LevelDB, so commits reach it in order.
   */
  async #write(ops: StorageOp[], options: { sync: boolean }): Promise<void> {
    if (ops.length === 0) return;
    if (this.#drainFailure !== null) throw this.#drainFailure;
    if (this.#journal === null || options.sync) {
      await this.#settled();
      if (this.#journal === null) return this.#writeBatch(ops, options);
      // A synced commit takes the next frame number too and writes it as the mark: journal frames
      // after it then follow it in number, and LevelDB files older than it (a copy taken while
      // the store was open) show a gap at open instead of a silent hole in the log.
      const number = this.#journal.reserve();
      await this.#writeBatch([...ops, markOp(number)], options);
      this.#pending.passed(number);
      return;
    }
    if (this.#journal.bytes >= EMPTY_JOURNAL_AT_BYTES) {
      // Under a steady stream of commits LevelDB may never be idle: empty the journal here.
      await this.#settled();
      this.#journal.empty();
    }
    this.#pending.add(ops, this.#journal.append(ops));
    this.#draining ??= this.#drain();
    // The commit is journaled, hence acknowledged even when LevelDB then fails (the next open
    // replays it): waiting for room never fails it.
    if (this.#pending.bytes >= MAX_PENDING_BYTES) await this.#settled().catch(() => undefined);
    else if (performance.now() - this.#turnAt >= MAX_TURN_MS) {
      // A caller publishing in a loop would otherwise run on promise jobs alone and starve every
      // timer and I/O callback of the process — LevelDB's completions included, so iterators
      // would wait for the backpressure above: a turn of the event loop at least every ms.
      await new Promise<void>((resolve) => setImmediate(resolve));
      this.#turnAt = performance.now();
    }
  }

  /**
   * Write pending commits to LevelDB, oldest first, each round one batch of every commit pending
   * when it starts, with the journal mark `M/journal` of its newest frame. A failed write latches
   * {@link LevelStorage.#drainFailure}.
   */
  async #drain(): Promise<void> {
    try {
      while (!this.#pending.empty) {
        const { ops, through } = this.#pending.take();
        this.#round = this.#writeBatch([...ops, markOp(through)], { sync: false }).then(() => this.#pending.written(through));
        await this.#round;
      }
    } catch (err) {
      this.#drainFailure = translateStorageError(err, this.location);
    } finally {
      this.#draining = null;
      this.#round = null;
    }
  }

  /**
   * Once LevelDB holds every commit pending at the call — at most two rounds of the drain, however
   * many commits arrive meanwhile (iterators, snapshots and synced commits wait here).
   * @throws the write failure that stopped the drain
   */
  async #settled(): Promise<void> {
    // No retry after a failed write: LevelDB may have left a torn record in its log, and a write
    // after it would be damage in the middle of the log. The next open replays the journal.
    const target = this.#pending.newest;
    while (this.#pending.writtenThrough < target && this.#drainFailure === null && this.#round !== null) {
      await this.#round.catch(() => undefined);
    }
    if (this.#drainFailure !== null) throw this.#drainFailure;
  }

  /**
   * One atomic LevelDB write batch, built as a chained batch: abstract-level's array form
   * copies the options into every operation (`{ ...options, ...op }`), which with any options
   * object (even `{ sync: false }`) took longer than LevelDB's write of the batch itself.
   * The chained form hands `sync` to the write alone; the batch is just as atomic.
   */
  #writeBatch(ops: StorageOp[], options: { sync: boolean }): Promise<void> {
    if (ops.length === 0) return Promise.resolve();
    return this.#guard(async () => {
      const batch = this.#db.batch();
      try {
        for (const op of ops) {
          if (op.type === 'put') batch.put(op.key, op.value);
          else batch.del(op.key);
        }
      } catch (err) {
        await batch.close();
        throw err;
      }
      await batch.write(options.sync ? SYNC : NO_OPTIONS);
    });
  }

  iterate(options: IterateOptions): AsyncIterable<[Uint8Array, Uint8Array]> {
    return this.#iterate(options, undefined);
  }

  async *#iterate(options: IterateOptions, snapshot: unknown): AsyncIterable<[Uint8Array, Uint8Array]> {
    if (snapshot === undefined) await this.#settled();
    const range: Record<string, unknown> = { highWaterMarkBytes: ITERATE_BYTES };
    if (snapshot !== undefined) range.snapshot = snapshot;
    if (options.gte) range.gte = options.gte;
    if (options.lt) range.lt = options.lt;
    if (options.reverse) range.reverse = true;
    if (options.limit !== undefined) range.limit = options.limit;
    let it;
    try {
      it = this.#db.iterator(range);
    } catch (err) {
      throw translateStorageError(err, this.location);
    }
    try {
      for (;;) {
        const batch = await this.#guard(() => it.nextv(ITERATE_ENTRIES));
        if (batch.length === 0) return;
        for (const entry of batch) yield entry as [Uint8Array, Uint8Array];
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
    // Pending commits reach LevelDB first; the journal is emptied only once LevelDB's flush has
    // put them in a table, else it keeps them for the next open.
    const drained = await this.#settled().then(
      () => true,
      () => false,
    );
    let flushed = false;
    if (this.#flushOnClose !== null && this.#db.status === 'open') {
      flushed = await this.#flushOnClose().then(
        () => true,
        () => false,
      );
    }
    if (this.#journal !== null) {
      if (drained && flushed) {
        try {
          this.#journal.empty();
        } catch {
          // The next open replays what LevelDB already holds: the same records again.
        }
      }
      this.#journal.close();
      this.#journal = null;
    }
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
 * false. The directory's files are checked before LevelDB opens them (`leveldb/file-check.ts`).
 * @throws STORE_LOCKED `{ dir, pid? }` when another process (or store) holds the directory;
 *   STORE_CORRUPT `{ file, offset, detail }` when its files are damaged beyond a crash's torn
 *   tail (nothing is changed), or `{ detail }` when LevelDB finds damage itself; NOT_FOUND
 *   `{ dir }` when `createIfMissing` is false and there is no database; STORE_IO otherwise.
 */
export async function openDiskStorage(dir: string, options: { createIfMissing: boolean } = { createIfMissing: true }): Promise<Storage> {
  const files = await checkLevelDbFiles(dir);
  if (!files.exists && !options.createIfMissing) throw storeNotFound(dir, 'no LevelDB CURRENT file');
  // Damage to the journal keeps LevelDB from opening anything, like damage to its own files; the
  // frames themselves are read again once LevelDB holds the LOCK.
  if (readJournal(dir).bytes > 0 && !files.exists) {
    throw fileCorrupt(dir, JOURNAL_FILE, 0, 'a journal without a LevelDB database (no CURRENT file); nothing was created');
  }
  return openCheckedDiskStorage(dir, options);
}

/**
 * Open LevelDB at `dir` without checking its files first: LevelDB's recovery runs over whatever
 * damage there is. Only for a copy made by `recoverStore`, never for a user's store.
 */
export function openDiskStorageRecovering(dir: string): Promise<Storage> {
  return openCheckedDiskStorage(dir, { createIfMissing: false, tolerateDamage: true });
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

async function openCheckedDiskStorage(dir: string, options: { createIfMissing: boolean; tolerateDamage?: boolean }): Promise<Storage> {
  const { createIfMissing } = options;
  const tolerateDamage = options.tolerateDamage === true;
  const level = new ClassicLevel<Uint8Array, Uint8Array>(dir, { ...LEVEL_OPTIONS, createIfMissing });
  const flush = (): Promise<void> => level.compactRange(NO_KEYS, NO_KEYS);
  const storage = new LevelStorage(level as unknown as BufferLevel, dir, { persistent: true, fsync: true, soleWriter: true, reopenAfterFailedWrite: true }, flush);
  await storage.open();
  try {
    // Read only once LevelDB holds the directory's LOCK: before it, another process could still
    // be appending to the journal.
    await storage.attachJournal(dir, readJournal(dir, { tolerateDamage }), { tolerateDamage });
  } catch (err) {
    await storage.close().catch(() => undefined);
    throw err;
  }
  return storage;
}

/** Open storage over a `memory-level` database (a fresh one unless `db` is given, e.g. to reopen it in tests). */
export async function openMemoryStorage(db?: MemoryLevel<Uint8Array, Uint8Array>): Promise<Storage> {
  const level = db ?? new MemoryLevel<Uint8Array, Uint8Array>(LEVEL_OPTIONS);
  const storage = new LevelStorage(level as unknown as BufferLevel, null, { persistent: false, fsync: false, soleWriter: true, reopenAfterFailedWrite: false }, null);
  await storage.open();
  return storage;
}
