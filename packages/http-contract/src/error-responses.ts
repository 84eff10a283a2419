/**
 * The error answer of every route (`{ error: { code, type, message, details } }`, server README
 * "Errors") and, per status, what it means: the error responses of each route's contract.
 */
import { Type } from '@sinclair/typebox';
import { enumOf } from './json-schemas.js';
import type { SchemaOptions } from '@sinclair/typebox';
import { ErrorCode } from '@stateflow/core';

/** What each error status means, as the OpenAPI document says it. */
export const ERROR_TEXT = {
  400: 'Bad input (INPUT_INVALID, PATH_*, PATCH_INVALID, …)',
  401: 'Missing or unknown API key, or a server that requires its token without it (UNAUTHORIZED)',
  403: 'Without API keys: a Host that is not localhost/127.0.0.1/[::1], or a non-loopback Origin; with API keys: a local/ ladder, or a route for the store\'s owner only (FORBIDDEN)',
  404: 'Unknown ladder, or unknown or foreign session, stream or revision (NOT_FOUND, SESSION_NOT_FOUND, REVISION_NOT_FOUND, TRANSITION_NOT_FOUND)',
  405: 'Method not allowed',
  406: 'The Accept header does not accept the answer (MCP)',
  409: 'Stale If-Match or expected revision (CONFLICT), a merge with open conflicts (MERGE_CONFLICT), or a paused session (SESSION_PAUSED)',
  410: 'Session closed or expired (SESSION_CLOSED), or history no longer retained (HISTORY_NOT_RETAINED)',
  413: 'Request body over the limit (BODY_TOO_LARGE)',
  415: 'Request body not sent as Content-Type: application/json (MEDIA_TYPE_UNSUPPORTED)',
  422: 'The answer would pass a response cap (RESPONSE_TOO_LARGE), or streams with no common origin (MERGE_UNRELATED)',
  429: 'With API keys: over the per-key request rate or model-call limit (RATE_LIMITED); Retry-After says when to retry',
  500: 'The server failed (INTERNAL, STORE_IO, STORE_CORRUPT); the body names the request id of the server log',
  502: 'The model upstream failed (MODEL_FAILED)',
  503: 'No model configured (MODEL_NOT_CONFIGURED, MODEL_UNAVAILABLE), or the store busy or to be reopened',
} as const;

/** An error status the contract documents. */
export type ErrorStatus = keyof typeof ERROR_TEXT;

/** The error body, described as the meaning of one status. */
export function errorBody(options: SchemaOptions = {}) {
  return Type.Object(
    {
      error: Type.Object({
        code: enumOf(Object.values(ErrorCode), { description: 'Stable Stateflow error code (packages/core/errors.md)' }),
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

/** The statuses every route can answer: 403 (the keyless loopback guard), 429 (the per-key rate), 500 (the server's failure). */
type EveryRoute = 403 | 429 | 500;

/** The error responses of a route: the given statuses plus {@link EveryRoute}'s, each the error body. */
export function errors<S extends ErrorStatus>(...statuses: S[]): Record<S | EveryRoute, ErrorBody> {
  const all = [...new Set<ErrorStatus>([...statuses, 403, 429, 500])].sort((a, b) => a - b);
  return Object.fromEntries(all.map((status) => [status, errorBody({ description: ERROR_TEXT[status] })])) as Record<S | EveryRoute, ErrorBody>;
}

/** The error responses of a route with a JSON request body: also 400 (a bad body), 413 and 415. */
export function bodyErrors<S extends ErrorStatus>(...statuses: S[]): Record<S | 400 | 413 | 415 | EveryRoute, ErrorBody> {
  return errors<S | 400 | 413 | 415>(...statuses, 400, 413, 415);
}
