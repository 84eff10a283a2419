/**
 * The storage seam (CONVENTIONS.md "Backend seam"; README "Storage seam"): the store validates,
 * enforces expected revisions, encodes, and then calls this small interface. It is public so
 * that a backend lives in its own package and is tested by the same suites. Adapters:
 * `openMemoryStorage` (memory-level, here, over the Level adapter `level-storage.ts`),
 * `openDiskStorage` (LevelDB, `@stateflow/store-leveldb`, over the same Level adapter),
 * `openPostgresStorage` (`@stateflow/store-postgres`).
 *
 * The contract every adapter keeps:
 * - **Bytes.** Keys and values are byte strings. Iteration is in unsigned bytewise key order
 *   (memcmp, shorter first on a common prefix), forward or reverse, over half-open ranges.
 * - **Atomic commits.** Every write goes through a {@link WriteSession}: its operations become
 *   visible all together or not at all, also after a crash or a lost connection.
 * - **One writer at a time.** At most one write session is open at a time across every process
 *   that shares the storage; `beginWrite` waits for the one before to end. Once a session has
 *   begun, every commit made before it (by any process) is visible to every read.
 * - **Typed errors.** Adapters throw only `StateflowError`s: `STORE_IO` (the backend failed),
 *   `STORE_UNAVAILABLE` (a shared backend cannot be reached; the operation wrote nothing, or —
 *   for a commit whose acknowledgement was lost — may have), `STORE_CORRUPT`, `STORE_LOCKED`,
 *   `STORE_CLOSED`.
 * - **Capabilities are data**: the flags of {@link StorageCapabilities} and which optional
 *   members a storage implements, read together as one manifest (`storageManifest`,
 *   `storage-manifest.ts`). The store and the conformance suite read them, never the backend's
 *   name.
 * - **Read replicas** ({@link Storage.replicas}, optional): read-only copies of the storage that
 *   the backend keeps up to date itself (PostgreSQL's streaming replicas). A copy may lag: the
 *   store serves a historical read from one only when the copy's tip record shows it holds every
 *   commit the read needs (the seq it reads up to, at the store's generation), else from the
 *   storage itself; a copy that fails is skipped for a while. A copy never takes a write.
 * - **Named locks** ({@link Storage.lock}, optional): mutual exclusion between the processes that
 *   share a storage, for work above the store that must not run twice at once (a ladder
 *   session's call across servers). A storage only this process writes has none: the store's
 *   `withLock` then locks in this process's memory, which is all it needs. A lock never makes a
 *   write correct — the store's CAS does — it keeps writers from racing for nothing.
 */

/** What a storage backend can promise. */
export interface StorageCapabilities {
  /** Data survives process exit. */
  persistent: boolean;
  /** A commit with `sync: true` reaches stable storage before it resolves. */
  fsync: boolean;
  /**
   * This process is the only writer (LevelDB's LOCK file gives that). When false — a database
   * many processes write — the store trusts none of its memory across calls: before each
   * operation it reads the log's tip and catches up from the log, and it decides every check
   * (heads, chain tip, expected revisions) inside a write session.
   */
  soleWriter: boolean;
  /**
   * A failed commit may have left part of its bytes behind in a way later commits would bury
   * (LevelDB appends to its log after a torn record, and its recovery drops what follows): the
   * store then accepts no write until it is reopened. False when a failed commit is rolled back
   * whole (a database transaction), so the next commit is safe.
   */
  reopenAfterFailedWrite: boolean;
}

/** One operation of an atomic commit. */
export type StorageOp = { type: 'put'; key: Uint8Array; value: Uint8Array } | { type: 'del'; key: Uint8Array };

/** Iteration options: the half-open key range `[gte, lt)` (either side open when absent), optionally reversed and limited. */
export interface IterateOptions {
  gte?: Uint8Array;
  lt?: Uint8Array;
  reverse?: boolean;
  /** At most this many entries (≥ 0). */
  limit?: number;
}

/**
 * One range of {@link StorageReader.readRanges}: {@link IterateOptions}, and optionally a start
 * taken from what an earlier range of the same call found. With `from`, when range `from.range`
 * (an earlier index) returned at least one entry, whose first key is K, this range starts at
 * `gte`'s first `from.prefix` bytes followed by K's bytes after its first `from.prefix` —
 * keys after that (at it too when `from.inclusive`) — where that is above `gte`. That is how one
 * call reads "the revision records after the checkpoint it found", both keyed by stream and
 * number behind a one-byte family: the relation is between keys, never what the records hold.
 */
export interface RangeRead extends IterateOptions {
  from?: { range: number; prefix: number; inclusive?: boolean };
}

/**
 * The one write session of a storage (see the contract above). End it with exactly one of
 * {@link WriteSession.commit} and {@link WriteSession.abort}.
 */
export interface WriteSession {
  /**
   * Apply `ops` atomically (in order: a later op on the same key wins) and end the session.
   * `sync: true` waits for stable storage where the backend can (`capabilities.fsync`).
   * @throws STORE_IO, STORE_UNAVAILABLE — nothing was written, unless the acknowledgement of a
   *   shared backend's commit was lost (then the outcome is unknown: retry with an idempotency id)
   */
  commit(ops: StorageOp[], options: { sync: boolean }): Promise<void>;
  /** End the session without writing. Never throws. */
  abort(): Promise<void>;
}

/** Reads of a storage, or of one snapshot of it. */
export interface StorageReader {
  get(key: Uint8Array): Promise<Uint8Array | undefined>;
  getMany(keys: Uint8Array[]): Promise<(Uint8Array | undefined)[]>;
  /**
   * The value at `key` read synchronously, where the backend can (LevelDB reads its block cache
   * and files in the calling thread: no thread-pool round trip). Absent on backends that cannot;
   * callers then use {@link StorageReader.getMany}. Throws what `get` rejects with.
   */
  getSync?(key: Uint8Array): Uint8Array | undefined;
  /** Entries in key order (or reverse) within the range. */
  iterate(options: IterateOptions): AsyncIterable<[Uint8Array, Uint8Array]>;
  /**
   * Several range reads in one round trip, where the backend has round trips to save
   * (optional; PostgreSQL: one statement). Entry `i` of the result holds what
   * `iterate(ranges[i])` would yield (its start moved by `from`, {@link RangeRead}), in the same
   * order; give each range a `limit`, since each is read whole. `readRangesByIterating` is its
   * meaning in `iterate` calls. The store reads a historical revision with it: the checkpoint a
   * replay starts from, its pages and the revision records after it, together. Absent: callers
   * read with `getMany` and `iterate`.
   */
  readRanges?(ranges: readonly RangeRead[]): Promise<[Uint8Array, Uint8Array][][]>;
}

/** A named lock held by this process ({@link Storage.lock}); release it exactly once. */
export interface HeldLock {
  /** Let the next waiter have the lock. Never throws (a lost connection has released it already). */
  release(): Promise<void>;
}

/**
 * What an open found or repaired in place (`@stateflow/store-leveldb` README "Durability
 * contract"); the store turns each into a {@link StoreNotice}.
 *
 * - `unsynced-tail-dropped`: after an OS crash or power loss, the unsynced tail of LevelDB's
 *   write-ahead log from damage to its end was dropped — with no record after it saying a synced
 *   transition was among it, that is buffered writes the power loss took — and its bytes kept in
 *   `keptIn`.
 * - `not-closed-before-reboot`: the store was not closed before an OS crash or power loss (the
 *   last session's mark names an earlier boot and no clean close) and nothing is damaged: buffered transitions after the
 *   last one kept may still have been lost (a power loss that cut the log at a record boundary
 *   leaves no trace), so the store says so.
 */
export type StorageRepair =
  | {
      kind: 'unsynced-tail-dropped';
      /** The damaged log, the offset of its damage and what the damage was. */
      file: string;
      offset: number;
      reason: string;
      /** Bytes dropped (every log after the damaged one included). */
      bytes: number;
      /** The files holding the dropped bytes, one per log cut. */
      keptIn: string[];
      /** The highest seq the dropped records that still verify name (`null`: none). */
      lostThrough: number | null;
    }
  | {
      kind: 'not-closed-before-reboot';
      /** The boot id of the machine the session that did not close ran on. */
      boot: string;
    };

/**
 * A read-only copy of a storage ({@link Storage.replicas}): the same reads, and snapshots, of
 * the storage as it was some commits ago.
 * @throws from every read: STORE_UNAVAILABLE (the copy cannot be reached), STORE_IO
 */
export interface StorageReplica extends StorageReader {
  /** Where the copy is (a database URL without credentials), for messages. */
  readonly location: string;
  /** As {@link Storage.snapshot}, on the copy. */
  snapshot<T>(read: (reader: StorageReader) => Promise<T>): Promise<T>;
}

/**
 * The use of one connection pool of a storage that has them (PostgreSQL's: `store`,
 * `named-lock`, `replica-1`, …), for metrics: connections open, idle, and callers waiting for
 * one, against the pool's maximum.
 */
export interface PoolUse {
  readonly pool: string;
  readonly total: number;
  readonly idle: number;
  readonly waiting: number;
  readonly max: number;
}

/** The storage interface every store backend implements. */
export interface Storage extends StorageReader {
  /** Where the data is: a directory, a database URL without credentials, or `null` in memory. */
  readonly location: string | null;
  readonly capabilities: StorageCapabilities;
  /** What opening this storage repaired in place (none on most opens; absent where a backend never repairs). */
  readonly repairs?: readonly StorageRepair[];
  /**
   * Read-only copies that historical reads may be served from (see "Read replicas" above;
   * absent or empty: none). They are closed with the storage.
   */
  readonly replicas?: readonly StorageReplica[];
  /** The use of its connection pools now (absent where the backend has none). */
  connections?(): readonly PoolUse[];
  /**
   * Run `read` against one consistent snapshot: it sees every commit made before the snapshot
   * and none after, however long it reads (an audit reads everything while writers go on).
   */
  snapshot<T>(read: (reader: StorageReader) => Promise<T>): Promise<T>;
  /** Begin the one write session (waits for the current one to end, in this or any process). */
  beginWrite(): Promise<WriteSession>;
  /**
   * A whole write session in one call, for a writer that staged `ops` against memory it believes
   * current (optional; a backend shared by many writers implements it to save the session's
   * round trips): atomically, as the one writer of that moment, apply `ops` only when the value
   * at `expect.key` is exactly `expect.value` (`undefined`: the key has no value), else write
   * nothing. The store passes its tip record, which every write changes, so `true` means no
   * other writer committed since the store last read it — the compare-and-set of its checks.
   * @returns whether `ops` were applied
   * @throws as {@link WriteSession.commit} (a lost acknowledgement leaves the outcome unknown)
   */
  commitIf?(expect: { key: Uint8Array; value: Uint8Array | undefined }, ops: StorageOp[], options: { sync: boolean }): Promise<boolean>;
  /**
   * Call `listener` soon after any process commits (a shared backend's notifications); returns
   * the function that stops it. Absent when only this process writes (`soleWriter`).
   */
  onCommit?(listener: () => void): () => void;
  /**
   * Take the lock `name` (any string; a backend may map names to a fixed-size key space, so
   * distinct names can share a lock, which only serialises more) across every process sharing
   * the storage. `wait: true` waits until it is free; `wait: false` resolves `null` at once when
   * another holder has it. The lock is released by {@link HeldLock.release}, or by the backend
   * when the holding process or its connection dies (then the holder's work goes on unprotected,
   * which is why a lock only orders writers and CAS decides). Not reentrant; the store queues its
   * own holders of a name before asking, so a storage sees one request per name at a time from
   * one store. Absent when only this process writes (`soleWriter`).
   * PostgreSQL: `pg_advisory_lock` / `pg_try_advisory_lock` on a connection of its own, held for
   * as long as the lock is.
   * @throws STORE_UNAVAILABLE, STORE_IO, STORE_CLOSED
   */
  lock?(name: string, options: { wait: boolean }): Promise<HeldLock | null>;
  /**
   * Give the space of deleted and rewritten keys back to the file system now, where the
   * backend only does so in its own time (optional; README "Retention"). LevelDB: a compaction
   * of the whole key range (`compactRange`), which rewrites the tables without the deleted
   * keys. PostgreSQL: a plain `VACUUM` of the store's table, so later writes reuse the deleted
   * rows' space (`VACUUM FULL`, which returns it to the file system, is the operator's: the
   * store-postgres README).
   * @throws STORE_IO, STORE_CLOSED
   */
  reclaim?(): Promise<void>;
  close(): Promise<void>;
}
