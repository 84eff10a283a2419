/**
 * The PostgreSQL adapter of the storage seam (`@stateflow/store`'s `storage.ts`; README "How
 * it works"). Records live in `sf_kv` (`schema.ts`), read through a connection pool. A write
 * session is a transaction holding the store's advisory lock (`pg_advisory_xact_lock`), so one
 * writer at a time commits, across every process and machine, in seq order; the store catches
 * up from the log inside it, so heads, the chain tip and expected revisions are checked against
 * the database, never only against one process's memory. A commit is one round trip
 * (`commit-statements.ts`): the batch's writes, the notification of the store's channel and the
 * `COMMIT`; `commitIf` is a whole write session in one round trip (lock, compare the tip, write,
 * notify, commit). PostgreSQL rolls a failed transaction back whole, so a failed commit leaves
 * nothing and the next one may use a new connection. Reads and `REPEATABLE READ READ ONLY`
 * snapshots go through `pool-reader.ts`, as do the reads of each read replica (`replicas`: hot
 * standbys, one pool each); `onCommit` listens on the channel with a dedicated connection. Named locks
 * (`lock`) are session-level advisory locks in their own key class, each held on a connection
 * of a second pool, so holders waiting for model calls never starve the store's reads and writes.
 */
import pg from 'pg';
import type { Pool, PoolClient } from 'pg';
import { StateflowError } from '@stateflow/core';
import type { HeldLock, IterateOptions, PoolUse, RangeRead, Storage, StorageCapabilities, StorageOp, StorageReader, WriteSession } from '@stateflow/store';
import { casCommitSql, sessionCommitSql } from './commit-statements.js';
import { watchErrors } from './connection.js';
import type { PostgresTarget } from './store-url.js';
import { LOCK_NOT_AVAILABLE, translatePgError } from './pg-errors.js';
import { PoolReader } from './pool-reader.js';
import { LOCK_CLASS, NAMED_LOCK_CLASS, prepareSchema, table, translateLockWait } from './schema.js';
import { resolveTimeouts, sessionConfig, type PostgresTimeouts } from './session-settings.js';

const CAPABILITIES: StorageCapabilities = Object.freeze({ persistent: true, fsync: true, soleWriter: false, reopenAfterFailedWrite: false });

/** Options of {@link openPostgresStorage}: the pools' sizes and the bounds of every wait ({@link PostgresTimeouts}). */
export interface PostgresStorageOptions extends PostgresTimeouts {
  /** Create the store's schema when it has none (default `true`). */
  createIfMissing?: boolean;
  /** Most connections the pool opens (default 10). */
  maxConnections?: number;
  /** Most named locks (`Storage.lock`) held at once, one connection each (default 100). */
  maxLocks?: number;
  /**
   * Read replicas of the same database (hot standbys streaming from it; their targets name the
   * same schema) that historical reads may be served from (`Storage.replicas`); each gets a
   * pool of `maxConnections`. Nothing is checked at open: a replica that cannot be reached is
   * passed over by the reads.
   */
  replicas?: PostgresTarget[];
}

/**
 * Open the storage of the store at `target`, migrating its schema.
 * @throws NOT_FOUND, STORE_VERSION, STORE_UNAVAILABLE, STORE_IO (see `prepareSchema`)
 */
export async function openPostgresStorage(target: PostgresTarget, options: PostgresStorageOptions = {}): Promise<Storage> {
  const timeouts = resolveTimeouts(options);
  const pool = listening(new pg.Pool({ ...sessionConfig(target, timeouts, 'store'), max: options.maxConnections ?? 10 }));
  try {
    await prepareSchema(pool, target, { create: options.createIfMissing ?? true, lockTimeoutMs: timeouts.lockTimeoutMs });
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw err;
  }
  const lockPool = listening(new pg.Pool({ ...sessionConfig(target, timeouts, 'named-lock'), max: options.maxLocks ?? 100, idleTimeoutMillis: 10_000 }));
  const replicaPools = (options.replicas ?? []).map((replica) => ({ target: replica, pool: listening(new pg.Pool({ ...sessionConfig(replica, timeouts, 'store'), max: options.maxConnections ?? 10 })) }));
  return new PostgresStorage(pool, lockPool, target, timeouts, replicaPools);
}

/**
 * `pool` with 'error' listeners on itself and on every client it makes, from the moment the
 * client is connected. An idle client whose server goes away emits 'error' on the pool (the next
 * query reconnects); a client the pool hands out has no listener of the pool's, and one added
 * after `pool.connect()` resolves comes too late when the server ends the connection in the
 * packet that completed its startup (a backend killed just then): the 'error' would be uncaught.
 */
function listening(pool: Pool): Pool {
  pool.on('error', () => undefined);
  pool.on('connect', (client) => void watchErrors(client));
  return pool;
}

class PostgresStorage implements Storage {
  readonly location: string;
  readonly capabilities = CAPABILITIES;
  readonly #pool: Pool;
  readonly #lockPool: Pool;
  readonly #target: PostgresTarget;
  readonly #timeouts: Required<PostgresTimeouts>;
  readonly #kv: string;
  /** `SELECT pg_advisory_xact_lock(…)` of the store's lock (the schema is a checked identifier, so it can be literal). */
  readonly #lockSql: string;
  readonly #channel: string;
  readonly #reader: PoolReader;
  readonly #listeners = new Set<() => void>();
  #listener: pg.Client | null = null;
  #closed = false;

  readonly replicas: readonly PoolReader[];
  readonly #replicaPools: Pool[];

  constructor(pool: Pool, lockPool: Pool, target: PostgresTarget, timeouts: Required<PostgresTimeouts>, replicas: { target: PostgresTarget; pool: Pool }[]) {
    this.#pool = pool;
    this.#lockPool = lockPool;
    this.#target = target;
    this.#timeouts = timeouts;
    this.location = target.location;
    this.#kv = table(target, 'sf_kv');
    this.#lockSql = `SELECT pg_advisory_xact_lock(${LOCK_CLASS}, hashtext('${target.schema}'))`;
    this.#channel = `stateflow:${target.schema}`;
    this.#reader = new PoolReader(pool, this.#kv, target.location, () => this.#closed);
    this.replicas = replicas.map((replica) => new PoolReader(replica.pool, table(replica.target, 'sf_kv'), replica.target.location, () => this.#closed));
    this.#replicaPools = replicas.map((replica) => replica.pool);
  }

  connections(): readonly PoolUse[] {
    const use = (name: string, pool: Pool): PoolUse => ({ pool: name, total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount, max: pool.options.max ?? 10 });
    return [use('store', this.#pool), use('named-lock', this.#lockPool), ...this.#replicaPools.map((pool, i) => use(`replica-${i + 1}`, pool))];
  }

  get(key: Uint8Array): Promise<Uint8Array | undefined> {
    return this.#reader.get(key);
  }

  getMany(keys: Uint8Array[]): Promise<(Uint8Array | undefined)[]> {
    return this.#reader.getMany(keys);
  }

  iterate(options: IterateOptions): AsyncIterable<[Uint8Array, Uint8Array]> {
    return this.#reader.iterate(options);
  }

  readRanges(ranges: readonly RangeRead[]): Promise<[Uint8Array, Uint8Array][][]> {
    return this.#reader.readRanges(ranges);
  }

  snapshot<T>(read: (reader: StorageReader) => Promise<T>): Promise<T> {
    return this.#reader.snapshot(read);
  }

  /**
   * {@link Storage.reclaim}: a plain `VACUUM` of the store's table (README "Space after a
   * retention run"): the deleted rows' space is reused by later writes; writers go on meanwhile.
   * @throws STORE_UNAVAILABLE, STORE_IO
   */
  async reclaim(): Promise<void> {
    try {
      await this.#pool.query(`VACUUM ${this.#kv}`);
    } catch (err) {
      throw translatePgError(err, this.location);
    }
  }

  async beginWrite(): Promise<WriteSession> {
    let client: PoolClient;
    try {
      // One round trip.
      ({ client } = await this.#reader.start(this.#pool, `BEGIN; ${this.#lockSql}`));
    } catch (err) {
      throw await translateLockWait(err, this.#pool, this.#target, this.#timeouts.lockTimeoutMs);
    }
    let open = true;
    // `broken`: the connection may be in an unknown state, so pg destroys it instead of pooling it.
    const end = (how: { broken: boolean }): void => {
      open = false;
      client.release(how.broken);
    };
    return {
      commit: async (ops, options) => {
        if (!open) throw new StateflowError('STORE_CLOSED', 'This write session has ended', {});
        try {
          // The writes and the COMMIT in one round trip.
          await client.query(sessionCommitSql(this.#kv, ops, this.#channel, options));
          end({ broken: false });
        } catch (err) {
          await client.query('ROLLBACK').catch(() => undefined);
          end({ broken: true });
          // The COMMIT went out with the writes: a lost connection may have come after it.
          throw translatePgError(err, this.location, 'unknown');
        }
      },
      abort: async () => {
        if (!open) return;
        await client.query('ROLLBACK').catch(() => undefined);
        end({ broken: false });
      },
    };
  }

  async commitIf(expect: { key: Uint8Array; value: Uint8Array | undefined }, ops: StorageOp[], options: { sync: boolean }): Promise<boolean> {
    const client = await this.#reader.connect();
    let broken = true;
    try {
      const results = await client.query(casCommitSql(this.#kv, this.#lockSql, expect, ops, this.#channel, options));
      const last = (Array.isArray(results) ? results.at(-1) : results) as pg.QueryResult<{ committed: boolean }> | undefined;
      broken = false;
      return last?.rows[0]?.committed === true;
    } catch (err) {
      // The lock is the first statement: a wait for it that timed out applied nothing.
      if ((err as { code?: unknown } | null)?.code === LOCK_NOT_AVAILABLE) throw await translateLockWait(err, this.#pool, this.#target, this.#timeouts.lockTimeoutMs);
      throw translatePgError(err, this.location, 'unknown');
    } finally {
      client.release(broken);
    }
  }

  async lock(name: string, options: { wait: boolean }): Promise<HeldLock | null> {
    // The store's schema and the name, hashed: distinct names that collide only serialise more.
    const key = [NAMED_LOCK_CLASS, `${this.#target.schema}/${name}`];
    const { client, result } = await this.#reader.start<{ taken: boolean }>(
      this.#lockPool,
      options.wait ? 'SELECT pg_advisory_lock($1, hashtext($2)), true AS taken' : 'SELECT pg_try_advisory_lock($1, hashtext($2)) AS taken',
      key,
    );
    if (result.rows[0]?.taken !== true) {
      client.release();
      return null;
    }
    let held = true;
    return {
      release: async () => {
        if (!held) return;
        held = false;
        try {
          await client.query('SELECT pg_advisory_unlock($1, hashtext($2))', key);
          client.release();
        } catch {
          // The connection is gone, and the lock with it.
          client.release(true);
        }
      },
    };
  }

  onCommit(listener: () => void): () => void {
    this.#listeners.add(listener);
    if (this.#listener === null) void this.#listen();
    return () => this.#listeners.delete(listener);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#listeners.clear();
    await this.#listener?.end().catch(() => undefined);
    this.#listener = null;
    await this.#pool.end().catch(() => undefined);
    await this.#lockPool.end().catch(() => undefined);
    for (const replicaPool of this.#replicaPools) await replicaPool.end().catch(() => undefined);
  }

  /**
   * Listen on the store's channel with a connection of its own; when it is lost, reconnect
   * (backing off up to 5 s) and tell every listener once, since commits may have been missed.
   */
  async #listen(): Promise<void> {
    for (let delay = 100; !this.#closed && this.#listeners.size > 0; delay = Math.min(delay * 2, 5_000)) {
      const client = new pg.Client(sessionConfig(this.#target, this.#timeouts, 'store'));
      this.#listener = client;
      const lost = new Promise<void>((resolve) => {
        client.on('error', () => resolve());
        client.on('end', () => resolve());
      });
      try {
        await client.connect();
        client.on('notification', () => {
          for (const listener of this.#listeners) listener();
        });
        await client.query(`LISTEN "${this.#channel}"`);
        delay = 100;
        for (const listener of this.#listeners) listener();
        await lost;
      } catch {
        // Unreachable for now: try again after the delay.
      }
      await client.end().catch(() => undefined);
      if (this.#closed) return;
      await new Promise((resolve) => setTimeout(resolve, delay).unref());
    }
    this.#listener = null;
  }
}
