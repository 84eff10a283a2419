/**
 * The client of `GET /v1/watch` (server README "Watch"): Server-Sent Events, one `transition`
 * event per accepted transition with `id:` = its seq. A dropped connection is resumed with
 * `Last-Event-ID` = the last seq received, so the iteration sees every visible transition once,
 * in seq order, with no gap and no duplicate, across reconnects and server restarts.
 */
import { createParser } from 'eventsource-parser';
import type { ShownTransition } from '@stateflow/http-contract';
import type { StreamId } from '@stateflow/store';
import { authHeaders, endpointUrl, serverError, unreachable } from './http-call.js';
import type { ServerEndpoint } from './http-call.js';

/**
 * One event of the watch stream: a transition as the caller may see it (the contract's
 * `ShownTransition`). With API keys, `changes` holds only the caller's own streams (a transition
 * with none of them is not sent), and the hashes are absent when some changes were left out.
 */
export type WatchEvent = ShownTransition;

/** Options of {@link watchTransitions}. */
export interface WatchClientOptions {
  /** Yield transitions with seq > `from`. Default: live only (from the server's last seq at connect). */
  from?: number;
  /** Only transitions that changed one of these streams. */
  streams?: StreamId[];
  /** Abort to end the iteration. */
  signal?: AbortSignal;
  /**
   * Called when the connection fails or drops, before the next attempt (after `retryMs`).
   * Throw from it to end the iteration with that error. Default: retry silently.
   */
  onDisconnect?: (err: Error) => void;
  /**
   * What to do when the server says it is stopping (its `stopping` event: `stateflow stop`,
   * SIGTERM): `'reconnect'` (default) as after any lost connection — `endpoint` may start a new
   * server —, or `'end'` the iteration, so a watcher does not bring back a server someone stopped.
   */
  onServerStop?: 'reconnect' | 'end';
  /** Wait between reconnect attempts, in ms. Default 500. */
  retryMs?: number;
  /**
   * A connection that delivers nothing (not even the server's heartbeat comment) for this long is
   * treated as dropped, in ms. Default 45,000 (three heartbeats of the server default).
   */
  stallMs?: number;
}

/**
 * Follow the watch stream of a server. `endpoint` may be a function, asked again before each
 * reconnect (a stdio client whose server restarted on another port finds the new one).
 *
 * Errors the server answers (401, 403, a bad `from`) end the iteration with the server's
 * `StateflowError`; connection failures are retried (see `onDisconnect`).
 */
export async function* watchTransitions(
  endpoint: ServerEndpoint | (() => Promise<ServerEndpoint>),
  options: WatchClientOptions = {},
): AsyncGenerator<WatchEvent> {
  const resolve = typeof endpoint === 'function' ? endpoint : async () => endpoint;
  // Where the next connection resumes: the last seq yielded (or the `ready` event's start).
  const position: WatchPosition = { last: options.from, stopping: false };
  const retryMs = options.retryMs ?? 500;
  const aborted = (): boolean => options.signal?.aborted === true;
  while (!aborted()) {
    const abort = new AbortController();
    const stop = (): void => abort.abort();
    options.signal?.addEventListener('abort', stop, { once: true });
    try {
      const target = await resolve();
      const body = await openStream(target, position.last, options.streams, abort.signal);
      position.stopping = false;
      yield* streamEvents(body, position, { stallMs: options.stallMs ?? 45_000, stop, aborted, target });
      if (aborted() || (position.stopping && options.onServerStop === 'end')) return;
      throw unreachable(target, new Error(position.stopping ? 'the server stopped' : 'the watch stream ended'));
    } catch (err) {
      if (aborted()) return;
      if ((err as { fatal?: boolean }).fatal === true) throw err;
      options.onDisconnect?.(err as Error);
      await new Promise((r) => setTimeout(r, retryMs));
    } finally {
      options.signal?.removeEventListener('abort', stop);
      abort.abort();
    }
  }
}

/** Where a watch stands between connections. */
interface WatchPosition {
  /** The last seq yielded, or where the stream said it starts; `undefined`: live from the server's last seq. */
  last: number | undefined;
  /** The server said it is stopping (its `stopping` event). */
  stopping: boolean;
}

/**
 * Connect to `GET /v1/watch`, resuming after `last` (`Last-Event-ID`): the event stream's body.
 * @throws STORE_UNAVAILABLE when the server cannot be reached; the server's error for an error
 *   answer, marked `fatal` (retrying the same request cannot succeed).
 */
async function openStream(target: ServerEndpoint, last: number | undefined, streams: StreamId[] | undefined, signal: AbortSignal): Promise<ReadableStream<Uint8Array>> {
  const headers: Record<string, string> = { accept: 'text/event-stream', ...authHeaders(target) };
  if (last !== undefined) headers['last-event-id'] = String(last);
  let response: Response;
  try {
    response = await fetch(endpointUrl(target, 'v1/watch', { stream: streams }), { headers, signal });
  } catch (err) {
    throw unreachable(target, err);
  }
  if (response.ok && response.body !== null) return response.body;
  const text = await response.text();
  let error: unknown = null;
  try {
    error = JSON.parse(text);
  } catch {
    // not a Stateflow error body
  }
  throw Object.assign(await serverError(response.status, error, target, 'v1/watch'), { fatal: true });
}

/** How {@link streamEvents} reads one connection. */
interface StreamReading {
  /** A connection silent this long (not even a heartbeat) is treated as dropped, in ms. */
  stallMs: number;
  /** Drop the connection. */
  stop: () => void;
  /** Whether the caller ended the watch. */
  aborted: () => boolean;
  target: ServerEndpoint;
}

/**
 * The transitions of one connection, each once and in seq order (a resumed stream starts after
 * `Last-Event-ID`; nothing at or below `position.last` is yielded), until the stream ends.
 * @throws STORE_UNAVAILABLE when the connection breaks.
 */
async function* streamEvents(body: ReadableStream<Uint8Array>, position: WatchPosition, reading: StreamReading): AsyncGenerator<WatchEvent> {
  const pending: WatchEvent[] = [];
  const parser = createParser({
    onEvent(event) {
      // `ready` names where the stream starts, so a reconnect before the first transition
      // resumes there instead of at the server's seq of the moment.
      if (event.event === 'ready') position.last ??= (JSON.parse(event.data) as { from: number }).from;
      if (event.event === 'transition') pending.push(JSON.parse(event.data) as WatchEvent);
      if (event.event === 'stopping') position.stopping = true;
    },
  });
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let stall: NodeJS.Timeout | undefined;
  const armStall = (): void => {
    clearTimeout(stall);
    stall = setTimeout(reading.stop, reading.stallMs);
  };
  try {
    armStall();
    for (;;) {
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch (err) {
        if (reading.aborted()) return;
        throw unreachable(reading.target, err);
      }
      if (chunk.done) return;
      armStall();
      parser.feed(chunk.value);
      for (let event = pending.shift(); event !== undefined; event = pending.shift()) {
        if (position.last !== undefined && event.seq <= position.last) continue;
        position.last = event.seq;
        yield event;
      }
    }
  } finally {
    clearTimeout(stall);
    await reader.cancel().catch(() => undefined);
  }
}
