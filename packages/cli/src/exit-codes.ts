/**
 * The one table from error code to process exit code (CONVENTIONS.md "Errors": "The CLI maps
 * codes to exit codes … in one table"; issue 7 "Errors").
 */
import type { ErrorCode } from '@stateflow/core';

/** Process exit codes of `stateflow`. */
export const ExitCode = {
  /** Success. */
  OK: 0,
  /** Any failure without a more specific class below. */
  FAILURE: 1,
  /** Bad command line or bad input (argument, path, patch, file contents). */
  USAGE: 2,
  /** The named store, stream, revision, path or session does not exist. */
  NOT_FOUND: 3,
  /** Optimistic-concurrency conflict or a store held by another process. */
  CONFLICT: 4,
  /** Stored data failed verification (audit problems, broken chain, undecodable records). */
  CORRUPT: 5,
} as const;

/** One of the values of {@link ExitCode}. */
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** Every code known when this table was written; a code added later maps to FAILURE (1). */
const exitCodeByErrorCode: Partial<Record<ErrorCode, ExitCode>> = {
  USAGE: ExitCode.USAGE,
  INPUT_INVALID: ExitCode.USAGE,
  PATH_SYNTAX: ExitCode.USAGE,
  PATH_KIND: ExitCode.USAGE,
  PATCH_INVALID: ExitCode.USAGE,
  STREAM_INVALID: ExitCode.USAGE,
  OWNER_NOT_SELECTED: ExitCode.USAGE,
  CONFIG_INVALID: ExitCode.USAGE,
  NOT_FOUND: ExitCode.NOT_FOUND,
  PATH_NOT_FOUND: ExitCode.NOT_FOUND,
  INDEX_OUT_OF_RANGE: ExitCode.NOT_FOUND,
  REVISION_NOT_FOUND: ExitCode.NOT_FOUND,
  TRANSITION_NOT_FOUND: ExitCode.NOT_FOUND,
  HISTORY_NOT_RETAINED: ExitCode.NOT_FOUND,
  SESSION_NOT_FOUND: ExitCode.NOT_FOUND,
  CONFLICT: ExitCode.CONFLICT,
  STORE_LOCKED: ExitCode.CONFLICT,
  SESSION_CLOSED: ExitCode.CONFLICT,
  SESSION_PAUSED: ExitCode.CONFLICT,
  STORE_CORRUPT: ExitCode.CORRUPT,
  STORE_VERSION: ExitCode.CORRUPT,
  STORE_CLOSED: ExitCode.FAILURE,
  STORE_IO: ExitCode.FAILURE,
  STORE_UNAVAILABLE: ExitCode.FAILURE,
  REOPEN_REQUIRED: ExitCode.FAILURE,
  SOURCE_UNRESOLVED: ExitCode.FAILURE,
  BUDGET_EXCEEDED: ExitCode.FAILURE,
  MODEL_UNAVAILABLE: ExitCode.FAILURE,
  MODEL_FAILED: ExitCode.FAILURE,
  UNAUTHORIZED: ExitCode.FAILURE,
  INTERNAL: ExitCode.FAILURE,
};

/**
 * The exit code for an error code: usage 2, not found 3, conflict 4, corrupt 5, anything else 1.
 *
 * @param code - a stable {@link ErrorCode}.
 * @returns the process exit code `stateflow` ends with for that error.
 */
export function exitCodeFor(code: ErrorCode): ExitCode {
  return exitCodeByErrorCode[code] ?? ExitCode.FAILURE;
}
