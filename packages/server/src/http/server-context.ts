/**
 * What every route of one server shares.
 */
import type { Store } from '@stateflow/store';
import type { SessionManager } from '@stateflow/slates';
import type { LadderCatalog } from './ladder-catalog.js';
import type { ModelProvider } from './ladder-runtime.js';

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
}
