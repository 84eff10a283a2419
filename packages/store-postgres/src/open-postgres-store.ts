/**
 * Opening a store on PostgreSQL (README "Use").
 */
import { StateflowError } from '@stateflow/core';
import { openStoreOver } from '@stateflow/store';
import type { Store, StoreOptions } from '@stateflow/store';
import { withClient } from './connection.js';
import { parseTarget, type PostgresTarget } from './store-url.js';
import { openPostgresStorage } from './postgres-storage.js';
import type { PostgresTimeouts } from './session-settings.js';

/** Options of {@link openPostgresStore}: the store's, the pools' sizes, the bounds of every wait ({@link PostgresTimeouts}) and the read replicas. */
export interface PostgresStoreOptions extends StoreOptions, PostgresTimeouts {
  /** Most connections the pool opens (default 10). */
  maxConnections?: number;
  /** Most named locks (`Store.withLock`) held at once, one connection each (default 100). */
  maxLocks?: number;
  /**
   * Read replicas (README "Read replicas"): `postgres://` URLs of hot standbys of the store's
   * database, whose historical reads (`stateAt`, `patchAt`, `statesAt`, `transition`,
   * `transitions`, `diff`, `audit`) the store may serve when a replica has replayed every commit
   * the read needs; everything else, and every read a replica cannot cover, goes to `url`. A
   * replica URL names the store's schema or none.
   */
  readReplicas?: string[];
}

/**
 * Open (or create) the store at `url` (`postgres://user@host:5432/database?schema=name`; the
 * schema defaults to `stateflow`). Any number of processes, on any number of machines, may open
 * the same store and write it at once.
 *
 * @throws USAGE for a bad URL; NOT_FOUND `{ url }` when `createIfMissing` is false and the schema
 *   holds no store; STORE_VERSION for a newer schema (nothing changed); STORE_UNAVAILABLE when the
 *   server cannot be reached; STORE_IO; INPUT_INVALID for bad options
 */
export async function openPostgresStore(url: string, options: PostgresStoreOptions = {}): Promise<Store> {
  if (typeof url !== 'string') throw new StateflowError('INPUT_INVALID', 'openPostgresStore needs a postgres:// URL', { field: 'url' });
  const { maxConnections, maxLocks, readReplicas, lockTimeoutMs, idleInTransactionTimeoutMs, statementTimeoutMs, ...storeOptions } = options;
  const target = parseTarget(url);
  const storage = await openPostgresStorage(target, {
    createIfMissing: options.createIfMissing ?? true,
    ...(maxConnections === undefined ? {} : { maxConnections }),
    ...(maxLocks === undefined ? {} : { maxLocks }),
    ...(lockTimeoutMs === undefined ? {} : { lockTimeoutMs }),
    ...(idleInTransactionTimeoutMs === undefined ? {} : { idleInTransactionTimeoutMs }),
    ...(statementTimeoutMs === undefined ? {} : { statementTimeoutMs }),
    replicas: replicaTargets(target, readReplicas ?? []),
  });
  return openStoreOver(storage, storeOptions);
}

/**
 * The targets of the read replicas `urls` of the store at `primary`: the primary's schema.
 * @throws USAGE for a URL that does not parse, is not an array of strings, or names another schema
 */
function replicaTargets(primary: PostgresTarget, urls: unknown): PostgresTarget[] {
  if (!Array.isArray(urls) || urls.some((u) => typeof u !== 'string')) throw new StateflowError('INPUT_INVALID', 'readReplicas must be an array of postgres:// URLs', { field: 'readReplicas' });
  return (urls as string[]).map((url) => {
    const given = parseTarget(url);
    // parseTarget accepted it, so it is a URL; without schema= it is the primary's.
    const target = new URL(url).searchParams.has('schema') ? given : parseTarget(`${url}${url.includes('?') ? '&' : '?'}schema=${primary.schema}`);
    if (target.schema !== primary.schema) {
      throw new StateflowError('USAGE', `The read replica ${target.location} names schema "${target.schema}", the store is in "${primary.schema}": a replica is a copy of the same database, give its URL without schema=`, {});
    }
    return target;
  });
}

/**
 * Delete the store at `url` for good: its schema and every table in it (`DROP SCHEMA … CASCADE`).
 * Nothing else in the database is touched; a missing store is not an error.
 * @throws USAGE for a bad URL; STORE_UNAVAILABLE, STORE_IO from the database
 */
export async function dropPostgresStore(url: string): Promise<void> {
  const target = parseTarget(url);
  await withClient(target, (client) => client.query(`DROP SCHEMA IF EXISTS "${target.schema}" CASCADE`));
}
