/**
 * The storage seam (CONVENTIONS.md "Backend seam"): the store validates, enforces expected
 * revisions and encodes, then calls this small interface. One adapter over `abstract-level`
 * serves both `classic-level` (on disk) and `memory-level`; what differs is data
 * ({@link StorageCapabilities}), never `if (backend === …)`.
 *
 * This file is also the one boundary where Level errors become {@link StateflowError}s.
 */
import { ClassicLevel } from 'classic-level';
import { MemoryLevel } from 'memory-level';
import type { AbstractLevel } from 'abstract-level';
import { StateflowError } from '@stateflow/core';
import type { KeyRange } from './keys.js';

/** What a storage backend can promise. */
export interface StorageCapabilities {
  /** Data survives process exit. */
  persistent: boolean;
  /** `sync: true` writes reach stable storage before the write resolves. */
  fsync: boolean;
}

/** One operation of an atomic batch. */
export type StorageOp = { type: 'put'; key: Uint8Array; value: Uint8Array } | { type: 'del'; key: Uint8Array };

/** Iteration options: a half-open key range, optionally reversed and limited. */
export interface IterateOptions extends Partial<KeyRange> {
  reverse?: boolean;
  limit?: number;
}

/** The storage interface every store backend implements. Keys and values are bytes. */
export interface Storage {
  /** Directory on disk, or `null` in memory. */
  readonly location: string | null;
  readonly capabilities: StorageCapabilities;
  get(key: Uint8Array): Promise<Uint8Array | undefined>;
  getMany(keys: Uint8Array[]): Promise<(Uint8Array | undefined)[]>;
  /** Apply every operation atomically; `sync` waits for stable storage where supported. */
  write(ops: StorageOp[], options: { sync: boolean }): Promise<void>;
  /** Entries in key order (or reverse) within the range. */
  iterate(options: IterateOptions): AsyncIterable<[Uint8Array, Uint8Array]>;
  close(): Promise<void>;
}

type BufferLevel = AbstractLevel<Uint8Array, Uint8Array, Uint8Array>;

const LEVEL_OPTIONS = { keyEncoding: 'view', valueEncoding: 'view' } as const;
/** Write options of a synced batch (classic-level's `sync`; memory-level ignores it). */
const SYNC = { sync: true } as never;
const NO_OPTIONS = {} as never;

/** `NOT_FOUND { dir }`: `dir` holds no Stateflow store (and nothing was created there). */
export function storeNotFound(dir: string, why: string): StateflowError<'NOT_FOUND'> {
  return new StateflowError('NOT_FOUND', `No Stateflow store at ${dir} (${why}); nothing was created`, { dir });
}

/** LevelDB/OS wording of a directory the process may not write (EACCES, EPERM, EROFS). */
const NO_WRITE_ACCESS = /Permission denied|Operation not permitted|Read-only file system|\b(EACCES|EPERM|EROFS)\b/;

/**
 * Translate a foreign (Level / fs) error into a StateflowError. The one translation boundary of
 * this package: `LEVEL_LOCKED` → `STORE_LOCKED { dir }`; LevelDB corruption (`LEVEL_CORRUPTION`,
 * directly or as the `cause` of a failed open, or a `Corruption:` message) → `STORE_CORRUPT
 * { detail }`; a closed database → `STORE_CLOSED`; LevelDB refusing to create a missing database
 * → `NOT_FOUND { dir }`; no write access (EACCES, EPERM, read-only file system) → `STORE_IO
 * { location, code, reason: 'no-write-access' }` saying LevelDB needs it even to read; anything
 * else → `STORE_IO { location, code }`. The original error is always the `cause`.
 */
export function translateStorageError(err: unknown, location: string | null): StateflowError {
  if (err instanceof StateflowError) return err;
  const code = (err as { code?: unknown } | null)?.code;
  const causeCode = (err as { cause?: { code?: unknown } } | null)?.cause?.code;
  if (code === 'LEVEL_LOCKED' || causeCode === 'LEVEL_LOCKED') {
    const dir = location ?? '(memory)';
    return new StateflowError('STORE_LOCKED', `Store directory ${dir} is in use by another process (or another open store); close it first`, { dir }, { cause: err });
  }
  if (code === 'LEVEL_DATABASE_NOT_OPEN' && causeCode === undefined) {
    return new StateflowError('STORE_CLOSED', 'The store is closed', {}, { cause: err });
  }
  const message = err instanceof Error ? err.message : String(err);
  const causeMessage = (err as { cause?: { message?: unknown } } | null)?.cause?.message;
  if (code === 'LEVEL_CORRUPTION' || causeCode === 'LEVEL_CORRUPTION' || /^Corruption:/.test(message) || (typeof causeMessage === 'string' && /^Corruption:/.test(causeMessage))) {
    const detail = `LevelDB reports corruption: ${typeof causeMessage === 'string' && causeCode === 'LEVEL_CORRUPTION' ? causeMessage : message}`;
    return new StateflowError(
      'STORE_CORRUPT',
      `Store ${location ?? '(memory)'} is corrupt (${detail}); run an audit or restore a backup; nothing was rewritten by Stateflow`,
      { detail },
      { cause: err },
    );
  }
  const foreign = typeof causeMessage === 'string' ? `${message}: ${causeMessage}` : message;
  if (location !== null && /does not exist \(create_if_missing is false\)/.test(foreign)) return storeNotFound(location, 'no LevelDB database');
  if (location !== null && (NO_WRITE_ACCESS.test(foreign) || ['EACCES', 'EPERM', 'EROFS'].includes(String(code ?? causeCode)))) {
    return new StateflowError(
      'STORE_IO',
      `Stateflow needs write access to ${location} even to read: LevelDB takes a lock and replays its log on open (${foreign}); give this user write access to the directory, or copy the store to a writable place`,
      { location, code: code ?? causeCode ?? null, reason: 'no-write-access' },
      { cause: err },
    );
  }
  return new StateflowError('STORE_IO', `Storage failure at ${location ?? '(memory)'}: ${foreign}`, { location, code: code ?? causeCode ?? null }, { cause: err });
}

class LevelStorage implements Storage {
  readonly location: string | null;
  readonly capabilities: StorageCapabilities;
  readonly #db: BufferLevel;

  constructor(db: BufferLevel, location: string | null, capabilities: StorageCapabilities) {
    this.#db = db;
    this.location = location;
    this.capabilities = capabilities;
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

  /**
   * One atomic LevelDB write batch, built as a chained batch: abstract-level's array form
   * copies the options into every operation (`{ ...options, ...op }`), which with any options
   * object (even `{ sync: false }`) took longer than LevelDB's write of the batch itself.
   * The chained form hands `sync` to the write alone; the batch is just as atomic.
   */
  write(ops: StorageOp[], options: { sync: boolean }): Promise<void> {
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

  async *iterate(options: IterateOptions): AsyncIterable<[Uint8Array, Uint8Array]> {
    const range: Record<string, unknown> = {};
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
        const batch = await this.#guard(() => it.nextv(256));
        if (batch.length === 0) return;
        for (const entry of batch) yield entry as [Uint8Array, Uint8Array];
      }
    } finally {
      await it.close().catch(() => undefined);
    }
  }

  close(): Promise<void> {
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
 * Open LevelDB (classic-level) at `dir`, creating it when missing unless `createIfMissing` is false.
 * @throws STORE_LOCKED when another process (or store) holds the directory; STORE_CORRUPT when
 *   LevelDB finds its files damaged (e.g. the MANIFEST); NOT_FOUND when `createIfMissing` is false
 *   and there is no database; STORE_IO otherwise.
 */
export async function openDiskStorage(dir: string, options: { createIfMissing: boolean } = { createIfMissing: true }): Promise<Storage> {
  const level = new ClassicLevel<Uint8Array, Uint8Array>(dir, { ...LEVEL_OPTIONS, createIfMissing: options.createIfMissing });
  const storage = new LevelStorage(level as unknown as BufferLevel, dir, {
    persistent: true,
    fsync: true,
  });
  await storage.open();
  return storage;
}

/** Open storage over a `memory-level` database (a fresh one unless `db` is given, e.g. to reopen it in tests). */
export async function openMemoryStorage(db?: MemoryLevel<Uint8Array, Uint8Array>): Promise<Storage> {
  const level = db ?? new MemoryLevel<Uint8Array, Uint8Array>(LEVEL_OPTIONS);
  const storage = new LevelStorage(level as unknown as BufferLevel, null, { persistent: false, fsync: false });
  await storage.open();
  return storage;
}
