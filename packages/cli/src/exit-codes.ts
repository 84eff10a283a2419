/**
 * Exit codes of `stateflow`, derived from the one table of error facts in core (`ERROR_FACTS`;
 * CONVENTIONS.md "Errors": "The CLI maps codes to exit codes … in one table").
 */
import { ERROR_FACTS, ExitCode } from '@stateflow/core/errors';
import type { ErrorCode } from '@stateflow/core/errors';

export { ExitCode };

/**
 * The exit code for an error code (core's `ERROR_FACTS[code].exitCode`): usage 2, not found 3,
 * conflict 4, corrupt 5, anything else 1.
 *
 * @param code - a stable {@link ErrorCode}.
 * @returns the process exit code `stateflow` ends with for that error.
 */
export function exitCodeFor(code: ErrorCode): ExitCode {
  return ERROR_FACTS[code].exitCode;
}
