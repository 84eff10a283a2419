/**
 * `GET /v1/watch` (server README "Watch"): the store's catch-up subscription as Server-Sent
 * Events. The stream opens with a `ready` event (`id:` = the seq it starts after), then sends
 * one `transition` event per accepted transition, `id:` = its seq, first the retained ones after
 * the start, then live ones. A reconnect with `Last-Event-ID: N` (which wins over `?from`) resumes
 * with N+1: no gap, no duplicate. A comment line every `heartbeatMs` keeps proxies from closing
 * an idle stream. With API keys the caller sees only its own sessions' streams: a transition
 * shows only its visible changes and one with none is not sent.
 *
 * The start, `from` or `Last-Event-ID`, is a non-negative safe integer (400 INPUT_INVALID
 * otherwise) and at most the store's last seq (404 TRANSITION_NOT_FOUND naming it otherwise).
 *
 * When the server stops, the stream's last event is `stopping` (no `id:`), so a client can tell a
 * deliberate stop (`stateflow stop`, SIGTERM) from a lost connection.
 *
 * Open streams are capped per API key and per server (`watch-limit.ts`: 429 `RATE_LIMITED` with
 * `Retry-After` before the stream opens). A transition is shown and encoded once per visibility
 * class — the store's owner, or one key user — and that text is written to each of its streams,
 * so a publish with many watchers open costs one encoding per class, not one per watcher.
 *
 * A client that does not read is not buffered for without bound: when its socket stays full for
 * {@link STALLED_CLIENT_MS} the stream is ended, and the client resumes from the log with
 * `Last-Event-ID` when it is ready.
 */
import type { WatchTracker } from '../observability/metrics.js';
import { once } from 'node:events';
import { StateflowError, isStateflowError } from '@stateflow/core';
import type { Store, Transition } from '@stateflow/store';
import { createSession } from 'better-sse';
import { watchRoute } from '@stateflow/http-contract';
import type { ContractApp } from '../contract-app.js';
import type { ServerContext } from '../server-context.js';
import { streamVisibility } from '../stream-visibility.js';
import type { StreamVisibility } from '../stream-visibility.js';
import { USER_ROUTE } from '../access-gate.js';

/** How long a watch client may leave its socket full before its stream is ended, in ms. */
export const STALLED_CLIENT_MS = 30_000;

/** Default interval of the heartbeat comment, in ms. */
export const DEFAULT_HEARTBEAT_MS = 15_000;

/**
 * The `data:` text of each transition per visibility class (`*` for the owner, `user:<name>`),
 * `null` when the class sees none of it: kept as long as the transition object is (the store
 * hands every watcher the same one).
 */
type EncodedViews = WeakMap<object, Map<string, Promise<string | null>>>;

/** `transition` as `access` shows it, encoded, once per `visibilityClass`. */
function encodedView(cache: EncodedViews, visibilityClass: string, access: StreamVisibility, transition: Transition): Promise<string | null> {
  let byClass = cache.get(transition);
  if (byClass === undefined) {
    byClass = new Map();
    cache.set(transition, byClass);
  }
  let text = byClass.get(visibilityClass);
  if (text === undefined) {
    text = access.view(transition).then((shown) => (shown === null ? null : JSON.stringify(shown)));
    byClass.set(visibilityClass, text);
  }
  return text;
}

/** Register `GET /v1/watch` on `app`. */
export function registerWatchRoute(app: ContractApp, context: ServerContext): void {
  const encoded: EncodedViews = new WeakMap();
  app.route({ ...watchRoute, config: USER_ROUTE, handler: async (request, reply) => {
    const store = context.store;
    const from = await withinLog(store, resumePoint(request.headers['last-event-id'], request.query.from, store.lastSeq()));
    const streams = request.query.stream === undefined ? undefined : [request.query.stream].flat();
    const access = streamVisibility(context, request);
    if (streams !== undefined) {
      for (const stream of streams) {
        if (!(await access.canSee(stream))) {
          throw new StateflowError('NOT_FOUND', `Stream ${stream} is not served to you: with API keys, watch serves only the streams of your own ladder sessions.`, { stream });
        }
      }
    }
    const visibilityClass = request.admin ? '*' : `user:${request.user}`;
    const release = context.watches.acquire(request.keyId);
    reply.hijack();
    const stop = new AbortController();
    const onShutdown = (): void => stop.abort();
    context.shutdown.addEventListener('abort', onShutdown, { once: true });
    reply.raw.once('close', () => stop.abort());
    let session: Awaited<ReturnType<typeof createSession>> | undefined;
    let tracker: WatchTracker | undefined;
    try {
      session = await createSession(request.raw, reply.raw, {
        keepAlive: context.heartbeatMs,
        retry: 1000,
        trustClientEventId: false,
        // Transitions arrive encoded (encodedView); the other events are objects.
        serializer: (data) => (typeof data === 'string' ? data : JSON.stringify(data)),
        headers: { 'cache-control': 'no-store', 'x-accel-buffering': 'no' },
      });
      session.push({ from, lastSeq: store.lastSeq() }, 'ready', String(from));
      tracker = context.metrics.watch(from);
      for await (const transition of store.watch({ from, signal: stop.signal, ...(streams === undefined ? {} : { streams }) })) {
        tracker.sent(transition.seq);
        const shown = await encodedView(encoded, visibilityClass, access, transition);
        if (shown === null) continue;
        session.push(shown, 'transition', String(transition.seq));
        if (reply.raw.writableNeedDrain && !(await drained(reply.raw, stop.signal))) break;
      }
    } catch {
      // The client went away or the store closed: nothing to tell anyone.
    } finally {
      release();
      tracker?.close();
      context.shutdown.removeEventListener('abort', onShutdown);
      if (context.shutdown.aborted && session?.isConnected === true) session.push({ reason: 'the server is stopping' }, 'stopping');
      reply.raw.end();
    }
  } });
}

/** Wait until the socket drains; `false` when it stays full for {@link STALLED_CLIENT_MS} or the stream stops. */
async function drained(socket: NodeJS.WritableStream, signal: AbortSignal): Promise<boolean> {
  try {
    await once(socket, 'drain', { signal: AbortSignal.any([signal, AbortSignal.timeout(STALLED_CLIENT_MS)]) });
    return true;
  } catch {
    return false;
  }
}

/**
 * `from` when the store has reached it. A position beyond the last seq is a position in another
 * store, or in this one before a restore from an older copy: starting there would silently skip
 * every transition up to it.
 * @throws TRANSITION_NOT_FOUND `{ seq: from, lastSeq }` when `from` is greater than the last seq.
 */
async function withinLog(store: Store, from: number): Promise<number> {
  if (from <= store.lastSeq()) return from;
  try {
    // On a store other processes write, this catches up with the log before deciding.
    await store.statesAt([], from);
    return from;
  } catch (err) {
    if (!isStateflowError(err, 'TRANSITION_NOT_FOUND')) throw err;
    throw new StateflowError(
      'TRANSITION_NOT_FOUND',
      `The watch position ${from} is beyond this store's last seq ${err.details.lastSeq}: it is not a position in this store (another store's, or one from before a restore). Watch from ${err.details.lastSeq} or less.`,
      { seq: from, lastSeq: err.details.lastSeq },
      { cause: err },
    );
  }
}

/**
 * Where the stream starts: after `Last-Event-ID` when the client sends one, else after `?from`,
 * else after the last seq now (live only).
 * @throws INPUT_INVALID when `Last-Event-ID` or `from` is not a seq (a non-negative safe integer).
 */
function resumePoint(lastEventId: string | string[] | undefined, from: number | undefined, lastSeq: number): number {
  const header = Array.isArray(lastEventId) ? lastEventId[0] : lastEventId;
  if (header !== undefined && header !== '') {
    if (!/^(0|[1-9][0-9]*)$/.test(header) || !Number.isSafeInteger(Number(header))) {
      throw new StateflowError('INPUT_INVALID', `Last-Event-ID must be the seq of the last event received, got ${JSON.stringify(header.slice(0, 40))}.`, {
        field: 'Last-Event-ID',
        reason: 'not-a-seq',
      });
    }
    return Number(header);
  }
  // Query strings are coerced: "1e400" arrives as Infinity, "9007199254740993" rounded.
  if (from !== undefined && !Number.isSafeInteger(from)) {
    throw new StateflowError('INPUT_INVALID', `querystring.from must be <= ${Number.MAX_SAFE_INTEGER}.`, { field: 'querystring.from', reason: 'maximum' });
  }
  return from ?? lastSeq;
}
