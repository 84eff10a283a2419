/**
 * `@stateflow/core/errors`: the error class, its codes and the table of per-code facts alone,
 * without the path, patch and projection code the main entry loads. For processes that must
 * start fast and only raise or classify errors (the `stateflow` command's start-up). The values
 * are the same objects as the main entry's: an error made here is a `StateflowError` there.
 */
export { ErrorCode, StateflowError, isStateflowError } from './errors.js';
export type { ErrorDetails, ErrorDetailsByCode, NoDetails, StateflowErrorConstructor } from './errors.js';
export { missingPackage } from './missing-package.js';
export { ERROR_FACTS, ExitCode, HTTP_ERROR_STATUSES } from './error-facts.js';
export type { ErrorFacts, HttpErrorStatus } from './error-facts.js';
