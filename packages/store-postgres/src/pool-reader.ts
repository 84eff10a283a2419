/**
 * Reads of a store's records through a connection pool (README "How it works"): point reads,
 * keyset-paged range scans, several ranges in one statement (`readRanges`), and `REPEATABLE READ READ ONLY` snapshots — what the primary and
 * every read replica (README "Read replicas") serve alike. A pooled connection the server ended
 * while it sat idle is found only when it is used: work that is safe to repeat (a read, a
 * `BEGIN`, taking a lock) is then tried again on a new connection.
 */
import { createHash } from 'node:crypto';
import pg from 'pg';
import type { Pool, PoolClient } from 'pg';
import { StateflowError } from '@stateflow/core';
import type { IterateOptions, RangeRead, StorageReader, StorageReplica } from '@stateflow/store';
import { watchErrors } from './connection.js';
import { LOCK_NOT_AVAILABLE, isConnectionLoss, translatePgError } from './pg-errors.js';

/** Rows fetched per page of an iteration. */
const PAGE = 512;

/** Something queries run on: the pool, or one client of it. */
interface Queryable {
  query<R extends pg.QueryResultRow>(text: string | pg.QueryConfig, values?: unknown[]): Promise<pg.QueryResult<R>>;
}


/** Tries of an operation whose connection is lost before it did anything. */
const CONNECTION_TRIES = 3;

/** `fn`, tried again (up to {@link CONNECTION_TRIES} in all) while it fails with a lost connection; for work that is safe to repeat. */
export async function retried<T>(fn: () => Promise<T>): Promise<T> {
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

/**
 * `WHERE` conditions of range `i` of `ranges` over key column `k`, their values pushed onto
 * `values`; a `from` start reads the first key of the earlier range's CTE (`r<j>`).
 */
function rangeConditions(ranges: readonly RangeRead[], i: number, values: unknown[]): string[] {
  const range = ranges[i] as RangeRead;
  const where: string[] = [];
  const gte = range.gte === undefined ? null : `$${values.push(Buffer.from(range.gte))}`;
  if (gte !== null) where.push(`k >= ${gte}`);
  if (range.lt !== undefined) where.push(`k < $${values.push(Buffer.from(range.lt))}`);
  const from = range.from;
  if (from !== undefined && from.range < i) {
    const order = ranges[from.range]?.reverse === true ? 'DESC' : 'ASC';
    const head = gte === null ? `decode('', 'hex')` : `substring(${gte} from 1 for ${Math.trunc(from.prefix)})`;
    const found = `(SELECT ${head} || substring(k from ${Math.trunc(from.prefix) + 1}) FROM r${from.range} ORDER BY k ${order} LIMIT 1)`;
    // No key found: the range's own start (an empty key sorts first).
    where.push(from.inclusive === true ? `k >= COALESCE(${found}, ${gte ?? `decode('', 'hex')`})` : `k > COALESCE(${found}, decode('', 'hex'))`);
  }
  return where;
}

/**
 * `ranges` in one statement: one CTE per range (an ordered, limited index scan; a `from` start
 * reads an earlier one), their rows tagged with their range in a `UNION ALL`; ordered again
 * here, since a union keeps no order. A named statement: each connection plans a shape once.
 */
async function readRanges(db: Queryable, kv: string, ranges: readonly RangeRead[], location: string): Promise<[Uint8Array, Uint8Array][][]> {
  if (ranges.length === 0) return [];
  const values: unknown[] = [];
  const ctes = ranges.map((range, i) => {
    const where = rangeConditions(ranges, i, values);
    const limit = range.limit === undefined ? '' : ` LIMIT $${values.push(range.limit)}`;
    return `r${i} AS (SELECT k, v FROM ${kv}${where.length === 0 ? '' : ` WHERE ${where.join(' AND ')}`} ORDER BY k ${range.reverse === true ? 'DESC' : 'ASC'}${limit})`;
  });
  const text = `WITH ${ctes.join(', ')} ${ranges.map((_, i) => `SELECT ${i} AS i, k, v FROM r${i}`).join(' UNION ALL ')}`;
  let rows: { i: number; k: Buffer; v: Buffer }[];
  try {
    rows = (await db.query<{ i: number; k: Buffer; v: Buffer }>({ name: `sf_ranges_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`, text, values })).rows;
  } catch (err) {
    throw translatePgError(err, location);
  }
  const out = ranges.map((): [Uint8Array, Uint8Array][] => []);
  for (const row of rows) out[row.i]?.push([row.k, row.v]);
  return out.map((entries, i) => entries.sort(([a], [b]) => (ranges[i]?.reverse === true ? Buffer.compare(b, a) : Buffer.compare(a, b))));
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
 * The reads of the records in `kv` (a quoted `"schema".sf_kv`) through `pool`, at `location`
 * (for errors): the primary's, or a read replica's ({@link StorageReplica}).
 */
export class PoolReader implements StorageReplica {
  readonly location: string;
  readonly #pool: Pool;
  readonly #kv: string;
  readonly #isClosed: () => boolean;
  /** Reads on the pool: a read whose pooled connection turns out to be gone is retried on another. */
  readonly #reads: Queryable;

  /** @param isClosed whether the storage was closed (then every read is STORE_CLOSED) */
  constructor(pool: Pool, kv: string, location: string, isClosed: () => boolean) {
    this.#pool = pool;
    this.#kv = kv;
    this.location = location;
    this.#isClosed = isClosed;
    this.#reads = { query: (text, values) => retried(() => this.#live().query(text, values)) };
  }

  get(key: Uint8Array): Promise<Uint8Array | undefined> {
    return getOne(this.#reads, this.#kv, key, this.location);
  }

  getMany(keys: Uint8Array[]): Promise<(Uint8Array | undefined)[]> {
    return getMany(this.#reads, this.#kv, keys, this.location);
  }

  iterate(options: IterateOptions): AsyncIterable<[Uint8Array, Uint8Array]> {
    return iterate(this.#reads, this.#kv, options, this.location);
  }

  readRanges(ranges: readonly RangeRead[]): Promise<[Uint8Array, Uint8Array][][]> {
    return readRanges(this.#reads, this.#kv, ranges, this.location);
  }

  async snapshot<T>(read: (reader: StorageReader) => Promise<T>): Promise<T> {
    // PostgreSQL takes a transaction's snapshot at its first statement, not at BEGIN: take it
    // now, so a commit made before `read` first reads is not seen.
    const { client } = await this.start(this.#pool, 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; SELECT 1');
    try {
      const result = await read({
        get: (key) => getOne(client, this.#kv, key, this.location),
        getMany: (keys) => getMany(client, this.#kv, keys, this.location),
        iterate: (options) => iterate(client, this.#kv, options, this.location),
        readRanges: (ranges) => readRanges(client, this.#kv, ranges, this.location),
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

  /**
   * A client of `pool` that ran `text` — a statement that changes nothing it does not hold
   * itself (a `BEGIN`, a lock) — retried on a new connection when the one it got turns out to
   * be gone. A failed `lock_timeout` wait (SQLSTATE 55P03) is passed on untranslated, for the
   * caller to name the lock's holder.
   * @throws STORE_CLOSED; what `translatePgError` makes of the last failure
   */
  async start<R extends pg.QueryResultRow>(pool: Pool, text: string, values?: unknown[]): Promise<{ client: PoolClient; result: pg.QueryResult<R> }> {
    return retried(async () => {
      const client = await this.connect(pool);
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

  /** A client of `pool` with an 'error' listener (the pool listens only on idle ones). @throws STORE_CLOSED, STORE_UNAVAILABLE */
  async connect(pool: Pool = this.#pool): Promise<PoolClient> {
    this.#live();
    try {
      return watchErrors(await pool.connect());
    } catch (err) {
      throw translatePgError(err, this.location);
    }
  }

  /** The pool, once checked that the storage is open. @throws STORE_CLOSED */
  #live(): Pool {
    if (this.#isClosed()) throw new StateflowError('STORE_CLOSED', 'The store is closed', {});
    return this.#pool;
  }
}
