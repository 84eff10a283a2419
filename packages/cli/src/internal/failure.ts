/**
 * The CLI's one boundary for failures: foreign errors become {@link StateflowError}s, every
 * failure is reported as one actionable stderr line (or a `{ "error": … }` object under
 * `--json`), and its code picks the exit code from the table in `exit-codes.ts`.
 */
import { CommanderError } from 'commander';
import { StateflowError, isStateflowError } from '@stateflow/core';
import { exitCodeFor, type ExitCode } from '../exit-codes.js';
import type { CliIo } from './io.js';

/** Translate anything thrown into a {@link StateflowError} (USAGE, NOT_FOUND, STORE_IO or INTERNAL). */
export function toStateflowError(err: unknown): StateflowError {
  if (isStateflowError(err)) return err;
  if (err instanceof CommanderError) {
    const message = err.message.replace(/^error: /, '');
    return new StateflowError('USAGE', `${message.replace(/\.?$/, '.')} Run "stateflow --help" for usage.`, {
      reason: err.code,
    });
  }
  const errno = err as NodeJS.ErrnoException;
  if (errno instanceof Error && typeof errno.code === 'string' && typeof errno.path === 'string') {
    if (errno.code === 'ENOENT') {
      return new StateflowError('NOT_FOUND', `No such file or directory: ${errno.path}.`, { path: errno.path }, { cause: err });
    }
    return new StateflowError(
      'STORE_IO',
      `Cannot access ${errno.path} (${errno.code}): check the path and its permissions.`,
      { path: errno.path, errno: errno.code },
      { cause: err },
    );
  }
  const message = err instanceof Error ? err.message : String(err);
  return new StateflowError('INTERNAL', `Unexpected failure: ${message}`, {}, { cause: err });
}

/**
 * Report a failure and return the exit code it maps to: one line on stderr, or under `--json`
 * one `{"error": {code, message, details}}` line on stdout (beside where results go).
 */
export function reportFailure(io: CliIo, json: boolean, err: unknown): ExitCode {
  const error = toStateflowError(err);
  if (json) {
    io.stdout.write(`${JSON.stringify({ error: error.toJSON() })}\n`);
  } else {
    io.stderr.write(`stateflow: ${error.message.replace(/\s*\n\s*/g, ' ')} [${error.code}]\n`);
  }
  return exitCodeFor(error.code);
}
