/**
 * The options of `startServer`, their defaults, and their checks: every option is checked, and a
 * bad one refused with USAGE naming it, before anything opens or listens.
 */
import type { TracingOptions } from './observability/tracing.js';
import type { ServerMetrics } from './observability/metrics.js';
import { StateflowError } from '@stateflow/core';
import type { Store } from '@stateflow/store';
import { loadApiKeys } from './api-keys.js';
import type { RateLimit } from './build-app.js';
import { isLoopbackHost } from './loopback-guard.js';
import { DEFAULT_WATCHES_PER_KEY, DEFAULT_WATCHES_PER_SERVER } from './watch-limit.js';

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
/** Default staging budget of one `publish-many` request, in ms. */
export const DEFAULT_WORK_BUDGET_MS = 200;

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

/** Default per-key request rate with API keys: 600 requests per minute. */
export const DEFAULT_RATE_LIMIT: RateLimit = { requests: 600, windowMs: 60_000 };

/** Default per-key number of model calls (chat/completions) running at once with API keys. */
export const DEFAULT_MODEL_CALLS_PER_KEY = 4;

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
  /**
   * Interval of a scheduled retention run (store README "Retention": `retain` of the declared
   * policies, as of `clock`, no archive), in ms. Default `0`: off — a run removes history, so it
   * happens only when asked for. A failed run is reported through `onWarning` and tried again
   * at the next tick; a run still going when the next is due is not started twice.
   */
  retainIntervalMs?: number;
  /**
   * Offer the history tools on `/mcp` — `history`, `diff_revisions`, `undo` (the caller's own
   * writes only) — beside `read_state` and `patch_state` (README "History tools for agents").
   * Default `false`: an agent sees the seed's two tools.
   */
  historyTools?: boolean;
  /**
   * Automatic savepoints of the store the server opens from `dir` (store README "Tags"): tag the
   * seq before each writer's burst after this many ms without a write of its own. Default: off.
   */
  savepointIdleMs?: number;
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
  /**
   * Open `GET /v1/watch` streams one API key may hold (`--watches-per-key N`); one more answers
   * 429 `RATE_LIMITED` (`limit: 'watches'`) with `Retry-After: 1`. `0`: no cap. Default
   * {@link DEFAULT_WATCHES_PER_KEY} (32).
   */
  watchesPerKey?: number;
  /**
   * Wall-clock ms the staging of one API-key user's `publish-many` may take (`--work-budget MS`; the owner's is not bounded, as with the rate limits): past
   * it the batch is refused whole before anything is written, 400 `INPUT_INVALID`
   * `{ field: 'inputs', reason: 'over-budget' }`. `0`: no budget. Default
   * {@link DEFAULT_WORK_BUDGET_MS} (200).
   */
  workBudgetMs?: number;
  /**
   * Open watch streams the server holds in all, the owner's included; one more answers 429
   * `RATE_LIMITED` (`limit: 'server-watches'`). `0`: no cap. Default {@link DEFAULT_WATCHES_PER_SERVER} (2,000).
   */
  maxWatches?: number;
  /**
   * Export the server's traces to this SDK span exporter (server README "Traces"); without it,
   * traces are exported over OTLP/HTTP only when `OTEL_EXPORTER_OTLP_ENDPOINT` (or
   * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is set in `env`, and not at all otherwise.
   */
  tracing?: TracingOptions;
  /**
   * The metrics `GET /metrics` serves (default: new ones). Pass the one whose `storeObserver` the
   * `store` option was opened with, so its publishes, commits and reads are counted.
   */
  metrics?: ServerMetrics;
}

/** The checked options: what the server is built from. */
export interface ServerSettings {
  /** API key → user id, or `null` (one local user on loopback). */
  keys: ReadonlyMap<string, string> | null;
  host: string;
  port: number;
  bodyLimit: number;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  rateLimit: RateLimit | false;
  modelCallsPerKey: number;
  watchesPerKey: number;
  maxWatches: number;
  workBudgetMs: number;
}

/**
 * Check `options` and apply their defaults.
 * @throws USAGE for bad keys, a non-loopback host without keys, or a bound that is not a whole
 *   number in range (naming the option).
 */
export function checkOptions(options: ServerOptions, env: Record<string, string | undefined>): ServerSettings {
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
  const watchesPerKey = wholeNumber('watchesPerKey', options.watchesPerKey ?? DEFAULT_WATCHES_PER_KEY, 0, 'streams');
  const maxWatches = wholeNumber('maxWatches', options.maxWatches ?? DEFAULT_WATCHES_PER_SERVER, 0, 'streams');
  const workBudgetMs = wholeNumber('workBudgetMs', options.workBudgetMs ?? DEFAULT_WORK_BUDGET_MS, 0, 'ms');
  return { keys, host, port: options.port ?? DEFAULT_PORT, bodyLimit, headersTimeoutMs, requestTimeoutMs, rateLimit, modelCallsPerKey, watchesPerKey, maxWatches, workBudgetMs };
}

/**
 * `value` when it is a whole number ≥ `min`.
 * @throws USAGE otherwise, naming the option.
 */
function wholeNumber(name: string, value: number, min: number, unit: string): number {
  if (!Number.isSafeInteger(value) || value < min) throw new StateflowError('USAGE', `${name} must be a whole number of ${unit} ≥ ${min}, got ${String(value)}`, {});
  return value;
}
