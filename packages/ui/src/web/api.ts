/**
 * The page's one way to the server: JSON requests with the credential (auth.ts), errors as
 * {@link ApiError} with the server's stable `code`, and the watch stream read from a streamed
 * `fetch` as Server-Sent Events.
 */
import { credential } from './auth.js';
import type { Transition } from './types.js';

/** An error answered by the server (`{ error: { code, message, details } }`) or the network. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

/** Called when a request answers 401, so the page can ask for a key. */
let onUnauthorized: () => void = () => undefined;

/** Set what happens on a 401. */
export function handleUnauthorized(fn: () => void): void {
  onUnauthorized = fn;
}

function headers(extra: Record<string, string> = {}): Record<string, string> {
  const value = credential();
  return value === null ? extra : { ...extra, authorization: `Bearer ${value}` };
}

/** Query string of defined parameters. */
export function query(params: Record<string, string | number | boolean | undefined | null>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined && value !== null) search.set(key, String(value));
  const text = search.toString();
  return text === '' ? '' : `?${text}`;
}

async function parse<T>(response: Response): Promise<T> {
  const body = (await response.json().catch(() => null)) as { error?: { code?: string; message?: string; details?: Record<string, unknown> } } | null;
  if (response.ok) return body as T;
  if (response.status === 401) onUnauthorized();
  const error = body?.error;
  throw new ApiError(response.status, error?.code ?? 'HTTP_ERROR', error?.message ?? `HTTP ${response.status}`, error?.details ?? {});
}

/** `GET path` as JSON. */
export async function get<T>(path: string, signal?: AbortSignal): Promise<T> {
  return parse<T>(await fetch(path, { headers: headers(), ...(signal === undefined ? {} : { signal }) }));
}

/** `POST path` with a JSON body. */
export async function post<T>(path: string, body: unknown): Promise<T> {
  return parse<T>(await fetch(path, { method: 'POST', headers: headers({ 'content-type': 'application/json' }), body: JSON.stringify(body) }));
}

/** `DELETE path` (no body). */
export async function del<T>(path: string): Promise<T> {
  return parse<T>(await fetch(path, { method: 'DELETE', headers: headers() }));
}

/** `GET path` as a streamed `fetch` read as Server-Sent Events (the credential in a header, which `EventSource` cannot send). */
export async function* events(path: string, signal: AbortSignal): AsyncGenerator<{ id?: string; event?: string; data: string }> {
  const response = await fetch(path, { headers: headers({ accept: 'text/event-stream' }), signal });
  if (!response.ok || response.body === null) await parse(response);
  if (response.body !== null) yield* serverSentEvents(response.body);
}

/**
 * Follow `GET /v1/watch` from `from` (exclusive), calling `onTransition` per event, reconnecting
 * with `Last-Event-ID` after a drop (1 s, then up to 10 s apart). Ends when `signal` aborts.
 * `onState` hears `'live'` when the stream is open and `'reconnecting'` after a drop.
 */
export async function watch(
  from: number,
  onTransition: (t: Transition) => void,
  signal: AbortSignal,
  onState?: (state: 'live' | 'reconnecting') => void,
): Promise<void> {
  let last = from;
  let delay = 1000;
  while (!signal.aborted) {
    try {
      const response = await fetch(`/v1/watch${query({ from: last })}`, {
        headers: headers({ accept: 'text/event-stream', 'last-event-id': String(last) }),
        signal,
      });
      if (!response.ok || response.body === null) throw new ApiError(response.status, 'WATCH_FAILED', `watch answered ${response.status}`);
      onState?.('live');
      delay = 1000;
      for await (const event of serverSentEvents(response.body)) {
        if (event.event !== 'transition' || event.data === '') continue;
        const transition = JSON.parse(event.data) as Transition;
        last = Math.max(last, transition.seq);
        onTransition(transition);
      }
    } catch (err) {
      if (signal.aborted) return;
      void err;
    }
    onState?.('reconnecting');
    await new Promise((resolve) => setTimeout(resolve, delay));
    delay = Math.min(delay * 2, 10_000);
  }
}

/** The events of an SSE byte stream (WHATWG "event stream interpretation"; LF or CRLF lines, comments skipped). */
export async function* serverSentEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<{ id?: string; event?: string; data: string }> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let data: string[] = [];
  let id: string | undefined;
  let event: string | undefined;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    let end: number;
    while ((end = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, end).replace(/\r$/, '');
      buffer = buffer.slice(end + 1);
      if (line === '') {
        if (data.length > 0) yield { ...(id === undefined ? {} : { id }), ...(event === undefined ? {} : { event }), data: data.join('\n') };
        data = [];
        event = undefined;
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const text = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'data') data.push(text);
      else if (field === 'id') id = text;
      else if (field === 'event') event = text;
    }
  }
}
