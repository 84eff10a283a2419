/**
 * HTTP statuses of error codes, and the retry advice a response carries: both derived from the
 * one table of error facts in core (`ERROR_FACTS`; CONVENTIONS.md "Errors").
 */
import type { ErrorObject } from 'ajv';
import { ERROR_FACTS, StateflowError, elidePath, isStateflowError } from '@stateflow/core';
import type { ErrorCode } from '@stateflow/core';
import { encodeWireError } from '@stateflow/http-contract/wire-error';
import type { WireErrorBody } from '@stateflow/http-contract/wire-error';
import { validationError } from './request-validation.js';

/**
 * HTTP status per error code (core's `ERROR_FACTS[code].httpStatus`): 400 bad input, 401 no/unknown
 * API key, 403 a keyless server refusing a non-loopback `Host`/`Origin`, 413 body too large, 415
 * body not JSON, 404 unknown (or another user's) session, ladder or revision, 409 conflict or
 * paused session, 410 closed/expired session or history no longer retained, 502 the model
 * upstream failed, 503 no model configured, store busy or to be reopened, 500 everything that is
 * the server's fault.
 */
export const HTTP_STATUS_BY_CODE: Readonly<Record<ErrorCode, number>> = Object.freeze(
  Object.fromEntries(Object.entries(ERROR_FACTS).map(([code, facts]) => [code, facts.httpStatus])) as Record<ErrorCode, number>,
);

/**
 * The `x-should-retry` header value for a failed response: OpenAI clients (and others) retry 409,
 * 429 and 5xx by default; this says whether retrying the same request unchanged can succeed
 * (core's `ERROR_FACTS[code].retryable`), so a stale revision or a missing model is not retried.
 */
export function shouldRetry(code: ErrorCode): 'true' | 'false' {
  return ERROR_FACTS[code].retryable ? 'true' : 'false';
}

/**
 * Error body of every failed request (the contract's wire codec, `@stateflow/http-contract`'s
 * `encodeWireError`, which clients decode with `decodeWireError`).
 */
export type HttpErrorBody = WireErrorBody;

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
  return encodeWireError(asStateflowError(err, request));
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
  if (e.statusCode === 404) return new StateflowError('NOT_FOUND', elidePath(e.message ?? 'Not found'), { route: elidePath(e.message ?? '') }, { cause: err });
  return new StateflowError('INPUT_INVALID', `Bad request: ${elidePath(e.message ?? 'invalid input')}`, { reason: e.code ?? 'bad request' }, { cause: err });
}
