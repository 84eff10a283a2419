/**
 * `startServer`: the Stateflow HTTP server (seed ladr-stateful-sessions) — ladder
 * sessions, OpenAI-compatible chat/completions over a ladder, time-travel slate reads and the
 * read_state / patch_state state API, on fastify. The options and their checks are
 * `server-options.ts`, the app `build-app.ts`; this module assembles them, listens, and stops.
 */
import { setMaxListeners } from 'node:events';
import { pino } from 'pino';
import type { FastifyInstance } from 'fastify';
import { StateflowError } from '@stateflow/core';
import { newServerToken, removeDiscovery, writeDiscovery } from '@stateflow/client';
import type { ServerDiscovery } from '@stateflow/client';
import type { Store } from '@stateflow/store';
import { SessionManager } from '@stateflow/slates';
import type { ServedRoute } from './access-gate.js';
import { scheduleRetention } from './retention-schedule.js';
import { buildApp } from './build-app.js';
import { answerFailure } from './failure-answer.js';
import { IdleTracker } from './idle-tracker.js';
import { loadLadderCatalog } from './ladder-catalog.js';
import type { LadderCatalog, RejectedLadder } from './ladder-catalog.js';
import { resolveModel } from './ladder-runtime.js';
import type { ModelProvider } from './ladder-runtime.js';
import { listenError } from './listen-error.js';
import { REDACTED, REDACTED_HEADERS } from './log-redaction.js';
import { WatchLimit } from './watch-limit.js';
import { ModelCallLimit } from './model-call-limit.js';
import { DEFAULT_HEARTBEAT_MS } from './routes/watch-route.js';
import { openServedStore } from './served-store.js';
import { stampingStore } from './observability/writer-scope.js';
import { ServerMetrics } from './observability/metrics.js';
import { metricSources } from './observability/metric-sources.js';
import { startTracing } from './observability/tracing.js';
import { checkOptions } from './server-options.js';
import type { ServerOptions, ServerSettings } from './server-options.js';
import type { ServerContext } from './server-context.js';

/** Default interval of the expiry/retention sweep, in ms (1 hour). */
const DEFAULT_SWEEP_INTERVAL_MS = 3_600_000;

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
  const settings = checkOptions(options, env);
  const tracing = await startTracing(options.tracing, env);
  const model = await resolveModel(options.model, env);
  const catalog = await loadLadderCatalog(options.ladders);
  const warn = options.onWarning ?? ((message: string) => process.stderr.write(`${message}\n`));
  for (const r of catalog.rejected) warn(`stateflow: ladder ${r.file} not served: ${r.message}`);
  const ownsStore = options.store === undefined;
  const metrics = options.metrics ?? new ServerMetrics();
  // A store the server opens is observed; a store handed in is observed when its opener passed
  // metrics.storeObserver (ServerMetrics' example).
  const store = options.store ?? (await openServedStore(storeDir(options), { observer: metrics.storeObserver, ...(options.savepointIdleMs === undefined ? {} : { savepoints: { idleMs: options.savepointIdleMs } }) }));
  for (const notice of store.notices) warn(`stateflow: warning: ${notice.message} [${notice.code}]`);
  const shutdown = new AbortController();
  // Every open watch stream listens for the shutdown (and stops listening when it ends): many
  // listeners are this signal's job, not a leak.
  setMaxListeners(0, shutdown.signal);
  const context = serverContext(options, { store, catalog, model, settings, env, ownsStore, shutdown: shutdown.signal, metrics });
  metrics.attach(metricSources(context));
  const routes: ServedRoute[] = [];
  const app = await buildApp(context, { ...settings, routes });
  const stopEarly = async (): Promise<void> => {
    await app.close();
    if (ownsStore) await store.close();
  };
  try {
    context.baseUrl = await app.listen({ host: settings.host, port: settings.port });
  } catch (cause) {
    await stopEarly();
    throw await listenError(settings.host, settings.port, cause);
  }
  const discoveryDir = (options.discovery ?? ownsStore) && options.dir !== undefined ? options.dir : null;
  if (discoveryDir !== null) await announce(discoveryDir, discoveryOf(options, context, context.baseUrl), stopEarly);

  const interval = options.sweepIntervalMs ?? DEFAULT_SWEEP_INTERVAL_MS;
  const timer = interval > 0 ? setInterval(() => void context.sessions.sweep().catch(() => undefined), interval) : undefined;
  timer?.unref();
  const retention = scheduleRetention(store, options.retainIntervalMs ?? 0, context.clock, warn, (report) => metrics.retentionRun(report));
  let closing: Promise<void> | undefined;
  const handle: ServerHandle = {
    url: context.baseUrl,
    sessions: context.sessions,
    store,
    ladders: [...catalog.ladders.keys()].sort(),
    rejected: catalog.rejected,
    requiresKey: settings.keys !== null,
    token: context.token,
    requireToken: context.requireToken,
    routes,
    app,
    close() {
      closing ??= (async () => {
        context.activity?.stop();
        if (timer !== undefined) clearInterval(timer);
        await retention.stop();
        if (discoveryDir !== null) await removeDiscovery(discoveryDir, process.pid);
        shutdown.abort();
        context.sessions.shutdown();
        await app.close();
        await context.sessions.idle();
        if (ownsStore) await store.close();
        await tracing?.shutdown();
      })();
      return closing;
    },
  };
  if (options.idleTimeoutMs !== undefined) context.activity = new IdleTracker(options.idleTimeoutMs, options.onIdle ?? (() => void handle.close()));
  return handle;
}

/**
 * The store directory to open.
 * @throws USAGE when neither `dir` nor `store` is given.
 */
function storeDir(options: ServerOptions): string {
  if (options.dir === undefined) throw new StateflowError('USAGE', 'startServer needs a store directory (dir) or a store', {});
  return options.dir;
}

/** What the context is made of, besides the options. */
interface ContextParts {
  store: Store;
  catalog: LadderCatalog;
  model: ModelProvider | null;
  settings: ServerSettings;
  env: Record<string, string | undefined>;
  ownsStore: boolean;
  shutdown: AbortSignal;
  metrics: ServerMetrics;
}

/** What every route reads: the store, the sessions, the ladders, the model, the keys, the token and the failure answer. */
function serverContext(options: ServerOptions, parts: ContextParts): ServerContext {
  const { catalog, model, settings, env, ownsStore, shutdown, metrics } = parts;
  // Every write made while serving carries its writer (meta.writer), stamped in one place.
  const store = stampingStore(parts.store);
  const upstreamModel = options.upstreamModel ?? (env.STATEFLOW_UPSTREAM_MODEL || undefined);
  const log = pino({ base: { service: 'stateflow' }, redact: { paths: REDACTED_HEADERS, censor: REDACTED } }, options.logDestination ?? pino.destination(2));
  return {
    store,
    sessions: new SessionManager({ store, clock: options.clock, idleMs: options.sessionIdleMs, retentionMs: options.sessionRetentionMs }),
    catalog,
    model,
    keys: settings.keys,
    clock: options.clock ?? (() => new Date()),
    ...(upstreamModel === undefined ? {} : { upstreamModel }),
    answerFailure: (err, request) => answerFailure(err, request, log, settings.bodyLimit),
    token: newServerToken(),
    requireToken: options.requireToken ?? false,
    dir: ownsStore ? (options.dir ?? null) : null,
    heartbeatMs: options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS,
    historyTools: options.historyTools === true,
    activity: null,
    shutdown,
    modelCalls: new ModelCallLimit(settings.modelCallsPerKey),
    watches: new WatchLimit(settings.watchesPerKey, settings.maxWatches),
    workBudgetMs: settings.workBudgetMs,
    metrics,
  };
}

/** The discovery file of this server, listening at `url`. */
function discoveryOf(options: ServerOptions, context: ServerContext, url: string): ServerDiscovery {
  return {
    url,
    pid: process.pid,
    token: context.token,
    requireToken: context.requireToken,
    background: options.background ?? false,
    idleTimeoutMs: options.idleTimeoutMs ?? null,
    startedAt: new Date().toISOString(),
  };
}

/**
 * Write the discovery file into `dir`; when that fails, stop what started.
 * @throws STORE_IO naming the directory.
 */
async function announce(dir: string, discovery: ServerDiscovery, stopEarly: () => Promise<void>): Promise<void> {
  try {
    await writeDiscovery(dir, discovery);
  } catch (cause) {
    await stopEarly();
    throw new StateflowError('STORE_IO', `Cannot write the discovery file into ${dir}: check that the directory is writable.`, { location: dir, code: (cause as NodeJS.ErrnoException).code ?? null }, { cause });
  }
}
