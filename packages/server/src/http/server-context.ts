/**
 * What every route of one server shares.
 */
import type { Store } from '@stateflow/store';
import type { SessionManager } from '@stateflow/slates';
import type { LadderCatalog } from './ladder-catalog.js';
import type { ModelProvider } from './ladder-runtime.js';
import type { IdleTracker } from './idle-tracker.js';

/** Shared state of one running server. */
export interface ServerContext {
  store: Store;
  sessions: SessionManager;
  catalog: LadderCatalog;
  /** The configured model provider, or `null` (chat/completions answers 503). */
  model: ModelProvider | null;
  /** API key → user id, or `null` for the single local user. */
  keys: ReadonlyMap<string, string> | null;
  clock: () => Date;
  /** Base URL once listening (for the OpenAPI `servers` entry). */
  baseUrl?: string;
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
}
