/**
 * The tables of a PostgreSQL store and their versioned migrations (README "Tables"). A store is
 * one schema holding
 *
 * - `sf_schema (version integer)`: one row, the schema version (as LevelDB's `M/format` record
 *   is the store format's);
 * - `sf_kv (k bytea PRIMARY KEY, v bytea NOT NULL)`: every record of the store, under the same
 *   binary keys and with the same MessagePack bytes as in LevelDB (`@stateflow/store`'s key
 *   families `M L R S H C I`), so the store's one implementation — publication, replay,
 *   compaction, audit — runs unchanged, a transition hashes the same, and an export round-trips
 *   byte for byte. `bytea` keeps the bytes exactly (`jsonb` would reorder keys, refuse
 *   `\u0000` and normalise numbers); its btree orders keys bytewise, as LevelDB does.
 *
 * Migrations run on open, in one transaction under the store's advisory lock, so two processes
 * opening a new store at once create it once. A schema newer than this build is refused with
 * `STORE_VERSION` and nothing is changed.
 */
import type { ClientBase, Pool, PoolClient } from 'pg';
import { StateflowError } from '@stateflow/core';
import { watchErrors } from './connection.js';
import type { PostgresTarget } from './store-url.js';
import { LOCK_NOT_AVAILABLE, lockTimeoutError, translatePgError } from './pg-errors.js';
import type { LockHolder } from './pg-errors.js';

/** The schema version this build writes and reads. */
export const SCHEMA_VERSION = 1;

/** The first key of the store's advisory locks (`'SF'`); the second is the schema's hash. */
export const LOCK_CLASS = 0x5346;

/** The first key of the named locks (`Storage.lock`, `'SL'`); the second hashes schema and name. */
export const NAMED_LOCK_CLASS = 0x534c;

/** `"schema".name`, quoted. */
export const table = (target: PostgresTarget, name: string): string => `"${target.schema}".${name}`;

/** The statements that take a schema from version `n - 1` to `n`, index `n - 1`. */
function migrations(target: PostgresTarget): string[][] {
  return [
    [
      `CREATE TABLE ${table(target, 'sf_kv')} (k bytea PRIMARY KEY, v bytea NOT NULL)`,
      // Compressed in the row, not moved out to TOAST: a checkpoint or a large patch costs one
      // heap tuple instead of a pointer plus chunk rows with their own index (4 % fewer bytes
      // per revision on the eslint history, bench/RESULTS.md "PostgreSQL").
      `ALTER TABLE ${table(target, 'sf_kv')} ALTER COLUMN v SET STORAGE MAIN`,
      `CREATE TABLE ${table(target, 'sf_schema')} (version integer NOT NULL)`,
      `INSERT INTO ${table(target, 'sf_schema')} (version) VALUES (0)`,
    ],
  ];
}

/** Take the store's advisory lock for the current transaction of `client` (waits at most the session's `lock_timeout`). */
export function lockStore(client: ClientBase, target: PostgresTarget): Promise<unknown> {
  return client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [LOCK_CLASS, target.schema]);
}

/**
 * Who holds the store's advisory lock now, or `null` when nobody does (PostgreSQL's `pg_locks`
 * joined with `pg_stat_activity`; a failure to look is `null` too: the caller reports the
 * timeout either way).
 */
export async function storeLockHolder(db: Pick<ClientBase, 'query'>, target: PostgresTarget): Promise<LockHolder | null> {
  try {
    const found = await db.query<{ pid: number; state: string | null; application: string | null; client: string | null }>(
      `SELECT l.pid, a.state, a.application_name AS application, host(a.client_addr) AS client
         FROM pg_locks l LEFT JOIN pg_stat_activity a ON a.pid = l.pid
        WHERE l.locktype = 'advisory' AND l.granted AND l.classid = $1 AND l.objid = hashtext($2)::oid AND l.objsubid = 2
          AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
        LIMIT 1`,
      [LOCK_CLASS, target.schema],
    );
    return found.rows[0] ?? null;
  } catch {
    return null;
  }
}

/**
 * `err` typed: a wait for the store's lock that outlasted `lock_timeout` is
 * `STORE_UNAVAILABLE { outcome: 'not-sent', holderPid }` naming the holder (looked up on `db`);
 * anything else as {@link translatePgError} says.
 */
export async function translateLockWait(err: unknown, db: Pick<ClientBase, 'query'>, target: PostgresTarget, lockTimeoutMs: number): Promise<StateflowError> {
  if ((err as { code?: unknown } | null)?.code !== LOCK_NOT_AVAILABLE) return translatePgError(err, target.location);
  return lockTimeoutError(target.location, lockTimeoutMs, await storeLockHolder(db, target), err);
}

/**
 * Bring the store's schema to {@link SCHEMA_VERSION}, creating it when `create` allows.
 * @throws NOT_FOUND `{ url }` when there is no store and `create` is false;
 *   STORE_VERSION `{ found, supported }` for a newer schema (nothing changed); STORE_UNAVAILABLE,
 *   STORE_IO from the database
 */
export async function prepareSchema(pool: Pool, target: PostgresTarget, options: { create: boolean; lockTimeoutMs: number }): Promise<void> {
  let client: PoolClient;
  try {
    client = await pool.connect();
  } catch (err) {
    throw translatePgError(err, target.location);
  }
  watchErrors(client);
  try {
    await client.query('BEGIN');
    try {
      await lockStore(client, target);
    } catch (err) {
      throw await translateLockWait(err, pool, target, options.lockTimeoutMs);
    }
    const found = await client.query<{ exists: boolean }>('SELECT to_regclass($1) IS NOT NULL AS exists', [`"${target.schema}".sf_schema`]);
    let version = 0;
    if (found.rows[0]?.exists === true) {
      const rows = (await client.query<{ version: number }>(`SELECT version FROM ${table(target, 'sf_schema')}`)).rows;
      if (rows.length !== 1) {
        throw new StateflowError(
          'STORE_CORRUPT',
          `The store at ${target.location} is damaged: its table sf_schema holds ${rows.length} rows instead of one (the schema version); nothing was changed — restore the row (INSERT INTO "${target.schema}".sf_schema VALUES (${SCHEMA_VERSION})) or the database from a backup`,
          { detail: `sf_schema holds ${rows.length} rows`, key: 'sf_schema' },
        );
      }
      version = rows[0]?.version ?? 0;
    } else if (!options.create) {
      throw new StateflowError('NOT_FOUND', `No Stateflow store at ${target.location} (schema "${target.schema}" has none); nothing was created`, { url: target.location });
    } else {
      await client.query(`CREATE SCHEMA IF NOT EXISTS "${target.schema}"`);
    }
    if (version > SCHEMA_VERSION) {
      throw new StateflowError(
        'STORE_VERSION',
        `The store at ${target.location} has schema version ${version}; this version of Stateflow supports ${SCHEMA_VERSION}; nothing was changed`,
        { found: version, supported: SCHEMA_VERSION },
      );
    }
    const steps = migrations(target);
    for (let next = found.rows[0]?.exists === true ? version + 1 : 1; next <= SCHEMA_VERSION; next++) {
      for (const statement of steps[next - 1] ?? []) await client.query(statement);
      await client.query(`UPDATE ${table(target, 'sf_schema')} SET version = $1`, [next]);
    }
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw translatePgError(err, target.location);
  } finally {
    client.release();
  }
}
