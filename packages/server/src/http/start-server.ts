/**
 * `startServer`: the Stateflow HTTP server (seed ladr-stateful-sessions) — ladder
 * sessions, OpenAI-compatible chat/completions over a ladder, time-travel slate reads and the
 * read_state / patch_state state API, on fastify.
 */
import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import Fastify from 'fastify';
import fastifyRateLimit from '@fastify/rate-limit';
import { pino } from 'pino';
import type { Logger } from 'pino';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { StateflowError, elidePath, isStateflowError } from '@stateflow/core';
import { newServerToken, readDiscovery, removeDiscovery, writeDiscovery } from '@stateflow/client';
import { hasRoomToReopen, openStore } from '@stateflow/store-leveldb';
import type { Store } from '@stateflow/store';
import { SessionManager } from '@stateflow/slates';
import { loadApiKeys } from './api-keys.js';
import { USER_ROUTE, admit, checkDeclaredAccess } from './access-gate.js';
import type { ServedRoute } from './access-gate.js';
import { REDACTED, REDACTED_HEADERS, redactUrl } from './log-redaction.js';
import { ModelCallLimit } from './model-call-limit.js';
import { IdleTracker } from './idle-tracker.js';
import { shouldRetry, toHttpError } from './error-status.js';
import type { HttpErrorBody } from './error-status.js';
import { handleClientError } from './client-errors.js';
import { assertLoopbackRequest, isLoopbackHost } from './loopback-guard.js';
import { compileValidator } from './request-validation.js';
import { loadLadderCatalog } from './ladder-catalog.js';
import type { RejectedLadder } from './ladder-catalog.js';
import { resolveModel } from './ladder-runtime.js';
import { openApiDocument } from './openapi.js';
import { registerSessionRoutes } from './routes/session-routes.js';
import { registerChatRoute } from './routes/chat-route.js';
import { registerModelsRoutes } from './routes/models-route.js';
import { registerSlateHistoryRoute } from './routes/slate-history-route.js';
import { registerStateRoutes } from './routes/state-routes.js';
import { registerStoreRoutes } from './routes/store-routes.js';
import { registerWatchRoute, DEFAULT_HEARTBEAT_MS } from './routes/watch-route.js';
import { registerServerRoute } from './routes/server-route.js';
import { registerMcpRoute } from './routes/mcp-route.js';
import { registerHistoryRoutes } from './routes/history-routes.js';
import { registerUiPage } from './ui-page.js';
import { findPortHolder } from './port-holder.js';
import type { ServerContext } from './server-context.js';
import { reopeningStore } from '../reopening-store.js';

/** Default port of `stateflow serve`. */
export const DEFAULT_PORT = 7411;

/**
 * Default largest request body, in bytes (1 MiB). Validating, diffing and storing a patch costs
 * CPU on the one event loop in proportion to its element count, and every other request waits
 * meanwhile: at 8 MiB one legal patch stalled the server for ~9 s, at 1 MiB the worst shape
 * measured (an array of small numbers) costs ~1 s (bench/request-stall.mjs). Raise it with
 * `bodyLimit` / `--body-limit` where clients are trusted.
 */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

/**
 * Default time a client has to send a request's headers, in ms (10 s; Node's own default is
 * 60 s). A connection that sends nothing, or its headers a byte at a time, is answered 408 and
 * closed then.
 */
export const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;

/**
 * Default time a client has to send a whole request, headers and body, in ms (30 s): a body
 * trickled a byte at a time is answered 408 and closed then. Answers take as long as they take
 * (a model call, a watch stream): this bounds only what the client sends.
 */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

/** How often Node checks connections against the two timeouts above, in ms. */
const TIMEOUT_CHECK_INTERVAL_MS = 1_000;

/** Default per-key request rate with API keys: 600 requests per minute. */
export const DEFAULT_RATE_LIMIT: RateLimit = { requests: 600, windowMs: 60_000 };

/** Default per-key number of model calls (chat/completions) running at once with API keys. */
export const DEFAULT_MODEL_CALLS_PER_KEY = 4;

/** A request rate: at most `requests` requests per `windowMs` milliseconds. */
export interface RateLimit {
  /** Requests allowed per window (≥ 1). */
  requests: number;
  /** The window, in ms (≥ 1). */
  windowMs: number;
}

/** Options of {@link startServer}. */
export interface ServerOptions {
  /**
   * Store directory (classic-level). Required unless `store` is given. The server opens it and,
   * after a failed write (`REOPEN_REQUIRED`), reopens it by itself on the next write.
   */
  dir?: string;
  /** An open store to serve instead of opening `dir`; the server does not close it. */
  store?: Store;
  /** Ladders directory: every `<author>/<name>.yaml` (or `.yml`) is loaded as `@author/name`. */
  ladders?: string;
  /** Interface to bind. Default `127.0.0.1`. Non-loopback hosts require API keys. */
  host?: string;
  /** TCP port; `0` picks a free one. Default {@link DEFAULT_PORT} (7411). */
  port?: number;
  /** API keys `{ key: userId }` given directly (tests); else `keysFile`, else `STATEFLOW_API_KEYS`. */
  keys?: Record<string, string>;
  /** Path of a JSON file `{ "<key>": "<user id>" }` (`--keys FILE`). */
  keysFile?: string;
  /**
   * The model of every ladder call, whatever a request's `model` says: `scripted:<file.jsonl>`
   * (demos and tests) or `openai:<model>` (that model on the `OPENAI_BASE_URL` /
   * `OPENAI_API_KEY` endpoint). Omitted: the OpenAI-compatible upstream from `OPENAI_BASE_URL` /
   * `OPENAI_API_KEY`, called with each request's `model`; with neither, chat/completions answers
   * 503 MODEL_NOT_CONFIGURED.
   */
  model?: string;
  /**
   * The upstream model name used when a request's `model` is the ladder's own id (what
   * `GET …/models` lists). Default `STATEFLOW_UPSTREAM_MODEL`; without one such a request answers
   * 503 MODEL_NOT_CONFIGURED when the upstream takes each request's name (a `model` option pins
   * one model, which needs no name).
   */
  upstreamModel?: string;
  /** Environment read for `OPENAI_BASE_URL`, `OPENAI_API_KEY`, `STATEFLOW_API_KEYS`, `STATEFLOW_UPSTREAM_MODEL`. Default `process.env`. */
  env?: Record<string, string | undefined>;
  /** Clock for session lifecycle times (tests inject one). Default `() => new Date()`. */
  clock?: () => Date;
  /** Session idle period before expiry, in ms. Default 30 days. */
  sessionIdleMs?: number;
  /** Retention of a closed/expired session's state, in ms (`0` deletes at once). Default 30 days. */
  sessionRetentionMs?: number;
  /** Interval of the expiry/retention sweep, in ms; `0` disables the timer. Default 1 hour. */
  sweepIntervalMs?: number;
  /** Largest request body in bytes (≥ 1); larger ones answer 413 `BODY_TOO_LARGE`. Default {@link DEFAULT_BODY_LIMIT} (1 MiB). */
  bodyLimit?: number;
  /** Receives start-up warnings (rejected ladders). Default: write to stderr. */
  onWarning?: (message: string) => void;
  /**
   * Refuse every request that does not carry the server token (`X-Stateflow-Token`,
   * `Authorization: Bearer <token>` or `?token=`). Default `false`; background servers set it.
   */
  requireToken?: boolean;
  /**
   * Stop by itself after this many ms with no request in flight and no open watch stream
   * (`onIdle` is called; the caller closes the server). Default: never.
   */
  idleTimeoutMs?: number;
  /** Called once when the idle timeout passes. Default: close the server. */
  onIdle?: () => void;
  /**
   * Write the discovery file (`stateflow-server.json`: address, pid, token; mode 0600) into
   * `dir` once listening, and remove it on close. Default `true` when the server opens `dir`.
   */
  discovery?: boolean;
  /** Recorded in the discovery file: the server was started in the background. Default `false`. */
  background?: boolean;
  /** Interval of the watch stream's heartbeat comment in ms. Default 15,000. */
  heartbeatMs?: number;
  /**
   * Where the server's log goes: one JSON line (pino) per internal failure (every 5xx answer),
   * with the request id the answer carries (`x-request-id`, and `details.requestId` of the
   * error body), method, URL, code and the error with its cause chain. Default: stderr.
   */
  logDestination?: { write(line: string): unknown };
  /** Time a client has to send a request's headers, in ms (≥ 1); then 408 and the connection closes. Default {@link DEFAULT_HEADERS_TIMEOUT_MS} (10 s). */
  headersTimeoutMs?: number;
  /** Time a client has to send a whole request, in ms (≥ `headersTimeoutMs`); then 408 and the connection closes. Default {@link DEFAULT_REQUEST_TIMEOUT_MS} (30 s). */
  requestTimeoutMs?: number;
  /**
   * Per-key request rate, with API keys (`--rate-limit N/WINDOW`); over it a request answers 429
   * `RATE_LIMITED` with `Retry-After`. `false`: no limit. Requests with the server token and
   * without a credential are not counted. Default {@link DEFAULT_RATE_LIMIT} (600 per minute).
   */
  rateLimit?: RateLimit | false;
  /**
   * Per-key chat/completions calls running at once, with API keys (`--model-calls N`); one more
   * answers 429 `RATE_LIMITED` with `Retry-After: 1`. `0`: no limit. Default
   * {@link DEFAULT_MODEL_CALLS_PER_KEY} (4).
   */
  modelCallsPerKey?: number;
}

/** A running server. */
export interface ServerHandle {
  /** Base URL, e.g. `http://127.0.0.1:7411`. */
  url: string;
  /** The session manager (lifecycle, sweep) serving this server. */
  sessions: SessionManager;
  /** The store served. */
  store: Store;
  /** Ladder ids served (`@author/name`), sorted. */
  ladders: string[];
  /** Ladder files rejected at start, with the reason. */
  rejected: RejectedLadder[];
  /**
   * Whether API keys are configured: every `/v1/…` request then needs
   * `Authorization: Bearer <key>`, and the state API serves only the caller's ladder sessions.
   */
  requiresKey: boolean;
  /** The server token (also in the discovery file). */
  token: string;
  /** Whether every request must carry {@link ServerHandle.token}. */
  requireToken: boolean;
  /** Every route served, with its declared access (`public`, `user`, `owner`; server README "Users and keys"). */
  routes: readonly ServedRoute[];
  /** The fastify instance (for `inject()` in tests); it is listening, so no route can be added. */
  app: FastifyInstance;
  /** Stop listening, end watch streams, wait for calls in flight, close the store if the server opened it. */
  close(): Promise<void>;
}

/**
 * Start the HTTP server.
 * @throws USAGE on bad options (no `dir`/`store`, bad keys, a non-loopback host without keys,
 *   an unreadable scripted model file), and `{ at: 'host:port', reason: 'port-in-use' }` for a
 *   port another process listens on (the message names it when `/proc` tells); the store's errors when `dir` cannot be opened
 *   (STORE_LOCKED names the server holding it when its discovery file does).
 */
export async function startServer(options: ServerOptions): Promise<ServerHandle> {
  const env = options.env ?? process.env;
  const keys = loadApiKeys({ keys: options.keys, keysFile: options.keysFile, env: env.STATEFLOW_API_KEYS });
  const host = options.host ?? '127.0.0.1';
  if (keys === null && !isLoopbackHost(host)) {
    throw new StateflowError(
      'USAGE',
      `Refusing to bind ${host} without API keys: with no keys the server serves one local user on loopback only. ` +
        'Give --keys FILE or STATEFLOW_API_KEYS, or bind 127.0.0.1.',
      {},
    );
  }
  const bodyLimit = wholeNumber('bodyLimit', options.bodyLimit ?? DEFAULT_BODY_LIMIT, 1, 'bytes');
  const headersTimeoutMs = wholeNumber('headersTimeoutMs', options.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS, 1, 'ms');
  const requestTimeoutMs = wholeNumber('requestTimeoutMs', options.requestTimeoutMs ?? Math.max(DEFAULT_REQUEST_TIMEOUT_MS, headersTimeoutMs), headersTimeoutMs, 'ms');
  const rateLimit = options.rateLimit ?? DEFAULT_RATE_LIMIT;
  if (rateLimit !== false) {
    wholeNumber('rateLimit.requests', rateLimit.requests, 1, 'requests');
    wholeNumber('rateLimit.windowMs', rateLimit.windowMs, 1, 'ms');
  }
  const modelCallsPerKey = wholeNumber('modelCallsPerKey', options.modelCallsPerKey ?? DEFAULT_MODEL_CALLS_PER_KEY, 0, 'calls');
  const model = await resolveModel(options.model, env);
  const catalog = await loadLadderCatalog(options.ladders);
  const warn = options.onWarning ?? ((message: string) => process.stderr.write(`${message}\n`));
  for (const r of catalog.rejected) warn(`stateflow: ladder ${r.file} not served: ${r.message}`);

  let store = options.store;
  const ownsStore = store === undefined;
  if (store === undefined) {
    const dir = options.dir;
    if (dir === undefined) throw new StateflowError('USAGE', 'startServer needs a store directory (dir) or a store', {});
    // A server must not stay broken after a failed write: it reopens its store by itself.
    store = reopeningStore(await openLocked(dir), () => openStore(dir), { canReopen: () => hasRoomToReopen(dir) });
  }
  for (const notice of store.notices) warn(`stateflow: warning: ${notice.message} [${notice.code}]`);
  const sessions = new SessionManager({
    store,
    clock: options.clock,
    idleMs: options.sessionIdleMs,
    retentionMs: options.sessionRetentionMs,
  });
  const upstreamModel = options.upstreamModel ?? (env.STATEFLOW_UPSTREAM_MODEL || undefined);
  const shutdown = new AbortController();
  // Every open watch stream listens for the shutdown (and stops listening when it ends): many
  // listeners are this signal's job, not a leak.
  setMaxListeners(0, shutdown.signal);
  const token = newServerToken();
  const requireToken = options.requireToken ?? false;
  const log = pino({ base: { service: 'stateflow' }, redact: { paths: REDACTED_HEADERS, censor: REDACTED } }, options.logDestination ?? pino.destination(2));
  const context: ServerContext = {
    store,
    sessions,
    catalog,
    model,
    keys,
    clock: options.clock ?? (() => new Date()),
    ...(upstreamModel === undefined ? {} : { upstreamModel }),
    answerFailure: (err, request) => answerFailure(err, request, log, bodyLimit),
    token,
    requireToken,
    dir: ownsStore ? (options.dir ?? null) : null,
    heartbeatMs: options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS,
    activity: null,
    shutdown: shutdown.signal,
    modelCalls: new ModelCallLimit(modelCallsPerKey),
  };
  const routes: ServedRoute[] = [];
  const app = await buildApp(context, { bodyLimit, headersTimeoutMs, requestTimeoutMs, rateLimit, routes });
  let url: string;
  try {
    url = await app.listen({ host, port: options.port ?? DEFAULT_PORT });
  } catch (cause) {
    await app.close();
    if (ownsStore) await store.close();
    throw await listenError(host, options.port ?? DEFAULT_PORT, cause);
  }
  const baseUrl = url;
  context.baseUrl = baseUrl;
  const discoveryDir = (options.discovery ?? ownsStore) && options.dir !== undefined ? options.dir : null;
  if (discoveryDir !== null) {
    try {
      await writeDiscovery(discoveryDir, {
        url: baseUrl,
        pid: process.pid,
        token,
        requireToken,
        background: options.background ?? false,
        idleTimeoutMs: options.idleTimeoutMs ?? null,
        startedAt: new Date().toISOString(),
      });
    } catch (cause) {
      await app.close();
      if (ownsStore) await store.close();
      throw new StateflowError('STORE_IO', `Cannot write the discovery file into ${discoveryDir}: check that the directory is writable.`, { location: discoveryDir, code: (cause as NodeJS.ErrnoException).code ?? null }, { cause });
    }
  }

  const interval = options.sweepIntervalMs ?? 3_600_000;
  const timer = interval > 0 ? setInterval(() => void sessions.sweep().catch(() => undefined), interval) : undefined;
  timer?.unref();

  const served = [...catalog.ladders.keys()].sort();
  const openStoreRef = store;
  let closing: Promise<void> | undefined;
  const handle: ServerHandle = {
    url: baseUrl,
    sessions,
    store,
    ladders: served,
    rejected: catalog.rejected,
    requiresKey: keys !== null,
    token,
    requireToken,
    routes,
    app,
    close() {
      closing ??= (async () => {
        context.activity?.stop();
        if (timer !== undefined) clearInterval(timer);
        if (discoveryDir !== null) await removeDiscovery(discoveryDir, process.pid);
        shutdown.abort();
        sessions.shutdown();
        await app.close();
        await sessions.idle();
        if (ownsStore) await openStoreRef.close();
      })();
      return closing;
    },
  };
  if (options.idleTimeoutMs !== undefined) {
    context.activity = new IdleTracker(options.idleTimeoutMs, options.onIdle ?? (() => void handle.close()));
  }
  return handle;
}

/**
 * `value` when it is a whole number ≥ `min`.
 * @throws USAGE otherwise, naming the option.
 */
function wholeNumber(name: string, value: number, min: number, unit: string): number {
  if (!Number.isSafeInteger(value) || value < min) throw new StateflowError('USAGE', `${name} must be a whole number of ${unit} ≥ ${min}, got ${String(value)}`, {});
  return value;
}

/**
 * Open the store at `dir`; when another process holds it and a live discovery file names that
 * process, STORE_LOCKED says which server it is and how to stop it.
 */
async function openLocked(dir: string): Promise<Store> {
  try {
    return await openStore(dir);
  } catch (err) {
    if (!isStateflowError(err, 'STORE_LOCKED')) throw err;
    const holder = await readDiscovery(dir);
    if (holder === null) throw err;
    // The store's own message guesses at who the holder is; the discovery file knows.
    throw new StateflowError(
      'STORE_LOCKED',
      `Store directory ${dir} is in use by the stateflow server pid ${holder.pid} on ${holder.url}: use it (the CLI and stateflow mcp go through it), or stop it with "stateflow stop --dir ${dir}".`,
      { dir, pid: holder.pid },
      { cause: err },
    );
  }
}

/**
 * USAGE for a port the server cannot listen on, saying why: for a port in use (`EADDRINUSE`),
 * which process holds it when `/proc` tells, and how to pick another; otherwise the system's
 * reason (`EACCES` for a privileged port, `EADDRNOTAVAIL` for an address of another machine).
 */
async function listenError(host: string, port: number, cause: unknown): Promise<StateflowError<'USAGE'>> {
  const at = `${host}:${port}`;
  const errno = (cause as NodeJS.ErrnoException | null)?.code;
  if (errno !== 'EADDRINUSE') {
    const why = cause instanceof Error ? cause.message : String(cause);
    return new StateflowError('USAGE', `Cannot listen on ${at} (${why}): pick another host or port.`, { at, ...(typeof errno === 'string' ? { errno } : {}) }, { cause });
  }
  const holder = await findPortHolder(port);
  const by =
    holder === null
      ? ''
      : holder.pid === undefined
        ? ` by a process of another user (uid ${holder.uid})`
        : ` by pid ${holder.pid}${holder.command === undefined ? '' : ` (${holder.command})`}`;
  return new StateflowError(
    'USAGE',
    `Cannot listen on ${at}: the port is in use${by}. Pick another port with --port N, or --port 0 for a free one (the banner prints the port chosen).`,
    { at, reason: 'port-in-use' },
    { cause },
  );
}

/**
 * The answer to a failure of `request` (see `ServerContext.answerFailure`): a 5xx is the
 * server's fault, so the answer says only what the caller can use and the log says the rest.
 */
function answerFailure(err: unknown, request: FastifyRequest, log: Logger, bodyLimit: number): { status: number; body: HttpErrorBody } {
  const { status, body } = toHttpError(err, { bodyLimit, contentType: request.headers['content-type'] });
  if (status >= 500) {
    body.error.details = { ...(body.error.details as object), requestId: request.id };
    if (body.error.code === 'INTERNAL') body.error.message = `Internal server error; the server log has the details under request id ${request.id}.`;
    log.error(
      { reqId: request.id, method: request.method, url: elidePath(redactUrl(request.url)), headers: request.headers, code: body.error.code, status, err },
      body.error.message,
    );
  }
  return { status, body };
}

/** How {@link buildApp} builds the app. */
interface AppSettings {
  bodyLimit: number;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  rateLimit: RateLimit | false;
  /** Receives every route as it is registered, with its declared access. */
  routes: ServedRoute[];
}

/**
 * The fastify app: JSON bodies only, validated without coercion; `__proto__`/`constructor` keys
 * are data (as everywhere else in Stateflow: `JSON.parse` makes them own properties and the tools
 * copy them as data); bounded header and request times; every route's declared access checked
 * at registration and enforced by the gate before anything else of the route runs; the per-key
 * request rate; the routes; and one translation of every failure — route errors, fastify's client
 * errors, unknown routes, malformed URLs — into the `{error: {code, type, message, details}}` body.
 */
async function buildApp(context: ServerContext, settings: AppSettings): Promise<FastifyInstance> {
  const send = (err: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    const { status, body } = context.answerFailure(err, request);
    if (isStateflowError(err, 'RATE_LIMITED')) void reply.header('retry-after', String(err.details.retryAfterSeconds));
    return reply.status(status).header('x-should-retry', shouldRetry(body.error.code)).send(body);
  };
  const app = Fastify({
    logger: false,
    genReqId: () => randomUUID(),
    clientErrorHandler: handleClientError,
    bodyLimit: settings.bodyLimit,
    requestTimeout: settings.requestTimeoutMs,
    http: { headersTimeout: settings.headersTimeoutMs, connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS },
    // No automatic HEAD twin of every GET: HEAD is declared where it is served (the page's files).
    exposeHeadRoutes: false,
    onProtoPoisoning: 'ignore',
    onConstructorPoisoning: 'ignore',
    frameworkErrors: (err, request, reply) => void send(err, request, reply),
  });
  app.setValidatorCompiler(compileValidator);
  // Bodies are JSON: fastify's text/plain parser would hand a string to the routes.
  app.removeContentTypeParser('text/plain');
  app.decorateRequest('user', '');
  app.decorateRequest('admin', false);
  app.decorateRequest('keyId', null);
  app.addHook('onRoute', (route) => void settings.routes.push(...checkDeclaredAccess(route)));
  app.addHook('onRequest', async (request, reply) => {
    void reply.header('x-request-id', request.id);
    if (context.activity !== null) reply.raw.once('close', context.activity.begin());
    if (context.keys === null) assertLoopbackRequest(request.headers.host, request.headers.origin);
    admit(request, context);
  });
  const { rateLimit } = settings;
  if (context.keys !== null && rateLimit !== false) {
    // Route-level hooks run after the gate, which named the key (`request.keyId`).
    await app.register(fastifyRateLimit, {
      max: rateLimit.requests,
      timeWindow: rateLimit.windowMs,
      keyGenerator: (request) => request.keyId ?? '',
      allowList: (request) => request.keyId === null,
      errorResponseBuilder: (_request, limited) =>
        new StateflowError('RATE_LIMITED', `This API key sent more than ${limited.max} requests in ${rateLimit.windowMs} ms: retry after ${Math.ceil(limited.ttl / 1000)} s.`, {
          limit: 'requests',
          max: limited.max,
          windowMs: rateLimit.windowMs,
          retryAfterSeconds: Math.ceil(limited.ttl / 1000),
        }),
    });
  }
  app.setErrorHandler(async (err, request, reply) => send(err, request, reply));
  app.setNotFoundHandler(async (request, reply) =>
    send(new StateflowError('NOT_FOUND', `No route ${request.method} ${elidePath(request.url.split('?')[0] ?? '')}`, { route: elidePath(request.url.split('?')[0] ?? '') }), request, reply),
  );
  // The document needs a credential like the API it describes.
  app.get('/openapi.json', { config: USER_ROUTE }, async () => openApiDocument(context.baseUrl ?? ''));
  registerSessionRoutes(app, context);
  registerChatRoute(app, context);
  registerModelsRoutes(app, context, context.clock());
  registerSlateHistoryRoute(app, context);
  registerStateRoutes(app, context);
  registerStoreRoutes(app, context);
  registerWatchRoute(app, context);
  registerServerRoute(app, context);
  registerMcpRoute(app, context);
  registerHistoryRoutes(app, context);
  await registerUiPage(app);
  return app;
}
