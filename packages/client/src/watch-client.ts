/**
 * The client of `GET /v1/watch` (server README "Watch"): Server-Sent Events, one `transition`
 * event per accepted transition with `id:` = its seq. A dropped connection is resumed with
 * `Last-Event-ID` = the last seq received, so the iteration sees every visible transition once,
 * in seq order, with no gap and no duplicate, across reconnects and server restarts.
 */
import { createParser } from 'eventsource-parser';
import type { JsonObject } from '@stateflow/core';
import type { StreamChange, StreamId } from '@stateflow/store';
import { authHeaders, endpointUrl, serverError, unreachable } from './http-call.js';
import type { ServerEndpoint } from './http-call.js';

/**
 * One event of the watch stream: a transition as the caller may see it. With API keys, `changes`
 * holds only the caller's own streams (a transition with none of them is not sent).
 */
export interface WatchEvent {
  seq: number;
  /** Acceptance time, ISO 8601 UTC. */
  time: string;
  id?: string;
  meta?: JsonObject;
  changes: StreamChange[];
}

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
  let last: number | undefined = options.from;
  const retryMs = options.retryMs ?? 500;
  const stallMs = options.stallMs ?? 45_000;
  const aborted = (): boolean => options.signal?.aborted === true;
  while (!aborted()) {
    let target: ServerEndpoint | undefined;
    const abort = new AbortController();
    const stop = (): void => abort.abort();
    options.signal?.addEventListener('abort', stop, { once: true });
    try {
      target = await resolve();
      const headers: Record<string, string> = { accept: 'text/event-stream', ...authHeaders(target) };
      if (last !== undefined) headers['last-event-id'] = String(last);
      const query = { stream: options.streams };
      let response: Response;
      try {
        response = await fetch(endpointUrl(target, 'v1/watch', query), { headers, signal: abort.signal });
      } catch (err) {
        throw unreachable(target, err);
      }
      if (!response.ok || response.body === null) {
        const text = await response.text();
        let body: unknown = null;
        try {
          body = JSON.parse(text);
        } catch {
          // not a Stateflow error body
        }
        throw Object.assign(serverError(response.status, body, target, 'v1/watch'), { fatal: true });
      }
      const pending: WatchEvent[] = [];
      let stopping = false;
      const parser = createParser({
        onEvent(event) {
          // `ready` names where the stream starts, so a reconnect before the first transition
          // resumes there instead of at the server's seq of the moment.
          if (event.event === 'ready') last ??= (JSON.parse(event.data) as { from: number }).from;
          if (event.event === 'transition') pending.push(JSON.parse(event.data) as WatchEvent);
          if (event.event === 'stopping') stopping = true;
        },
      });
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let stall: NodeJS.Timeout | undefined;
      const armStall = (): void => {
        clearTimeout(stall);
        stall = setTimeout(stop, stallMs);
      };
      try {
        armStall();
        for (;;) {
          let chunk: Awaited<ReturnType<typeof reader.read>>;
          try {
            chunk = await reader.read();
          } catch (err) {
            if (aborted()) return;
            throw unreachable(target, err);
          }
          if (chunk.done) break;
          armStall();
          parser.feed(chunk.value);
          while (pending.length > 0) {
            const event = pending.shift() as WatchEvent;
            // A resumed stream starts after Last-Event-ID; never yield a seq twice.
            if (last !== undefined && event.seq <= last) continue;
            last = event.seq;
            yield event;
          }
        }
      } finally {
        clearTimeout(stall);
        await reader.cancel().catch(() => undefined);
      }
      if (aborted() || (stopping && options.onServerStop === 'end')) return;
      throw unreachable(target, new Error(stopping ? 'the server stopped' : 'the watch stream ended'));
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
