/**
 * Where a PostgreSQL store lives: a `postgres://` (or `postgresql://`) URL naming the server and
 * database, with the store's schema in the `schema` query parameter (default `stateflow`), so
 * that several stores can share one database. The location the store reports never carries a
 * password.
 *
 * This module does not load `pg`: it is also the `@stateflow/store-postgres/location` entry, which
 * a process that only needs to tell a URL from a directory (the `stateflow` command, at start-up)
 * imports without paying for the driver.
 */
import { StateflowError } from '@stateflow/core/errors';

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

/** The URL schemes of a PostgreSQL store. */
export const POSTGRES_SCHEMES = ['postgres:', 'postgresql:'] as const;

/**
 * What kind of store `location` names: `'postgres'` for a `postgres://` or `postgresql://` URL,
 * `'directory'` for anything that is not a URL (a LevelDB directory, relative or absolute).
 * @throws USAGE `{ at: location scheme, reason: 'url-scheme' }` for a URL of any other scheme
 *   (`mysql://…`, `file://…`, `sqlite:…` with `//`): it would otherwise be taken as a directory
 *   named after the scheme.
 */
export function storeLocationKind(location: string): 'postgres' | 'directory' {
  if (isPostgresUrl(location)) return 'postgres';
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*:)\/\//.exec(location)?.[1];
  if (scheme === undefined) return 'directory';
  throw new StateflowError(
    'USAGE',
    `A store is a LevelDB directory or a PostgreSQL URL (${POSTGRES_SCHEMES.map((s) => `${s}//`).join(' or ')}), not a ${scheme}// URL: give postgres://user@host:5432/database?schema=name, or a directory path.`,
    { at: scheme.toLowerCase(), reason: 'url-scheme' },
  );
}
