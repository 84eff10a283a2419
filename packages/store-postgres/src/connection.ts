/**
 * Connections outside a store, for schema-level work (building, dropping).
 */
import pg from 'pg';
import { translatePgError } from './pg-errors.js';
import type { PostgresTarget } from './store-url.js';
import { resolveTimeouts, sessionConfig, type PostgresTimeouts } from './session-settings.js';

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
