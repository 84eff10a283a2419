/**
 * PostgreSQL's errors translated into Stateflow's (CONVENTIONS.md "Errors": one translation
 * boundary per package). A server that cannot be reached, or a connection lost, is
 * `STORE_UNAVAILABLE` with what is known of the outcome (`not-sent`: nothing was applied;
 * `unknown`: a commit may have been applied — retry it with its idempotency id); a database that
 * does not exist (SQLSTATE 3D000) is `NOT_FOUND` with the `createdb` line that makes it (the
 * store creates its schema, never a database); anything else the database reports is
 * `STORE_IO` with its SQLSTATE as `code`. The original error is the `cause`.
 */
import { StateflowError } from '@stateflow/core';

/** Node's socket error codes of an unreachable or lost server. */
const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EPIPE', 'EAI_AGAIN']);

/** SQLSTATE of a connection to a database that does not exist. */
const INVALID_CATALOG_NAME = '3D000';

/**
 * Whether `err` means the server or the connection is gone: a socket error, SQLSTATE class 08
 * (connection exception), 57P01–57P03 (admin shutdown, crash shutdown, cannot connect now), or
 * `pg`'s own "Connection terminated" (its errors carry no code for it).
 */
export function isConnectionLoss(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && (CONNECTION_CODES.has(code) || code.startsWith('08') || ['57P01', '57P02', '57P03'].includes(code))) return true;
  const message = err instanceof Error ? err.message : '';
  return /^Connection terminated|connection timeout|Client has encountered a connection error/i.test(message);
}

/**
 * Translate a foreign error from `pg` at `location` (the URL without password).
 * @param outcome for a connection loss: whether the failed operation can have been applied
 */
export function translatePgError(err: unknown, location: string, outcome: 'not-sent' | 'unknown' = 'not-sent'): StateflowError {
  if (err instanceof StateflowError) return err;
  const message = err instanceof Error ? err.message : String(err);
  if (isConnectionLoss(err)) {
    const what = outcome === 'unknown' ? 'the commit may or may not have been applied: retry it with the same idempotency id, or read before retrying' : 'nothing was applied';
    return new StateflowError('STORE_UNAVAILABLE', `PostgreSQL at ${location} cannot be reached (${message}); ${what}`, { url: location, outcome }, { cause: err });
  }
  const code = (err as { code?: unknown } | null)?.code;
  if (code === INVALID_CATALOG_NAME) return missingDatabase(location, err);
  return new StateflowError('STORE_IO', `PostgreSQL at ${location} failed: ${message}`, { location, code: typeof code === 'string' ? code : null }, { cause: err });
}

/**
 * NOT_FOUND for the database `location` names, with the `createdb` command (PostgreSQL's client
 * tools) for that server, user and name; `CREATE DATABASE` is the same from any SQL client.
 */
function missingDatabase(location: string, cause: unknown): StateflowError<'NOT_FOUND'> {
  const url = new URL(location);
  const database = decodeURIComponent(url.pathname.slice(1));
  const words = ['createdb'];
  if (url.hostname !== '') words.push('-h', url.hostname);
  if (url.port !== '') words.push('-p', url.port);
  if (url.username !== '') words.push('-U', decodeURIComponent(url.username));
  words.push(database);
  return new StateflowError(
    'NOT_FOUND',
    `PostgreSQL at ${location} has no database ${JSON.stringify(database)}: create it with "${words.map(shellWord).join(' ')}" (or CREATE DATABASE in psql), or name an existing database in the URL.`,
    { url: location, database },
    { cause },
  );
}

/** A word as a POSIX shell reads it: plain when it is only safe characters, else single-quoted. */
function shellWord(word: string): string {
  return /^[A-Za-z0-9_./:@%+=-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
