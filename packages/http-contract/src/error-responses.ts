/**
 * The error answer of every route (`{ error: { code, type, message, details } }`, server README
 * "Errors") and, per status, what it means: the error responses of each route's contract. Which
 * codes a status carries is not written here but read from core's one table of error facts
 * (`ERROR_FACTS`), so the document names exactly the codes the server answers each status with.
 */
import { Type } from '@sinclair/typebox';
import type { SchemaOptions } from '@sinclair/typebox';
import { ERROR_FACTS, ErrorCode, HTTP_ERROR_STATUSES } from '@stateflow/core';
import type { HttpErrorStatus } from '@stateflow/core';
import { enumOf } from './json-schemas.js';

/** An error status the contract documents: the status of at least one error code. */
export type ErrorStatus = HttpErrorStatus;

/** The reason phrase of each error status (RFC 9110 §15.5–15.6; 429 and 431: RFC 6585). */
const REASON_PHRASE: Readonly<Record<ErrorStatus, string>> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  408: 'Request Timeout',
  409: 'Conflict',
  410: 'Gone',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  501: 'Not Implemented',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
};

/** The codes answered with `status`, in the order of `ERROR_FACTS` (never empty: see {@link ErrorStatus}). */
export function codesOfStatus(status: ErrorStatus): ErrorCode[] {
  return Object.values(ErrorCode).filter((code) => ERROR_FACTS[code].httpStatus === status);
}

/**
 * What each error status means, as the OpenAPI document says it: its reason phrase and every
 * code answered with it (`409` → `Conflict: CONFLICT, MERGE_CONFLICT, SESSION_PAUSED …`).
 */
export const ERROR_TEXT: Readonly<Record<ErrorStatus, string>> = Object.fromEntries(
  HTTP_ERROR_STATUSES.map((status) => [status, `${REASON_PHRASE[status]}: ${codesOfStatus(status).join(', ')} (their meanings and details: packages/core/errors.md)`]),
) as Record<ErrorStatus, string>;

/**
 * The error body, described as the meaning of one status; `code` is one of `codes` (default:
 * every code).
 */
export function errorBody(options: SchemaOptions = {}, codes: readonly ErrorCode[] = Object.values(ErrorCode)) {
  return Type.Object(
    {
      error: Type.Object({
        code: enumOf(codes, { description: 'Stable Stateflow error code (packages/core/errors.md)' }),
        type: Type.String({ description: 'invalid_request_error, or server_error for a 5xx (as OpenAI clients expect)' }),
        message: Type.String({ description: 'What went wrong and what to do next' }),
        details: Type.Unknown({ description: "The code's typed details (packages/core/errors.md)" }),
      }),
    },
    options,
  );
}

/** The schema of the error body. */
export type ErrorBody = ReturnType<typeof errorBody>;

/**
 * The statuses any request can meet whatever its route: 403 (the keyless loopback guard), 408
 * and 431 (Node's HTTP parser: a request that did not arrive in time, headers over the limit),
 * 429 (the per-key rate), 500 (the server's failure).
 */
export const EVERY_ROUTE_STATUSES = [403, 408, 429, 431, 500] as const satisfies readonly ErrorStatus[];

/** One of {@link EVERY_ROUTE_STATUSES}. */
type EveryRoute = (typeof EVERY_ROUTE_STATUSES)[number];

/** The response of one error status: the error body, its code one of the status's codes. */
function errorResponse(status: ErrorStatus): ErrorBody {
  return errorBody({ description: ERROR_TEXT[status] }, codesOfStatus(status));
}

/**
 * The error responses of a route that never touches the store: the given statuses plus
 * {@link EVERY_ROUTE_STATUSES}, each the error body.
 */
export function storelessErrors<S extends ErrorStatus>(...statuses: S[]): Record<S | EveryRoute, ErrorBody> {
  const all = [...new Set<ErrorStatus>([...statuses, ...EVERY_ROUTE_STATUSES])].sort((a, b) => a - b);
  return Object.fromEntries(all.map((status) => [status, errorResponse(status)])) as Record<S | EveryRoute, ErrorBody>;
}

/**
 * The error responses of a route: the given statuses, {@link EVERY_ROUTE_STATUSES}, and 503 —
 * any route that reads or writes the store can find it unreachable (a PostgreSQL store),
 * closing, or to be reopened.
 */
export function errors<S extends ErrorStatus>(...statuses: S[]): Record<S | EveryRoute | 503, ErrorBody> {
  return storelessErrors<S | 503>(...statuses, 503);
}

/** The error responses of a route with a JSON request body: also 400 (a bad body), 413 and 415. */
export function bodyErrors<S extends ErrorStatus>(...statuses: S[]): Record<S | 400 | 413 | 415 | EveryRoute | 503, ErrorBody> {
  return errors<S | 400 | 413 | 415>(...statuses, 400, 413, 415);
}
