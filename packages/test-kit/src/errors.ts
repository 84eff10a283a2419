/**
 * Catching what a call throws, for tests that then assert on `err.code` (CONVENTIONS.md
 * "Tests": assert on the code, never on message text alone).
 *
 * Every helper fails the test when nothing is thrown. The `…Of` helpers also check that what
 * was thrown is a Stateflow error (of `code`, when given), and rethrow anything else as it was,
 * so a test that meets a foreign error reports that error, not a vague mismatch. The kit does
 * not import `@stateflow/core` (core's own tests use it), so a Stateflow error is recognised by
 * its shape: an `Error` with a string `code` and an object `details` (subclasses such as the
 * LangGraph saver's `CheckpointConflictError` included; Node's errno errors have no details).
 */

/** What a test reads of a Stateflow error. */
export interface CaughtError extends Error {
  readonly code: string;
  /** The code's details (`@stateflow/core` ErrorDetailsByCode), loosely typed for assertions. */
  readonly details: Record<string, any>;
}

/** The code and details of a Stateflow error, as a plain object (for `toEqual`). */
export interface Failure {
  code: string;
  details: Record<string, any>;
}

/** What `work` threw; fails when it returned. `work` must be synchronous. */
export function thrown(work: () => unknown): unknown {
  try {
    work();
  } catch (err) {
    return err;
  }
  throw new Error('expected the call to throw, but it returned');
}

/** What `work` (a promise, or a function returning one or throwing) rejected with; fails when it resolved. */
export async function rejected(work: Promise<unknown> | (() => unknown)): Promise<unknown> {
  try {
    await (typeof work === 'function' ? work() : work);
  } catch (err) {
    return err;
  }
  throw new Error('expected the call to reject, but it resolved');
}

/** True for a Stateflow error: an `Error` with a string `code` and an object `details`. */
export function isCaughtError(err: unknown): err is CaughtError {
  const { code, details } = err as { code?: unknown; details?: unknown };
  return err instanceof Error && typeof code === 'string' && typeof details === 'object' && details !== null;
}

/**
 * `err` as a Stateflow error of `code` (any code when omitted).
 * @throws `err` itself when it is not a Stateflow error; an Error naming both codes when the
 *   code differs (with `err` as its cause)
 */
export function asStateflowError(err: unknown, code?: string): CaughtError {
  if (!isCaughtError(err)) throw err;
  if (code !== undefined && err.code !== code) {
    throw new Error(`expected a StateflowError ${code}, got ${err.code}: ${err.message}`, { cause: err });
  }
  return err;
}

/** The Stateflow error (of `code`, when given) that synchronous `work` threw. */
export function errorOf(work: () => unknown, code?: string): CaughtError {
  return asStateflowError(thrown(work), code);
}

/** The Stateflow error (of `code`, when given) that `work` rejected with. */
export async function rejectionOf(work: Promise<unknown> | (() => unknown), code?: string): Promise<CaughtError> {
  return asStateflowError(await rejected(work), code);
}

/** `{ code, details }` of the Stateflow error that `work` rejected with. */
export async function failureOf(work: Promise<unknown> | (() => unknown), code?: string): Promise<Failure> {
  const err = await rejectionOf(work, code);
  return { code: err.code, details: err.details };
}
