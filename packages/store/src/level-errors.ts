/**
 * Level's (abstract-level, classic-level, memory-level) and the file system's errors translated
 * into Stateflow's (CONVENTIONS.md "Errors": one translation boundary per package). The Level
 * adapter (`level-storage.ts`) passes every foreign error through {@link translateLevelError},
 * and so does a backend package for the file work around its database (`@stateflow/store-leveldb`:
 * its file checks and repairs), so the rules live once.
 */
import { StateflowError } from '@stateflow/core';
import { storeNotFound } from './internal/store-not-found.js';

/** LevelDB/OS wording of a directory the process may not write (EACCES, EPERM, EROFS). */
const NO_WRITE_ACCESS = /Permission denied|Operation not permitted|Read-only file system|\b(EACCES|EPERM|EROFS)\b/;

/**
 * Translate a foreign (Level / fs) error into a StateflowError (a StateflowError is returned as
 * it is). `location` is the database's directory, or `null` in memory. `LEVEL_LOCKED` →
 * `STORE_LOCKED { dir }`; LevelDB corruption (`LEVEL_CORRUPTION`, directly or as the `cause` of
 * a failed open, or a `Corruption:` message) → `STORE_CORRUPT { detail }`; a closed database → `STORE_CLOSED`; LevelDB refusing to create a missing database
 * → `NOT_FOUND { dir }`; no write access (EACCES, EPERM, read-only file system) → `STORE_IO
 * { location, code, reason: 'no-write-access' }` saying LevelDB needs it even to read; anything
 * else → `STORE_IO { location, code }`. The original error is always the `cause`.
 * @example
 * ```ts
 * try { await readFile(path.join(dir, 'CURRENT')); } catch (err) { throw translateLevelError(err, dir); }
 * ```
 */
export function translateLevelError(err: unknown, location: string | null): StateflowError {
  if (err instanceof StateflowError) return err;
  const code = (err as { code?: unknown } | null)?.code;
  const causeCode = (err as { cause?: { code?: unknown } } | null)?.cause?.code;
  if (code === 'LEVEL_LOCKED' || causeCode === 'LEVEL_LOCKED') {
    const dir = location ?? '(memory)';
    return new StateflowError('STORE_LOCKED', `Store directory ${dir} is in use by another process (or another open store); close it first`, { dir }, { cause: err });
  }
  if (code === 'LEVEL_DATABASE_NOT_OPEN' && causeCode === undefined) {
    return new StateflowError('STORE_CLOSED', 'The store is closed', {}, { cause: err });
  }
  const message = err instanceof Error ? err.message : String(err);
  const causeMessage = (err as { cause?: { message?: unknown } } | null)?.cause?.message;
  if (code === 'LEVEL_CORRUPTION' || causeCode === 'LEVEL_CORRUPTION' || /^Corruption:/.test(message) || (typeof causeMessage === 'string' && /^Corruption:/.test(causeMessage))) {
    const detail = `LevelDB reports corruption: ${typeof causeMessage === 'string' && causeCode === 'LEVEL_CORRUPTION' ? causeMessage : message}`;
    return new StateflowError(
      'STORE_CORRUPT',
      `Store ${location ?? '(memory)'} is corrupt (${detail}); run an audit or restore a backup; nothing was rewritten by Stateflow`,
      { detail },
      { cause: err },
    );
  }
  const foreign = typeof causeMessage === 'string' ? `${message}: ${causeMessage}` : message;
  if (location !== null && /does not exist \(create_if_missing is false\)/.test(foreign)) return storeNotFound(location, 'no LevelDB database');
  if (location !== null && (NO_WRITE_ACCESS.test(foreign) || ['EACCES', 'EPERM', 'EROFS'].includes(String(code ?? causeCode)))) {
    return new StateflowError(
      'STORE_IO',
      `Stateflow needs write access to ${location} even to read: LevelDB takes a lock and replays its log on open (${foreign}); give this user write access to the directory, or copy the store to a writable place`,
      { location, code: foreignCode(code ?? causeCode), reason: 'no-write-access' },
      { cause: err },
    );
  }
  if (code === 'ENOSPC') {
    return new StateflowError('STORE_IO', `Storage failure at ${location ?? '(memory)'}: No space left on device (${foreign}); free space on its disk, then reopen the store`, { location, code: 'ENOSPC' }, { cause: err });
  }
  return new StateflowError('STORE_IO', `Storage failure at ${location ?? '(memory)'}: ${foreign}`, { location, code: foreignCode(code ?? causeCode) }, { cause: err });
}

/** A foreign error's `code` as text (Level and Node codes are strings), or `null`. */
function foreignCode(code: unknown): string | null {
  return code === undefined || code === null ? null : String(code);
}
