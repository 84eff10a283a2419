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
 * SQLSTATEs of a session PostgreSQL ended or a statement it gave up on: 57P01–57P03 (admin
 * shutdown — `pg_terminate_backend` —, crash shutdown, cannot connect now), 57014 (a statement
 * cancelled: `statement_timeout`), 25P03 (`idle_in_transaction_session_timeout`).
 */
const ENDED_CODES = new Set(['57P01', '57P02', '57P03', '57014', '25P03']);

/** SQLSTATE of a lock wait that outlasted `lock_timeout`. */
export const LOCK_NOT_AVAILABLE = '55P03';

/**
 * Whether `err` means the server or the connection is gone, or did not answer in time: a socket
 * error, SQLSTATE class 08 (connection exception), one of {@link ENDED_CODES}, or `pg`'s own
 * "Connection terminated" (its errors carry no code for it).
 */
export function isConnectionLoss(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && (CONNECTION_CODES.has(code) || code.startsWith('08') || ENDED_CODES.has(code))) return true;
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

/** The session that held the store's lock when a wait for it timed out (from `pg_locks` and `pg_stat_activity`). */
export interface LockHolder {
  pid: number;
  /** `pg_stat_activity.state` (`'idle in transaction'` for a frozen holder), application name and client address, where PostgreSQL reports them. */
  state: string | null;
  application: string | null;
  client: string | null;
}

/**
 * `STORE_UNAVAILABLE { outcome: 'not-sent', holderPid }` for a write that waited `waitedMs` for
 * the store's lock at `location` in vain (`holder`: who held it, `null` when it was gone by the
 * time it was looked up).
 */
export function lockTimeoutError(location: string, waitedMs: number, holder: LockHolder | null, cause: unknown): StateflowError<'STORE_UNAVAILABLE'> {
  const who =
    holder === null
      ? 'its holder had released it by the time it was looked up'
      : `PostgreSQL backend pid ${holder.pid} holds it (${[holder.state, holder.application, holder.client].filter((x) => x !== null && x !== '').join(', ') || 'no activity reported'}); ` +
        'a holder stalled inside its transaction is ended by idle_in_transaction_session_timeout, or end it with SELECT pg_terminate_backend(' + String(holder.pid) + ')';
  return new StateflowError(
    'STORE_UNAVAILABLE',
    `The store at ${location} stayed locked by another writer for ${waitedMs} ms (lockTimeoutMs): ${who}; nothing was applied, retry later`,
    { url: location, outcome: 'not-sent', ...(holder === null ? {} : { holderPid: holder.pid }) },
    { cause },
  );
}
