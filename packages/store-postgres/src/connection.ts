/**
 * Where a PostgreSQL store lives: a `postgres://` (or `postgresql://`) URL naming the server and
 * database, with the store's schema in the `schema` query parameter (default `stateflow`), so
 * that several stores can share one database. The location the store reports never carries a
 * password.
 */
import pg from 'pg';
import { StateflowError } from '@stateflow/core';
import { translatePgError } from './pg-errors.js';
import { resolveTimeouts, sessionConfig, type PostgresTimeouts } from './session-settings.js';

/** The schema a store uses when its URL names none. */
export const DEFAULT_SCHEMA = 'stateflow';

/** A parsed store URL. */
export interface PostgresTarget {
  /** The connection string for `pg` (the URL without the `schema` parameter). */
  connectionString: string;
  /** The store's schema (a PostgreSQL identifier: `[a-z_][a-z0-9_]*`, ≤ 63 bytes). */
  schema: string;
  /** The URL without its passwords (user info, `password=`, `sslpassword=`), for messages and `Store.location`. */
  location: string;
}

/** Whether `location` is a PostgreSQL URL (rather than a directory). */
export function isPostgresUrl(location: string): boolean {
  return /^postgres(ql)?:\/\//i.test(location);
}

/**
 * Parse a store URL.
 * @throws USAGE for a URL that does not parse, is not `postgres://`/`postgresql://`, or names a
 *   schema that is not a plain lowercase identifier
 */
export function parseTarget(url: string): PostgresTarget {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch (cause) {
    // The text may carry a password (user:password@): never echo what lies before the host.
    const shown = url.replace(/:\/\/[^/?#]*@/, '://…@');
    throw new StateflowError('USAGE', `${JSON.stringify(shown)} is not a URL; give postgres://user@host:5432/database?schema=name`, {}, { cause });
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    throw new StateflowError('USAGE', `A PostgreSQL store URL starts with postgres://, got ${parsed.protocol}//`, {});
  }
  if (parsed.searchParams.getAll('schema').length > 1) {
    throw new StateflowError('USAGE', 'A store URL names one schema: give schema= once', {});
  }
  const schema = parsed.searchParams.get('schema') ?? DEFAULT_SCHEMA;
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) {
    throw new StateflowError('USAGE', `schema=${JSON.stringify(schema)} must be a lowercase identifier ([a-z_][a-z0-9_]*, at most 63 characters)`, {});
  }
  parsed.searchParams.delete('schema');
  const connectionString = parsed.toString();
  if (parsed.password !== '') parsed.password = '';
  // pg also reads passwords from the query (password=, sslpassword=): none reaches the location.
  for (const name of [...parsed.searchParams.keys()]) if (/password/i.test(name)) parsed.searchParams.delete(name);
  parsed.searchParams.set('schema', schema);
  return { connectionString, schema, location: parsed.toString() };
}

/** Clients that already have an 'error' listener. */
const watched = new WeakSet<pg.ClientBase>();

/**
 * Give `client` an 'error' listener (once). A client whose connection is lost — the server
 * ended it (`pg_terminate_backend`, a restart, a timeout) or the socket broke — emits 'error',
 * and an emitter's 'error' without a listener is an uncaught exception that ends the process;
 * the query in flight, or the next one, fails with the loss, and that failure is what reports it.
 * @returns `client`
 */
export function watchErrors<C extends pg.ClientBase>(client: C): C {
  if (!watched.has(client)) {
    watched.add(client);
    client.on('error', () => undefined);
  }
  return client;
}

/**
 * Run `fn` on a new connection to the target's database, closed afterwards (schema-level work
 * outside a store: building, dropping), with the store's session settings.
 * @throws STORE_UNAVAILABLE, STORE_IO for the database's failures (typed by `translatePgError`)
 */
export async function withClient<T>(target: PostgresTarget, fn: (client: pg.Client) => Promise<T>, timeouts: PostgresTimeouts = {}): Promise<T> {
  const client = watchErrors(new pg.Client(sessionConfig(target, resolveTimeouts(timeouts), 'store')));
  try {
    await client.connect();
    return await fn(client);
  } catch (err) {
    throw translatePgError(err, target.location);
  } finally {
    await client.end().catch(() => undefined);
  }
}
