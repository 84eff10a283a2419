/**
 * What every route of one server shares.
 */
import type { FastifyRequest } from 'fastify';
import type { Store } from '@stateflow/store';
import type { SessionManager } from '@stateflow/slates';
import type { HttpErrorBody } from './error-status.js';
import type { LadderCatalog } from './ladder-catalog.js';
import type { ModelProvider } from './ladder-runtime.js';
import type { IdleTracker } from './idle-tracker.js';
import type { ModelCallLimit } from './model-call-limit.js';
import type { WatchLimit } from './watch-limit.js';
import type { ServerMetrics } from './observability/metrics.js';

/** Shared state of one running server. */
export interface ServerContext {
  store: Store;
  sessions: SessionManager;
  catalog: LadderCatalog;
  /** The configured model provider, or `null` (chat/completions answers 503). */
  model: ModelProvider | null;
  /** The upstream model a request naming the ladder itself as `model` gets (`--upstream-model`). */
  upstreamModel?: string;
  /** API key → user id, or `null` for the single local user. */
  keys: ReadonlyMap<string, string> | null;
  clock: () => Date;
  /** Base URL once listening (for the OpenAPI `servers` entry). */
  baseUrl?: string;
  /**
   * The answer to a failure of `request`, `{status, body}` (the error body of every route, also
   * of a streamed completion's error event). A 5xx — the server's fault — carries the request id
   * in `details.requestId` and is logged with it.
   */
  answerFailure(err: unknown, request: FastifyRequest): { status: number; body: HttpErrorBody };
  /** The server token (`access-token.ts`): accepted always, required when `requireToken`. */
  token: string;
  /** Whether every request must carry the token. */
  requireToken: boolean;
  /** Store directory when the server opened it (shown to the store's owner by `GET /v1/server`). */
  dir: string | null;
  /** Interval of the watch stream's heartbeat comment, in ms. */
  heartbeatMs: number;
  /** Activity counter of a server with an idle timeout. */
  activity: IdleTracker | null;
  /** Aborted when the server starts closing: open watch streams end. */
  shutdown: AbortSignal;
  /** The per-key limit on chat/completions calls running at once. */
  modelCalls: ModelCallLimit;
  /** The per-key and per-server caps on open watch streams. */
  watches: WatchLimit;
  /** Wall-clock ms one publish-many's staging may take (`0`: none). */
  workBudgetMs: number;
  /** The Prometheus metrics (`GET /metrics`) and the hooks that feed them. */
  metrics: ServerMetrics;
  /** Whether `/mcp` lists the opt-in history tools (`history`, `diff_revisions`, `undo`). */
  historyTools: boolean;
}
