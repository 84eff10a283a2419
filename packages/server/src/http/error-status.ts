/**
 * The one table mapping Stateflow error codes to HTTP statuses (CONVENTIONS.md "Errors";
 * issue 6 "errors map codes to statuses in one table").
 */
import { StateflowError, isStateflowError } from '@stateflow/core';
import type { ErrorCode } from '@stateflow/core';

/**
 * HTTP status per error code: 400 bad input, 401 no/unknown API key, 404 unknown (or another
 * user's) session, ladder or revision, 409 conflict or paused session, 410 closed/expired session
 * or history no longer retained, 502 the model upstream failed, 503 no model configured or store
 * busy, 500 everything that is the server's fault.
 */
export const HTTP_STATUS_BY_CODE: Readonly<Record<ErrorCode, number>> = {
  PATH_SYNTAX: 400,
  PATH_NOT_FOUND: 404,
  PATH_KIND: 400,
  INDEX_OUT_OF_RANGE: 400,
  OWNER_NOT_SELECTED: 400,
  PATCH_INVALID: 400,
  INPUT_INVALID: 400,
  CONFLICT: 409,
  REVISION_NOT_FOUND: 404,
  TRANSITION_NOT_FOUND: 404,
  HISTORY_NOT_RETAINED: 410,
  STREAM_INVALID: 400,
  STORE_CORRUPT: 500,
  STORE_LOCKED: 503,
  STORE_VERSION: 500,
  STORE_CLOSED: 503,
  STORE_IO: 500,
  CONFIG_INVALID: 400,
  SOURCE_UNRESOLVED: 400,
  BUDGET_EXCEEDED: 409,
  SESSION_NOT_FOUND: 404,
  SESSION_CLOSED: 410,
  SESSION_PAUSED: 409,
  MODEL_UNAVAILABLE: 503,
  MODEL_FAILED: 502,
  USAGE: 400,
  NOT_FOUND: 404,
  UNAUTHORIZED: 401,
  INTERNAL: 500,
};

/**
 * Error body of every failed request, OpenAI-compatible (`error.message`, `error.type`,
 * `error.code`) so OpenAI clients surface it, plus Stateflow's typed `details`.
 */
export interface HttpErrorBody {
  error: { code: ErrorCode; type: string; message: string; details: unknown };
}

/**
 * Translate any thrown value into a status and body. Foreign errors (fastify validation, JSON
 * body parsing) become INPUT_INVALID; anything else unknown becomes INTERNAL without leaking
 * its message.
 */
export function toHttpError(err: unknown): { status: number; body: HttpErrorBody } {
  const sf = asStateflowError(err);
  const status = HTTP_STATUS_BY_CODE[sf.code] ?? 500;
  return {
    status,
    body: { error: { code: sf.code, type: status >= 500 ? 'server_error' : 'invalid_request_error', message: sf.message, details: sf.details } },
  };
}

function asStateflowError(err: unknown): StateflowError {
  if (isStateflowError(err)) return err;
  const e = err as { statusCode?: number; validation?: unknown; message?: string; code?: string } | null;
  if (e !== null && typeof e === 'object' && typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
    if (e.statusCode === 404) return new StateflowError('NOT_FOUND', e.message ?? 'Not found', {}, { cause: err });
    return new StateflowError('INPUT_INVALID', `Bad request: ${e.message ?? 'invalid input'}`, { reason: e.code ?? 'bad request' }, { cause: err });
  }
  return new StateflowError('INTERNAL', 'Internal server error; see the server log', {}, { cause: err });
}
