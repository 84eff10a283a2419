/**
 * The one table mapping Stateflow error codes to HTTP statuses (CONVENTIONS.md "Errors";
 * issue 6 "errors map codes to statuses in one table").
 */
import type { ErrorObject } from 'ajv';
import { StateflowError, elidePath, isStateflowError } from '@stateflow/core';
import type { ErrorCode } from '@stateflow/core';
import { validationError } from './request-validation.js';

/**
 * HTTP status per error code: 400 bad input, 401 no/unknown API key, 403 a keyless server
 * refusing a non-loopback `Host`/`Origin`, 413 body too large, 415 body not JSON, 404 unknown (or another
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
  STORE_UNAVAILABLE: 503,
  REOPEN_REQUIRED: 503,
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
  FORBIDDEN: 403,
  BODY_TOO_LARGE: 413,
  MEDIA_TYPE_UNSUPPORTED: 415,
  INTERNAL: 500,
};

/**
 * Error body of every failed request, OpenAI-compatible (`error.message`, `error.type`,
 * `error.code`) so OpenAI clients surface it, plus Stateflow's typed `details`.
 */
export interface HttpErrorBody {
  error: { code: ErrorCode; type: string; message: string; details: unknown };
}

/** What the request said, for translating fastify's errors about it. */
export interface RequestFacts {
  /** The body limit of the route, in bytes. */
  bodyLimit?: number;
  /** The request's `Content-Type` header. */
  contentType?: string;
}

/**
 * Translate any thrown value into a status and body. fastify's client errors become typed codes
 * (schema validation and bad JSON → INPUT_INVALID, a body over the limit → BODY_TOO_LARGE, a
 * body that is not JSON → MEDIA_TYPE_UNSUPPORTED, a malformed URL → INPUT_INVALID, no route →
 * NOT_FOUND); anything else unknown becomes INTERNAL without leaking its message.
 */
export function toHttpError(err: unknown, request: RequestFacts = {}): { status: number; body: HttpErrorBody } {
  const sf = asStateflowError(err, request);
  const status = HTTP_STATUS_BY_CODE[sf.code] ?? 500;
  return {
    status,
    body: { error: { code: sf.code, type: status >= 500 ? 'server_error' : 'invalid_request_error', message: sf.message, details: sf.details } },
  };
}

function asStateflowError(err: unknown, request: RequestFacts): StateflowError {
  if (isStateflowError(err)) return err;
  const e = err as { statusCode?: number; validation?: unknown; validationContext?: string; message?: string; code?: string } | null;
  if (e === null || typeof e !== 'object' || typeof e.statusCode !== 'number' || e.statusCode < 400 || e.statusCode >= 500) {
    return new StateflowError('INTERNAL', 'Internal server error; see the server log', {}, { cause: err });
  }
  if (Array.isArray(e.validation)) return validationError(e.validation as ErrorObject[], e.validationContext ?? 'request', err);
  switch (e.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new StateflowError(
        'BODY_TOO_LARGE',
        `The request body is larger than ${request.bodyLimit ?? 'the limit of'} bytes; send a smaller body.`,
        { limit: request.bodyLimit ?? 0 },
        { cause: err },
      );
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE': {
      const contentType = elidePath(request.contentType ?? '');
      return new StateflowError(
        'MEDIA_TYPE_UNSUPPORTED',
        `The request body must be JSON, sent with "Content-Type: application/json"; got ${contentType === '' ? 'no Content-Type' : JSON.stringify(contentType)}.`,
        { contentType },
        { cause: err },
      );
    }
    case 'FST_ERR_BAD_URL':
      return new StateflowError('INPUT_INVALID', 'The URL is not valid: a path segment has a malformed percent-encoding (such as %ZZ).', { field: 'url', reason: 'bad-url' }, { cause: err });
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new StateflowError('INPUT_INVALID', `The request body is not valid JSON (${elidePath(e.message ?? 'parse error')}).`, { field: 'body', reason: 'json' }, { cause: err });
  }
  if (e.statusCode === 404) return new StateflowError('NOT_FOUND', elidePath(e.message ?? 'Not found'), {}, { cause: err });
  return new StateflowError('INPUT_INVALID', `Bad request: ${elidePath(e.message ?? 'invalid input')}`, { reason: e.code ?? 'bad request' }, { cause: err });
}
