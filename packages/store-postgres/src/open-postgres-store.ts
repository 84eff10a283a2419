/**
 * Opening a store on PostgreSQL, and opening a store by location (README "Use"): a
 * `postgres://` URL means PostgreSQL, anything else a LevelDB directory, which stays the
 * embedded default.
 */
import { StateflowError } from '@stateflow/core';
import { openStore, openStoreOver } from '@stateflow/store';
import type { Store, StoreOptions } from '@stateflow/store';
import { withClient } from './connection.js';
import { parseTarget, storeLocationKind } from './store-url.js';
import { openPostgresStorage } from './postgres-storage.js';

/** Options of {@link openPostgresStore}: the store's, and the pools' sizes. */
export interface PostgresStoreOptions extends StoreOptions {
  /** Most connections the pool opens (default 10). */
  maxConnections?: number;
  /** Most named locks (`Store.withLock`) held at once, one connection each (default 100). */
  maxLocks?: number;
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
  const { maxConnections, maxLocks, ...storeOptions } = options;
  const storage = await openPostgresStorage(parseTarget(url), {
    createIfMissing: options.createIfMissing ?? true,
    ...(maxConnections === undefined ? {} : { maxConnections }),
    ...(maxLocks === undefined ? {} : { maxLocks }),
  });
  return openStoreOver(storage, storeOptions);
}

/**
 * Open the store at `location`: a PostgreSQL URL ({@link openPostgresStore}) or a LevelDB
 * directory (`openStore` of `@stateflow/store`). What the CLI's `--store` / `--dir` and
 * `stateflow serve` open.
 * @throws USAGE for a URL of another scheme (`mysql://…`: never taken as a directory); what the
 *   chosen opener throws
 */
export async function openStoreAt(location: string, options?: StoreOptions): Promise<Store> {
  return storeLocationKind(location) === 'postgres' ? openPostgresStore(location, options) : openStore(location, options);
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
