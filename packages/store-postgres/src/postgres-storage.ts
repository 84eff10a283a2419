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
import type { PostgresTarget } from './store-url.js';
import { translatePgError } from './pg-errors.js';
import { LOCK_CLASS, NAMED_LOCK_CLASS, prepareSchema, table } from './schema.js';

/** Clients that already have an 'error' listener. */
const watched = new WeakSet<PoolClient>();

/** Rows fetched per page of an iteration. */
const PAGE = 512;

const CAPABILITIES: StorageCapabilities = Object.freeze({ persistent: true, fsync: true, soleWriter: false, reopenAfterFailedWrite: false });

/** Something queries run on: the pool, or one client of it. */
interface Queryable {
  query<R extends pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>>;
}

/** Options of {@link openPostgresStorage}. */
export interface PostgresStorageOptions {
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
  const pool = new pg.Pool({ connectionString: target.connectionString, max: options.maxConnections ?? 10 });
  // An idle client whose server goes away emits 'error' on the pool: the next query reconnects.
  pool.on('error', () => undefined);
  try {
    await prepareSchema(pool, target, { create: options.createIfMissing ?? true });
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw err;
  }
  const lockPool = new pg.Pool({ connectionString: target.connectionString, max: options.maxLocks ?? 100, idleTimeoutMillis: 10_000 });
  lockPool.on('error', () => undefined);
  return new PostgresStorage(pool, lockPool, target);
}

class PostgresStorage implements Storage {
  readonly location: string;
  readonly capabilities = CAPABILITIES;
  readonly #pool: Pool;
  readonly #lockPool: Pool;
  readonly #target: PostgresTarget;
  readonly #kv: string;
  readonly #channel: string;
  readonly #listeners = new Set<() => void>();
  #listener: pg.Client | null = null;
  #closed = false;

  constructor(pool: Pool, lockPool: Pool, target: PostgresTarget) {
    this.#pool = pool;
    this.#lockPool = lockPool;
    this.#target = target;
    this.location = target.location;
    this.#kv = table(target, 'sf_kv');
    this.#channel = `stateflow:${target.schema}`;
  }

  async get(key: Uint8Array): Promise<Uint8Array | undefined> {
    this.#checkOpen();
    return getOne(this.#pool, this.#kv, key, this.location);
  }

  async getMany(keys: Uint8Array[]): Promise<(Uint8Array | undefined)[]> {
    this.#checkOpen();
    return getMany(this.#pool, this.#kv, keys, this.location);
  }

  async *iterate(options: IterateOptions): AsyncIterable<[Uint8Array, Uint8Array]> {
    this.#checkOpen();
    yield* iterate(this.#pool, this.#kv, options, this.location);
  }

  async snapshot<T>(read: (reader: StorageReader) => Promise<T>): Promise<T> {
    const client = await this.#connect();
    try {
      // PostgreSQL takes a transaction's snapshot at its first statement, not at BEGIN: take it
      // now, so a commit made before `read` first reads is not seen.
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; SELECT 1');
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
    const client = await this.#connect();
    try {
      // One round trip: the schema is a checked identifier, so the statements can be literal.
      await client.query(`BEGIN; SELECT pg_advisory_xact_lock(${LOCK_CLASS}, hashtext('${this.#target.schema}'))`);
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      client.release(true);
      throw translatePgError(err, this.location);
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
        let sent = false;
        try {
          if (!options.sync) await client.query('SET LOCAL synchronous_commit = off');
          await writeOps(client, this.#kv, ops, this.#channel);
          sent = true;
          await client.query('COMMIT');
          end({ broken: false });
        } catch (err) {
          await client.query('ROLLBACK').catch(() => undefined);
          end({ broken: true });
          throw translatePgError(err, this.location, sent ? 'unknown' : 'not-sent');
        }
      },
      abort: async () => {
        if (!open) return;
        await client.query('ROLLBACK').catch(() => undefined);
        end({ broken: false });
      },
    };
  }

  async lock(name: string, options: { wait: boolean }): Promise<HeldLock | null> {
    const client = await this.#connect(this.#lockPool);
    // The store's schema and the name, hashed: distinct names that collide only serialise more.
    const key = [NAMED_LOCK_CLASS, `${this.#target.schema}/${name}`];
    try {
      const taken = await client.query<{ taken: boolean }>(
        options.wait ? 'SELECT pg_advisory_lock($1, hashtext($2)), true AS taken' : 'SELECT pg_try_advisory_lock($1, hashtext($2)) AS taken',
        key,
      );
      if (taken.rows[0]?.taken !== true) {
        client.release();
        return null;
      }
    } catch (err) {
      client.release(true);
      throw translatePgError(err, this.location);
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

  /** @throws STORE_CLOSED after {@link close} */
  #checkOpen(): void {
    if (this.#closed) throw new StateflowError('STORE_CLOSED', 'The store is closed', {});
  }

  async #connect(pool: Pool = this.#pool): Promise<PoolClient> {
    this.#checkOpen();
    let client: PoolClient;
    try {
      client = await pool.connect();
    } catch (err) {
      throw translatePgError(err, this.location);
    }
    // A checked-out client whose connection is lost emits 'error' on itself (the pool listens
    // only to idle ones); the query in flight fails with it, which is what reports it.
    if (!watched.has(client)) {
      watched.add(client);
      client.on('error', () => undefined);
    }
    return client;
  }

  /**
   * Listen on the store's channel with a connection of its own; when it is lost, reconnect
   * (backing off up to 5 s) and tell every listener once, since commits may have been missed.
   */
  async #listen(): Promise<void> {
    for (let delay = 100; !this.#closed && this.#listeners.size > 0; delay = Math.min(delay * 2, 5_000)) {
      const client = new pg.Client({ connectionString: this.#target.connectionString });
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

/**
 * The batch in one statement: its deletions and its puts (an upsert), a later op on a key
 * winning, and the notification of the store's channel (delivered only once the transaction
 * commits).
 */
async function writeOps(client: PoolClient, kv: string, ops: StorageOp[], channel: string): Promise<void> {
  const last = new Map<string, StorageOp>();
  for (const op of ops) last.set(Buffer.from(op.key).toString('hex'), op);
  const putKeys: Buffer[] = [];
  const putValues: Buffer[] = [];
  const delKeys: Buffer[] = [];
  for (const op of last.values()) {
    if (op.type === 'put') {
      putKeys.push(Buffer.from(op.key));
      putValues.push(Buffer.from(op.value));
    } else delKeys.push(Buffer.from(op.key));
  }
  // Each key is in one list only, so the two parts of the statement never touch the same row.
  await client.query(
    `WITH deleted AS (DELETE FROM ${kv} WHERE k = ANY($1::bytea[])),
          written AS (INSERT INTO ${kv} (k, v) SELECT * FROM unnest($2::bytea[], $3::bytea[]) ON CONFLICT (k) DO UPDATE SET v = EXCLUDED.v)
     SELECT pg_notify($4, '')`,
    [delKeys, putKeys, putValues, channel],
  );
}
