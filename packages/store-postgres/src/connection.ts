/**
 * Connections outside a store, for schema-level work (building, dropping).
 */
import pg from 'pg';
import { translatePgError } from './pg-errors.js';
import type { PostgresTarget } from './store-url.js';

/**
 * Run `fn` on a new connection to the target's database, closed afterwards (schema-level work
 * outside a store: building, dropping).
 * @throws STORE_UNAVAILABLE, STORE_IO for the database's failures (typed by `translatePgError`)
 */
export async function withClient<T>(target: PostgresTarget, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: target.connectionString });
  try {
    await client.connect();
    return await fn(client);
  } catch (err) {
    throw translatePgError(err, target.location);
  } finally {
    await client.end().catch(() => undefined);
  }
}
