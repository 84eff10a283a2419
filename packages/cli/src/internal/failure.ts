/**
 * The CLI's one boundary for failures: foreign errors become {@link StateflowError}s, every
 * failure is reported as one actionable stderr line (or a `{ "error": … }` object under
 * `--json`), and its code picks the exit code from the table in `exit-codes.ts`.
 */
import { CommanderError } from 'commander';
import { StateflowError, isStateflowError } from '@stateflow/core/errors';
import { exitCodeFor, type ExitCode } from '../exit-codes.js';
import type { CliIo } from '../cli-io.js';

/**
 * Translate anything thrown into a {@link StateflowError}: commander's errors (`CommanderError`,
 * by class; its `code` becomes `details.reason`) → USAGE pointing to the help of `help` (the
 * command line that failed to parse, e.g. `stateflow import`); file system errors by their errno
 * (ENOENT/ENOTDIR → NOT_FOUND; EISDIR, EACCES/EPERM → USAGE; other errno errors naming a path →
 * STORE_IO), each naming the path when it is known; anything else → INTERNAL.
 */
function toStateflowError(err: unknown, help: string): StateflowError {
  if (isStateflowError(err)) return err;
  if (err instanceof CommanderError) {
    // Commander words its messages for its own output ("error: unknown option '--x'"); the
    // prefix is dropped so the line reads as ours. The one text edit of a foreign error here.
    const message = err.message.replace(/^error: /, '');
    return new StateflowError('USAGE', `${message.replace(/\.?$/, '.')} Run "${help} --help" for usage.`, {
      reason: err.code,
    });
  }
  const fileError = fromFileSystem(err);
  if (fileError !== null) return fileError;
  const message = err instanceof Error ? err.message : String(err);
  return new StateflowError('INTERNAL', `Unexpected failure: ${message}`, {}, { cause: err });
}

/**
 * The exit code of a run that threw `err`, reporting it unless commander has answered already:
 * commander's own exits with code 0 (`--help`, `--version`) are successes; a command group
 * called without a command (`stateflow`, `stateflow ladder`: commander printed its help,
 * `commander.help`) is a usage failure whose help is the whole answer; anything else is
 * reported: one line on stderr, or under `--json` one `{"error": {code, message, details}}`
 * line on stdout (beside where results go). `format.help` is the command whose parsing failed
 * (default `stateflow`): a usage error points to its help.
 */
export function failureExit(io: CliIo, format: { json: boolean; help?: string }, err: unknown): ExitCode {
  if (err instanceof CommanderError && err.exitCode === 0) return 0;
  if (err instanceof CommanderError && err.code === 'commander.help') return exitCodeFor('USAGE');
  return reportFailure(io, format, err);
}

/** Report a failure (see {@link failureExit}) and return the exit code its code maps to. */
function reportFailure(io: CliIo, format: { json: boolean; help?: string }, err: unknown): ExitCode {
  const error = toStateflowError(err, format.help ?? 'stateflow');
  if (format.json) {
    io.stdout.write(`${JSON.stringify({ error: error.toJSON() })}\n`);
  } else {
    io.stderr.write(`stateflow: ${error.message.replace(/\s*\n\s*/g, ' ')} [${error.code}]\n`);
  }
  return exitCodeFor(error.code);
}

/** Errno codes of a path that does not exist. */
const MISSING = new Set(['ENOENT', 'ENOTDIR']);
/** Errno codes of a path this user may not use. */
const DENIED = new Set(['EACCES', 'EPERM']);

function fromFileSystem(err: unknown): StateflowError | null {
  if (!(err instanceof Error)) return null;
  const { code, path } = err as NodeJS.ErrnoException;
  if (typeof code !== 'string' || !/^E[A-Z]+$/.test(code)) return null;
  const where = typeof path === 'string' ? path : 'a path given on the command line';
  const details = typeof path === 'string' ? { path, errno: code } : { errno: code };
  if (MISSING.has(code)) {
    return new StateflowError('NOT_FOUND', `No such file or directory: ${where}; check the path.`, { file: typeof path === 'string' ? path : '' }, { cause: err });
  }
  if (code === 'EISDIR') {
    return new StateflowError('USAGE', `${where} is a directory: pass the path of a file.`, details, { cause: err });
  }
  if (DENIED.has(code)) {
    return new StateflowError('USAGE', `Permission denied for ${where} (${code}): check its permissions or pass another path.`, details, { cause: err });
  }
  if (typeof path !== 'string') return null;
  return new StateflowError('STORE_IO', `Cannot access ${path} (${code}): check the path and its permissions.`, { location: path, code }, { cause: err });
}

/**
 * Give a file system error that lacks its path (e.g. EISDIR from reading a directory's
 * descriptor) the path of `file`, so the boundary can name it; other values pass through.
 */
export function withPath(err: unknown, file: string): unknown {
  const errno = err as NodeJS.ErrnoException;
  if (err instanceof Error && typeof errno.code === 'string' && errno.path === undefined) errno.path = file;
  return err;
}
