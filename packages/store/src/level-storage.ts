/**
 * The storage seam (`storage.ts`) over any `abstract-level` database: `memory-level` here
 * (`memory-storage.ts`), LevelDB on disk in `@stateflow/store-leveldb`, any other implementation
 * of abstract-level a backend brings. A Level database is one process's (LevelDB's LOCK file
 * keeps a directory to one), so write sessions only need to be one at a time within it (a
 * promise chain). Every commit is one write batch, synced or not: the database's own log is the
 * only log.
 *
 * What a backend adds lives in its options, not in a subclass: a **mark**, a record of the
 * backend's own put in every batch (LevelDB's says whether the batch was synced and on which boot
 * it was written) under a key iteration never returns, so the storage holds exactly what its
 * callers committed; a step **before close** (LevelDB flushes its memtable); the **repairs** its
 * open made in place.
 */
import { StateflowError } from '@stateflow/core';
import { translateLevelError } from './level-errors.js';
import type { IterateOptions, Storage, StorageCapabilities, StorageOp, StorageReader, StorageRepair, WriteSession } from './storage.js';

/** What one Level snapshot is to the adapter: something to read with, then close. */
interface LevelSnapshot {
  close(): Promise<void>;
}

/** Read options: the snapshot to read from, if any. */
interface LevelReadOptions {
  snapshot?: LevelSnapshot;
}

/** One chained write batch of a Level database. */
interface LevelBatch {
  put(key: Uint8Array, value: Uint8Array): unknown;
  del(key: Uint8Array): unknown;
  write(options: { sync: boolean }): Promise<void>;
  close(): Promise<void>;
}

/** One iterator of a Level database, read in batches. */
interface LevelIterator {
  nextv(size: number): Promise<[Uint8Array, Uint8Array][]>;
  close(): Promise<void>;
}

/**
 * The part of `abstract-level` the adapter uses, which `classic-level` and `memory-level` both
 * have, opened with `{ keyEncoding: 'view', valueEncoding: 'view' }` (keys and values as
 * `Uint8Array`). `highWaterMarkBytes` is classic-level's read-ahead; memory-level ignores it.
 */
export interface LevelDatabase {
  readonly status: string;
  open(): Promise<void>;
  close(): Promise<void>;
  get(key: Uint8Array, options?: LevelReadOptions): Promise<Uint8Array | undefined>;
  getMany(keys: Uint8Array[], options?: LevelReadOptions): Promise<(Uint8Array | undefined)[]>;
  getSync(key: Uint8Array): Uint8Array | undefined;
  snapshot(): LevelSnapshot;
  batch(): LevelBatch;
  iterator(options: LevelReadOptions & { gte?: Uint8Array; lt?: Uint8Array; reverse?: boolean; limit?: number; highWaterMarkBytes?: number }): LevelIterator;
}

/** What a backend tells {@link openLevelStorage} about its database. */
export interface LevelStorageOptions {
  /** Where the data is (a directory), or `null` in memory: {@link Storage.location}, and the `location` of every translated error. */
  location: string | null;
  /** What the backend promises ({@link StorageCapabilities}). */
  capabilities: StorageCapabilities;
  /**
   * A record of the backend's own that every non-empty batch also puts under `key`, its value
   * `value(ops, { sync })` of the batch's operations and whether it is written with `sync: true`
   * (asked once per batch, just before the write). Iteration never returns `key` (a key outside
   * the store's key space, which starts every key with an ASCII family letter: LevelDB's starts
   * with 0xff), so callers see exactly what they committed. Absent: batches hold only their ops.
   */
  mark?: { key: Uint8Array; value: (ops: readonly StorageOp[], options: { sync: boolean }) => Uint8Array };
  /**
   * Run after a batch written with `sync: true` was written, before its commit resolves (LevelDB
   * syncs a write-ahead log it switched away from without a sync); its failure fails the commit.
   */
  afterSyncedWrite?: (ops: readonly StorageOp[]) => Promise<void>;
  /**
   * Write the first non-empty batch of this open with `sync: true` whatever its caller asked, so
   * the database's log for the session begins with a synced record (LevelDB: its mark then says
   * which boot wrote the log, whatever a power loss leaves of later pages). Default `false`.
   */
  syncFirstBatch?: boolean;
  /**
   * Run before the database closes, while it is open (LevelDB flushes its memtable into a
   * table). A step that fails does not stop the close: it is given up, and the close goes on.
   */
  beforeClose?: () => Promise<void>;
  /** {@link Storage.reclaim} of this backend (default none). */
  reclaim?: () => Promise<void>;
  /** What the backend's open repaired in place ({@link Storage.repairs}; default none). */
  repairs?: StorageRepair[];
}

/**
 * Read-ahead of an iterator: up to this many entries, or until this many bytes, per round trip
 * to LevelDB's thread. classic-level's default (16 KiB) stops after ~80 log records; each round
 * trip costs a thread hop (tens of µs on these VMs while the main thread is busy between
 * batches), which made a tenth of an audit's time idle. Memory stays bounded: one batch is at
 * most ITERATE_BYTES plus one entry.
 */
const ITERATE_ENTRIES = 1024;
const ITERATE_BYTES = 1024 * 1024;

/** The mark as the adapter keeps it: its key as a Buffer, for `equals`. */
interface Mark {
  key: Buffer;
  value: (ops: readonly StorageOp[], options: { sync: boolean }) => Uint8Array;
}

class LevelStorage implements Storage {
  readonly location: string | null;
  readonly capabilities: StorageCapabilities;
  readonly repairs: readonly StorageRepair[];
  readonly #db: LevelDatabase;
  readonly #mark: Mark | null;
  readonly #beforeClose: (() => Promise<void>) | null;
  readonly #afterSyncedWrite: ((ops: readonly StorageOp[]) => Promise<void>) | null;
  /** The next non-empty batch is written with `sync: true` ({@link LevelStorageOptions.syncFirstBatch}). */
  #syncNext: boolean;
  /** Resolves when the current write session ends: the next `beginWrite` waits for it. */
  #writer: Promise<void> = Promise.resolve();

  constructor(db: LevelDatabase, options: LevelStorageOptions) {
    this.#db = db;
    this.location = options.location;
    this.capabilities = options.capabilities;
    this.repairs = options.repairs ?? [];
    const mark = options.mark;
    this.#mark = mark === undefined ? null : { key: Buffer.from(mark.key), value: mark.value };
    this.#beforeClose = options.beforeClose ?? null;
    this.#afterSyncedWrite = options.afterSyncedWrite ?? null;
    this.#syncNext = options.syncFirstBatch ?? false;
    const { reclaim } = options;
    if (reclaim !== undefined) this.reclaim = () => this.#guard(reclaim);
  }

  readonly reclaim?: () => Promise<void>;

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
      throw translateLevelError(err, this.location);
    }
  }

  /** Level's explicit snapshots: reads pinned to one sequence number. */
  async snapshot<T>(read: (reader: StorageReader) => Promise<T>): Promise<T> {
    let snapshot: LevelSnapshot;
    try {
      snapshot = this.#db.snapshot();
    } catch (err) {
      throw translateLevelError(err, this.location);
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
   * One atomic write batch, with the mark when there is one, built as a chained batch:
   * abstract-level's array form copies the options into every operation (`{ ...options, ...op }`),
   * which with any options object (even `{ sync: false }`) took longer than LevelDB's write of the
   * batch itself. The chained form hands `sync` to the write alone; the batch is just as atomic.
   */
  #writeBatch(ops: StorageOp[], asked: { sync: boolean }): Promise<void> {
    if (ops.length === 0) return Promise.resolve();
    const options = { sync: asked.sync || this.#syncNext };
    this.#syncNext = false;
    const mark = this.#mark;
    return this.#guard(async () => {
      const batch = this.#db.batch();
      try {
        for (const op of ops) {
          if (op.type === 'put') batch.put(op.key, op.value);
          else batch.del(op.key);
        }
        if (mark !== null) batch.put(mark.key, mark.value(ops, options));
      } catch (err) {
        await batch.close();
        throw err;
      }
      await batch.write({ sync: options.sync });
      if (options.sync && this.#afterSyncedWrite !== null) await this.#afterSyncedWrite(ops);
    });
  }

  iterate(options: IterateOptions): AsyncIterable<[Uint8Array, Uint8Array]> {
    return this.#iterate(options, undefined);
  }

  async *#iterate(options: IterateOptions, snapshot: LevelSnapshot | undefined): AsyncIterable<[Uint8Array, Uint8Array]> {
    let it: LevelIterator;
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
      throw translateLevelError(err, this.location);
    }
    const mark = this.#mark?.key ?? null;
    // The first byte first: almost every key differs from the mark's there.
    const first = mark?.[0];
    try {
      for (;;) {
        const batch = await this.#guard(() => it.nextv(ITERATE_ENTRIES));
        if (batch.length === 0) return;
        for (const entry of batch) if (mark === null || entry[0][0] !== first || !mark.equals(entry[0])) yield entry;
      }
    } finally {
      await it.close().catch(() => undefined);
    }
  }

  /** Run the backend's step before close (see {@link LevelStorageOptions.beforeClose}), then close. */
  async close(): Promise<void> {
    if (this.#beforeClose !== null && this.#db.status === 'open') await this.#beforeClose().catch(() => undefined);
    return this.#guard(() => this.#db.close());
  }

  async #guard<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw translateLevelError(err, this.location);
    }
  }
}

/**
 * Open the storage seam over `db`, an `abstract-level` database made with
 * `{ keyEncoding: 'view', valueEncoding: 'view' }` and not yet opened (this opens it). Every
 * foreign error of the database is translated ({@link translateLevelError}); the storage keeps
 * the seam's contract (`storage.ts`) with `options.capabilities` as its manifest.
 *
 * @example
 * ```ts
 * const storage = await openLevelStorage(new MemoryLevel({ keyEncoding: 'view', valueEncoding: 'view' }), {
 *   location: null,
 *   capabilities: { persistent: false, fsync: false, soleWriter: true, reopenAfterFailedWrite: false },
 * });
 * const store = await openStoreOver(storage);
 * ```
 * @throws what {@link translateLevelError} makes of the database's open failing: STORE_LOCKED,
 *   STORE_CORRUPT, NOT_FOUND, STORE_IO
 */
export async function openLevelStorage(db: LevelDatabase, options: LevelStorageOptions): Promise<Storage> {
  const storage = new LevelStorage(db, options);
  await storage.open();
  return storage;
}
