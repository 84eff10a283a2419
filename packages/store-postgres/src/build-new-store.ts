/**
 * Building a new PostgreSQL store all or nothing (README "Replay into PostgreSQL"): what
 * `stateflow replay --store postgres://…` runs. The store is built in a schema of its own and
 * renamed to the target schema only when the build returned, in one transaction under the
 * target's advisory lock, so no reader ever sees a half-built store and a failed build leaves
 * the database as it was.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { StateflowError, isStateflowError } from '@stateflow/core';
import type { Store, StoreOptions } from '@stateflow/store';
import { withClient } from './connection.js';
import { parseTarget, type PostgresTarget } from './store-url.js';
import { dropPostgresStore, openPostgresStore } from './open-postgres-store.js';
import { lockStore } from './schema.js';

/**
 * Build a new store at `url`: `build` fills a fresh store in a staging schema
 * (`sf_building_<random>`), which becomes the target schema only when `build` returns. When
 * anything fails the staging schema is dropped and the target is left exactly as it was.
 *
 * @param url `postgres://…?schema=name`; the schema must hold nothing (absent, or an empty schema)
 * @returns what `build` returned
 * @throws USAGE for a bad URL or when the target schema holds a store or any table (checked
 *   before building and again at the rename); STORE_UNAVAILABLE, STORE_IO from the database;
 *   whatever `build` throws
 */
export async function buildNewPostgresStore<T>(url: string, build: (store: Store) => Promise<T>, options: StoreOptions = {}): Promise<T> {
  const target = parseTarget(url);
  await withClient(target, (client) => assertEmpty(client, target));
  const staging = new URL(url);
  staging.searchParams.set('schema', `sf_building_${randomBytes(8).toString('hex')}`);
  const stagingUrl = staging.toString();
  const stagingSchema = parseTarget(stagingUrl).schema;
  try {
    const store = await openPostgresStore(stagingUrl, { ...options, createIfMissing: true });
    let result: T;
    try {
      result = await build(store);
    } finally {
      await store.close();
    }
    await withClient(target, async (client) => {
      try {
        await client.query('BEGIN');
        await lockStore(client, target);
        if (await assertEmpty(client, target)) await client.query(`DROP SCHEMA "${target.schema}"`);
        await client.query(`ALTER SCHEMA "${stagingSchema}" RENAME TO "${target.schema}"`);
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      }
    });
    return result;
  } catch (err) {
    await dropStaging(stagingUrl);
    throw err;
  }
}

/** Tries of dropping a failed build's staging schema (the connection that failed may have taken the first down with it). */
const DROP_TRIES = 3;

/** Drop a failed build's staging schema, trying again on a lost connection; what still fails is left, to be dropped by hand. */
async function dropStaging(url: string): Promise<void> {
  for (let attempt = 1; attempt <= DROP_TRIES; attempt++) {
    try {
      await dropPostgresStore(url);
      return;
    } catch (err) {
      if (!isStateflowError(err, 'STORE_UNAVAILABLE')) return;
    }
  }
}

/**
 * Refuse a target schema that holds anything.
 * @returns whether the (empty) schema exists
 * @throws USAGE when it holds a store or other relations
 */
async function assertEmpty(client: pg.ClientBase, target: PostgresTarget): Promise<boolean> {
  const found = await client.query<{ relations: number }>(
    `SELECT count(c.oid)::int AS relations FROM pg_namespace n LEFT JOIN pg_class c ON c.relnamespace = n.oid WHERE n.nspname = $1 GROUP BY n.oid`,
    [target.schema],
  );
  const row = found.rows[0];
  if (row === undefined) return false;
  if (row.relations > 0) {
    throw new StateflowError('USAGE', `Schema "${target.schema}" of ${target.location} is not empty: give a new schema (?schema=name) to build the store in.`, {});
  }
  return true;
}
