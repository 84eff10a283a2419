/**
 * The PostgreSQL adapter of the storage seam (`@stateflow/store`'s `storage.ts`; README "How
 * it works"). Records live in `sf_kv` (`schema.ts`), read through a connection pool. A write
 * session is a transaction holding the store's advisory lock (`pg_advisory_xact_lock`), so one
 * writer at a time commits, across every process and machine, in seq order; the store catches
 * up from the log inside it, so heads, the chain tip and expected revisions are checked against
 * the database, never only against one process's memory. A commit writes the batch with two
 * statements (an upsert of the puts, a delete of the deletions), notifies the store's channel,
 * and commits: PostgreSQL rolls a failed transaction back whole, so a failed commit leaves
 * nothing and the next one may use a new connection. Snapshots are `REPEATABLE READ READ ONLY`
 * transactions; `onCommit` listens on the channel with a dedicated connection. Named locks
 * (`lock`) are session-level advisory locks in their own key class, each held on a connection
 * of a second pool, so holders waiting for model calls never starve the store's reads and writes.
 */
import pg from 'pg';
import type { Pool, PoolClient } from 'pg';
import { StateflowError } from '@stateflow/core';
import type { HeldLock, IterateOptions, Storage, StorageCapabilities, StorageOp, StorageReader, WriteSession } from '@stateflow/store';
import { casCommitSql, sessionCommitSql } from './commit-statements.js';
import { watchErrors, type PostgresTarget } from './connection.js';
import { LOCK_NOT_AVAILABLE, isConnectionLoss, translatePgError } from './pg-errors.js';
import { LOCK_CLASS, NAMED_LOCK_CLASS, prepareSchema, table, translateLockWait } from './schema.js';
import { resolveTimeouts, sessionConfig, type PostgresTimeouts } from './session-settings.js';

/** Rows fetched per page of an iteration. */
const PAGE = 512;

const CAPABILITIES: StorageCapabilities = Object.freeze({ persistent: true, fsync: true, soleWriter: false, reopenAfterFailedWrite: false });

/** Something queries run on: the pool, or one client of it. */
interface Queryable {
  query<R extends pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>>;
}

/** Options of {@link openPostgresStorage}: the pools' sizes and the bounds of every wait ({@link PostgresTimeouts}). */
export interface PostgresStorageOptions extends PostgresTimeouts {
  /** Create the store's schema when it has none (default `true`). */
  createIfMissing?: boolean;
  /** Most connections the pool opens (default 10). */
  maxConnections?: number;
  /** Most named locks (`Storage.lock`) held at once, one connection each (default 100). */
  maxLocks?: number;
}

/**
 * Open the storage of the store at `target`, migrating its schema.
 * @throws NOT_FOUND, STORE_VERSION, STORE_UNAVAILABLE, STORE_IO (see `prepareSchema`)
 */
export async function openPostgresStorage(target: PostgresTarget, options: PostgresStorageOptions = {}): Promise<Storage> {
  const timeouts = resolveTimeouts(options);
  const pool = new pg.Pool({ ...sessionConfig(target, timeouts, 'store'), max: options.maxConnections ?? 10 });
  // An idle client whose server goes away emits 'error' on the pool: the next query reconnects.
  pool.on('error', () => undefined);
  try {
    await prepareSchema(pool, target, { create: options.createIfMissing ?? true, lockTimeoutMs: timeouts.lockTimeoutMs });
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw err;
  }
  const lockPool = new pg.Pool({ ...sessionConfig(target, timeouts, 'named-lock'), max: options.maxLocks ?? 100, idleTimeoutMillis: 10_000 });
  lockPool.on('error', () => undefined);
  return new PostgresStorage(pool, lockPool, target, timeouts);
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
  readonly #listeners = new Set<() => void>();
  #listener: pg.Client | null = null;
  #closed = false;

  constructor(pool: Pool, lockPool: Pool, target: PostgresTarget, timeouts: Required<PostgresTimeouts>) {
    this.#pool = pool;
    this.#lockPool = lockPool;
    this.#target = target;
    this.#timeouts = timeouts;
    this.location = target.location;
    this.#kv = table(target, 'sf_kv');
    this.#lockSql = `SELECT pg_advisory_xact_lock(${LOCK_CLASS}, hashtext('${target.schema}'))`;
    this.#channel = `stateflow:${target.schema}`;
  }

  /** Reads on the pool: a read whose pooled connection turns out to be gone is retried on another. */
  readonly #reads: Queryable = {
    query: (text, values) => retried(() => this.#pool.query(text, values)),
  };

  get(key: Uint8Array): Promise<Uint8Array | undefined> {
    return getOne(this.#reads, this.#kv, key, this.location);
  }

  getMany(keys: Uint8Array[]): Promise<(Uint8Array | undefined)[]> {
    return getMany(this.#reads, this.#kv, keys, this.location);
  }

  iterate(options: IterateOptions): AsyncIterable<[Uint8Array, Uint8Array]> {
    return iterate(this.#reads, this.#kv, options, this.location);
  }

  async snapshot<T>(read: (reader: StorageReader) => Promise<T>): Promise<T> {
    const { client } = await this.#start(this.#pool, 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    try {
      const result = await read({
        get: (key) => getOne(client, this.#kv, key, this.location),
        getMany: (keys) => getMany(client, this.#kv, keys, this.location),
        iterate: (options) => iterate(client, this.#kv, options, this.location),
      });
      await client.query('COMMIT');
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw translatePgError(err, this.location);
    } finally {
      client.release();
    }
  }

  async beginWrite(): Promise<WriteSession> {
    let client: PoolClient;
    try {
      // One round trip.
      ({ client } = await this.#start(this.#pool, `BEGIN; ${this.#lockSql}`));
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
    const client = await this.#connect();
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
    const { client, result } = await this.#start<{ taken: boolean }>(
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
  }

  /**
   * A client of `pool` that ran `text` — a statement that changes nothing it does not hold
   * itself (a `BEGIN`, a lock) — retried on a new connection when the one it got turns out to
   * be gone (a pooled connection the server ended while it was idle).
   * @throws what `translatePgError` makes of the last failure
   */
  async #start<R extends pg.QueryResultRow>(pool: Pool, text: string, values?: unknown[]): Promise<{ client: PoolClient; result: pg.QueryResult<R> }> {
    return retried(async () => {
      const client = await this.#connect(pool);
      try {
        return { client, result: await client.query<R>(text, values) };
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        client.release(true);
        throw err;
      }
    }).catch((err: unknown) => {
      throw (err as { code?: unknown } | null)?.code === LOCK_NOT_AVAILABLE ? err : translatePgError(err, this.location);
    });
  }

  async #connect(pool: Pool = this.#pool): Promise<PoolClient> {
    if (this.#closed) throw new StateflowError('STORE_CLOSED', 'The store is closed', {});
    let client: PoolClient;
    try {
      client = await pool.connect();
    } catch (err) {
      throw translatePgError(err, this.location);
    }
    // The pool listens for 'error' only on idle clients.
    return watchErrors(client);
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

/** Tries of an operation whose connection is lost before it did anything. */
const CONNECTION_TRIES = 3;

/** `fn`, tried again (up to {@link CONNECTION_TRIES} in all) while it fails with a lost connection; for work that is safe to repeat. */
async function retried<T>(fn: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (attempt >= CONNECTION_TRIES || !isConnectionLoss(err)) throw err;
    }
  }
}

async function getOne(db: Queryable, kv: string, key: Uint8Array, location: string): Promise<Uint8Array | undefined> {
  try {
    const result = await db.query<{ v: Buffer }>(`SELECT v FROM ${kv} WHERE k = $1`, [Buffer.from(key)]);
    return result.rows[0]?.v;
  } catch (err) {
    throw translatePgError(err, location);
  }
}

async function getMany(db: Queryable, kv: string, keys: Uint8Array[], location: string): Promise<(Uint8Array | undefined)[]> {
  if (keys.length === 0) return [];
  try {
    const buffers = keys.map((key) => Buffer.from(key));
    const result = await db.query<{ k: Buffer; v: Buffer }>(`SELECT k, v FROM ${kv} WHERE k = ANY($1::bytea[])`, [buffers]);
    const found = new Map(result.rows.map((row) => [row.k.toString('hex'), row.v]));
    return buffers.map((key) => found.get(key.toString('hex')));
  } catch (err) {
    throw translatePgError(err, location);
  }
}

/** Keyset-paged range scan: each page continues strictly after (or before) the last key seen. */
async function* iterate(db: Queryable, kv: string, options: IterateOptions, location: string): AsyncIterable<[Uint8Array, Uint8Array]> {
  const reverse = options.reverse === true;
  let left = options.limit ?? Infinity;
  let lower: { key: Buffer; inclusive: boolean } | null = options.gte === undefined ? null : { key: Buffer.from(options.gte), inclusive: true };
  let upper: { key: Buffer; inclusive: boolean } | null = options.lt === undefined ? null : { key: Buffer.from(options.lt), inclusive: false };
  while (left > 0) {
    const where: string[] = [];
    const values: unknown[] = [];
    if (lower !== null) {
      values.push(lower.key);
      where.push(`k ${lower.inclusive ? '>=' : '>'} $${values.length}`);
    }
    if (upper !== null) {
      values.push(upper.key);
      where.push(`k ${upper.inclusive ? '<=' : '<'} $${values.length}`);
    }
    const page = Math.min(PAGE, left);
    values.push(page);
    const sql = `SELECT k, v FROM ${kv}${where.length === 0 ? '' : ` WHERE ${where.join(' AND ')}`} ORDER BY k ${reverse ? 'DESC' : 'ASC'} LIMIT $${values.length}`;
    let rows: { k: Buffer; v: Buffer }[];
    try {
      rows = (await db.query<{ k: Buffer; v: Buffer }>(sql, values)).rows;
    } catch (err) {
      throw translatePgError(err, location);
    }
    for (const row of rows) yield [row.k, row.v];
    left -= rows.length;
    const last = rows.at(-1);
    if (rows.length < page || last === undefined) return;
    if (reverse) upper = { key: last.k, inclusive: false };
    else lower = { key: last.k, inclusive: false };
  }
}
