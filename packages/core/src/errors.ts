/**
 * The one error model of Stateflow (DESIGN.md "Errors"; CONVENTIONS.md "Errors").
 *
 * Every failure anywhere in Stateflow is a {@link StateflowError} with a stable `code`
 * (declared once in {@link ErrorCode}, never renamed or reused), typed `details` per code, a
 * message a person can act on, and `cause` when it wraps a foreign error. Transports translate
 * codes in one table each (CLI exit codes, HTTP statuses, MCP `isError`).
 */

/** Stable error codes. The value equals the key; `errors.md` documents each one. */
export const ErrorCode = {
  // --- paths and reads (core) ---
  PATH_SYNTAX: 'PATH_SYNTAX',
  PATH_NOT_FOUND: 'PATH_NOT_FOUND',
  PATH_KIND: 'PATH_KIND',
  INDEX_OUT_OF_RANGE: 'INDEX_OUT_OF_RANGE',
  OWNER_NOT_SELECTED: 'OWNER_NOT_SELECTED',
  // --- patches (core) ---
  PATCH_INVALID: 'PATCH_INVALID',
  // --- tool inputs (tools) ---
  INPUT_INVALID: 'INPUT_INVALID',
  // --- store ---
  CONFLICT: 'CONFLICT',
  REVISION_NOT_FOUND: 'REVISION_NOT_FOUND',
  TRANSITION_NOT_FOUND: 'TRANSITION_NOT_FOUND',
  HISTORY_NOT_RETAINED: 'HISTORY_NOT_RETAINED',
  STREAM_INVALID: 'STREAM_INVALID',
  STORE_CORRUPT: 'STORE_CORRUPT',
  STORE_LOCKED: 'STORE_LOCKED',
  STORE_VERSION: 'STORE_VERSION',
  STORE_CLOSED: 'STORE_CLOSED',
  STORE_IO: 'STORE_IO',
  STORE_UNAVAILABLE: 'STORE_UNAVAILABLE',
  REOPEN_REQUIRED: 'REOPEN_REQUIRED',
  // --- ladders, slates and sessions ---
  CONFIG_INVALID: 'CONFIG_INVALID',
  SOURCE_UNRESOLVED: 'SOURCE_UNRESOLVED',
  BUDGET_EXCEEDED: 'BUDGET_EXCEEDED',
  SESSION_NOT_FOUND: 'SESSION_NOT_FOUND',
  SESSION_CLOSED: 'SESSION_CLOSED',
  SESSION_PAUSED: 'SESSION_PAUSED',
  MODEL_UNAVAILABLE: 'MODEL_UNAVAILABLE',
  MODEL_FAILED: 'MODEL_FAILED',
  // --- transports and CLI ---
  USAGE: 'USAGE',
  NOT_FOUND: 'NOT_FOUND',
  UNAUTHORIZED: 'UNAUTHORIZED',
  FORBIDDEN: 'FORBIDDEN',
  BODY_TOO_LARGE: 'BODY_TOO_LARGE',
  MEDIA_TYPE_UNSUPPORTED: 'MEDIA_TYPE_UNSUPPORTED',
  INTERNAL: 'INTERNAL',
} as const;

/** Union of every stable error code. */
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/**
 * Details carried by each code. Codes not listed carry a free-form record.
 * Paths are the caller's path text; `column` is 1-based.
 */
export interface ErrorDetailsByCode {
  PATH_SYNTAX: { path: string; column: number };
  PATH_NOT_FOUND: { path: string; at?: string };
  PATH_KIND: { path: string; expected: string; actual: string; at?: string };
  INDEX_OUT_OF_RANGE: { path: string; index: number | string; length: number; at?: string };
  OWNER_NOT_SELECTED: { path?: string; owner: string };
  PATCH_INVALID: { reason: string; at?: string; index?: string; length?: number; problem?: string };
  INPUT_INVALID: { field?: string; reason?: string };
  CONFLICT: { stream: string; expected: number | 'none' | 'any'; actual: number };
  REVISION_NOT_FOUND: { stream: string; rev: number; head: number };
  TRANSITION_NOT_FOUND: { seq: number; lastSeq: number };
  HISTORY_NOT_RETAINED: { stream: string; rev: number; origin: number };
  STORE_CORRUPT: { stream?: string; key?: string; file?: string; offset?: number; detail?: string };
  STORE_LOCKED: { dir: string; pid?: number };
  REOPEN_REQUIRED: { location: string | null; failure: ErrorCode };
  STORE_VERSION: { found: unknown; supported: number };
  STORE_UNAVAILABLE: { url?: string; dir?: string; outcome?: 'not-sent' | 'unknown' };
  SESSION_NOT_FOUND: { session: string };
  SESSION_CLOSED: { session: string; status: string };
  SESSION_PAUSED: { session: string };
  FORBIDDEN: { header: string; value: string };
  BODY_TOO_LARGE: { limit: number };
  MEDIA_TYPE_UNSUPPORTED: { contentType: string };
}

/** The details type for a given code. */
export type ErrorDetails<C extends ErrorCode> = C extends keyof ErrorDetailsByCode
  ? ErrorDetailsByCode[C]
  : Record<string, unknown>;

/**
 * The single error class of Stateflow.
 *
 * @example
 * throw new StateflowError('PATH_SYNTAX', 'Unexpected "*" at column 5 of "cwd.*"', { path: 'cwd.*', column: 5 });
 */
export class StateflowError<C extends ErrorCode = ErrorCode> extends Error {
  /** Stable machine-readable code; switch on this, never on `message`. */
  readonly code: C;
  /** Typed details for this code (paths, columns, revisions, …). */
  readonly details: ErrorDetails<C>;

  constructor(code: C, message: string, details?: ErrorDetails<C>, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'StateflowError';
    this.code = code;
    this.details = (details ?? {}) as ErrorDetails<C>;
  }

  /** Plain JSON form used by transports: `{ code, message, details }`. */
  toJSON(): { code: C; message: string; details: ErrorDetails<C> } {
    return { code: this.code, message: this.message, details: this.details };
  }
}

/** True when `err` is a {@link StateflowError}, optionally with one of the given codes. */
export function isStateflowError<C extends ErrorCode>(
  err: unknown,
  ...codes: C[]
): err is StateflowError<C> {
  return err instanceof StateflowError && (codes.length === 0 || codes.includes(err.code as C));
}
