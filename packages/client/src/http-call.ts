/**
 * One HTTP request to a Stateflow server and the translation of its outcome: a JSON answer, a
 * Stateflow error body (`{error: {code, message, details}}`) back into the `StateflowError` it
 * was on the server, and a failed connection into `STORE_UNAVAILABLE`.
 */
import { StateflowError } from '@stateflow/core';
import { CLIENT_HEADER, LAST_SEQ_HEADER, SURFACE_HEADER, TOKEN_HEADER } from '@stateflow/http-contract/headers';

/** Where requests go and how they authenticate. */
export interface ServerEndpoint {
  /** Base URL, e.g. `http://127.0.0.1:41234` (no trailing slash needed). */
  url: string;
  /** The server's token from its discovery file, sent as `X-Stateflow-Token`. */
  token?: string;
  /** An API key of a server with `--keys`, sent as `Authorization: Bearer <key>`. */
  apiKey?: string;
  /** The calling surface for `meta.writer` (`cli`), sent as `X-Stateflow-Surface` (server README "Who wrote it"). */
  surface?: 'cli';
  /** The calling program, `name/version`, for `meta.writer.client`, sent as `X-Stateflow-Client`. */
  client?: string;
}

/** Default time a request may take before it fails with `STORE_UNAVAILABLE`, in ms. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;

/** One request. */
export interface CallOptions {
  method?: 'GET' | 'POST';
  /** Query parameters; `undefined` values are left out, arrays repeat the name. */
  query?: Record<string, string | number | readonly string[] | undefined>;
  /** JSON body (POST). */
  body?: unknown;
  /** Time limit in ms; `null` for none (audit). Default {@link DEFAULT_REQUEST_TIMEOUT_MS}. */
  timeoutMs?: number | null;
  signal?: AbortSignal;
}

/** A successful answer: the parsed JSON body, the last seq the server reported, all headers. */
export interface CallResult<T> {
  body: T;
  lastSeq: number | null;
  headers: Headers;
}

/** Request headers authenticating `endpoint` (and naming its surface, when it has one). */
export function authHeaders(endpoint: ServerEndpoint): Record<string, string> {
  const headers: Record<string, string> = {};
  if (endpoint.token !== undefined) headers[TOKEN_HEADER] = endpoint.token;
  if (endpoint.apiKey !== undefined) headers['authorization'] = `Bearer ${endpoint.apiKey}`;
  if (endpoint.surface !== undefined) headers[SURFACE_HEADER] = endpoint.surface;
  if (endpoint.client !== undefined) headers[CLIENT_HEADER] = endpoint.client;
  return headers;
}

/** `endpoint.url` + `route` + the query string. */
export function endpointUrl(endpoint: ServerEndpoint, route: string, query: CallOptions['query'] = {}): URL {
  const url = new URL(route, endpoint.url.endsWith('/') ? endpoint.url : `${endpoint.url}/`);
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) url.searchParams.append(name, String(one));
  }
  return url;
}

/**
 * Send one request and parse the JSON answer.
 * @throws StateflowError with the server's code for an error answer; `STORE_UNAVAILABLE`
 *   `{ url, outcome }` when the server cannot be reached (`outcome: 'not-sent'`, nothing
 *   changed) or the connection broke or timed out after the request was sent (`'unknown'`).
 */
export async function callServer<T>(endpoint: ServerEndpoint, route: string, options: CallOptions = {}): Promise<CallResult<T>> {
  const url = endpointUrl(endpoint, route, options.query);
  const timeoutMs = options.timeoutMs === undefined ? DEFAULT_REQUEST_TIMEOUT_MS : options.timeoutMs;
  const signals = [options.signal, timeoutMs === null ? undefined : AbortSignal.timeout(timeoutMs)].filter(
    (s): s is AbortSignal => s !== undefined,
  );
  const headers: Record<string, string> = { accept: 'application/json', ...authHeaders(endpoint) };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  let text: string;
  try {
    response = await fetch(url, {
      method: options.method ?? (options.body === undefined ? 'GET' : 'POST'),
      headers,
      ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
      ...(signals.length === 0 ? {} : { signal: AbortSignal.any(signals) }),
    });
    text = await response.text();
  } catch (err) {
    if (options.signal?.aborted === true) throw err;
    throw unreachable(endpoint, err);
  }
  const lastSeqText = response.headers.get(LAST_SEQ_HEADER);
  const lastSeq = lastSeqText === null ? null : Number(lastSeqText);
  let body: unknown;
  try {
    body = text === '' ? null : JSON.parse(text);
  } catch (cause) {
    throw new StateflowError('INTERNAL', `The server at ${endpoint.url} answered ${route} with HTTP ${response.status} and a body that is not JSON.`, {}, { cause });
  }
  if (!response.ok) throw await serverError(response.status, body, endpoint, route);
  return { body: body as T, lastSeq: Number.isSafeInteger(lastSeq) ? lastSeq : null, headers: response.headers };
}

/**
 * The `StateflowError` an error answer carries (its code, message and details, decoded by the
 * contract's wire codec); `INTERNAL` naming what is wrong when the body is not one (no error
 * body, an unknown code, details that do not fit the code).
 */
export async function serverError(status: number, body: unknown, endpoint: ServerEndpoint, route: string): Promise<StateflowError> {
  // The codec checks details with TypeBox: only an error answer loads it (the CLI starts without).
  const { decodeWireError } = await import('@stateflow/http-contract/wire-error');
  const decoded = decodeWireError(body);
  if (decoded.ok) return decoded.error;
  return new StateflowError('INTERNAL', `The server at ${endpoint.url} answered ${route} with HTTP ${status}, and its body ${decoded.problem}.`, {});
}

/**
 * `STORE_UNAVAILABLE` for a failed connection. A refused connection never reached a server
 * (`outcome: 'not-sent'`); anything else — a reset, a server killed mid-request, a timeout — may
 * have happened after the server applied a write (`'unknown'`).
 */
export function unreachable(endpoint: ServerEndpoint, err: unknown): StateflowError<'STORE_UNAVAILABLE'> {
  const cause = (err as { cause?: { code?: unknown } }).cause;
  const refused = cause?.code === 'ECONNREFUSED';
  const timedOut = (err as { name?: unknown }).name === 'TimeoutError';
  const why = refused ? 'refused the connection' : timedOut ? 'did not answer in time' : 'closed the connection before answering';
  const next = refused
    ? 'start it again (stateflow serve, or any stateflow mcp for this store)'
    : 'the request may or may not have been applied: read the state before retrying a write';
  return new StateflowError(
    'STORE_UNAVAILABLE',
    `The stateflow server at ${endpoint.url} ${why}; ${next}.`,
    { url: endpoint.url, outcome: refused ? 'not-sent' : 'unknown' },
    { cause: err },
  );
}
