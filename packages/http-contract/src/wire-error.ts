/**
 * The error answer on the wire, both ways, in one place: the server encodes a `StateflowError`
 * as `{ error: { code, type, message, details } }` with the status of its code (core's
 * `ERROR_FACTS`), and every client — `@stateflow/client`, the stdio MCP proxy — decodes such a
 * body back into the `StateflowError` it was, after checking its code and the shape of its
 * details (`ERROR_DETAILS`). `@stateflow/http-contract/wire-error` loads this module alone,
 * without the route schemas.
 */
import { Value } from '@sinclair/typebox/value';
import { ERROR_FACTS, ErrorCode, StateflowError } from '@stateflow/core/errors';
import type { ErrorDetailsByCode, HttpErrorStatus } from '@stateflow/core/errors';
import { DETAILS_SCHEMA_OF } from './error-details.js';
import type { SchemaOf } from './error-details.js';

/**
 * The body of every failed answer, OpenAI-compatible (`error.message`, `error.type`,
 * `error.code`) so OpenAI clients surface it, plus Stateflow's typed `details`.
 */
export interface WireErrorBody {
  error: { code: ErrorCode; type: 'invalid_request_error' | 'server_error'; message: string; details: unknown };
}

/** The status and body answering `err`. `type` is `server_error` for a 5xx, as OpenAI clients expect. */
export function encodeWireError(err: StateflowError): { status: HttpErrorStatus; body: WireErrorBody } {
  const status = ERROR_FACTS[err.code].httpStatus;
  return { status, body: { error: { code: err.code, type: status >= 500 ? 'server_error' : 'invalid_request_error', message: err.message, details: err.details } } };
}

/**
 * What an error answer's body decodes to: the `StateflowError` it carries, or what keeps it from
 * being one (`problem`, for the caller's message: "is not a Stateflow error body", "names the unknown
 * code …", "carries details that do not fit CONFLICT: /actual Expected number").
 */
export type DecodedWireError = { ok: true; error: StateflowError } | { ok: false; problem: string };

/** Decode the parsed JSON body of an error answer (see {@link DecodedWireError}). */
export function decodeWireError(body: unknown): DecodedWireError {
  const error = isObject(body) ? body['error'] : undefined;
  if (!isObject(error)) return { ok: false, problem: 'is not a Stateflow error body ({"error": {"code", "message", "details"}})' };
  const code = error['code'];
  if (!isErrorCode(code)) return { ok: false, problem: `names the unknown error code ${JSON.stringify(code)}` };
  const message = typeof error['message'] === 'string' ? error['message'] : code;
  return decodeOfCode(code, message, error['details'] ?? {});
}

/** The error of `code` with `details`, once they fit its schema. */
function decodeOfCode<C extends ErrorCode>(code: C, message: string, details: unknown): DecodedWireError {
  const schema: SchemaOf<ErrorDetailsByCode[C]> = DETAILS_SCHEMA_OF[code];
  if (!fits(schema, details)) {
    const first = Value.Errors(schema, details).First();
    return { ok: false, problem: `carries details that do not fit ${code}: ${first === undefined ? 'not an object' : `${first.path || '/'} ${first.message}`}` };
  }
  return { ok: true, error: new StateflowError(code, message, details) };
}

/** True when `value` passes `schema`, whose static type is `T`. */
function fits<T>(schema: SchemaOf<T>, value: unknown): value is T {
  return Value.Check(schema, value);
}

const CODES: ReadonlySet<unknown> = new Set(Object.values(ErrorCode));

function isErrorCode(value: unknown): value is ErrorCode {
  return CODES.has(value);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
