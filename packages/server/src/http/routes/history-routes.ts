/**
 * The history endpoints behind the history page (`/ui/`): read-only views of the log shaped for
 * a browser, beside the store API (`/v1/store/…`) that the page uses for single transitions and
 * for its guarded actions. Three groups: the log over time (the streams rail, the time
 * histogram, a stream's revisions: `history-log-routes.ts`), one state tree at a time (a level of
 * a stream's state or of the effective overlay, a path's history: `history-tree-routes.ts`), and
 * comparisons (a structural diff, the slates of a ladder session at a call:
 * `history-diff-routes.ts`); and search through time, blame, lineage, LangGraph steps and the audit
 * job (`history-insight-routes.ts`). Every response is bounded (pages, bucket counts, scan limits); none
 * returns the whole log.
 *
 * With API keys a caller sees only its own ladder sessions' streams (`stream-visibility.ts`);
 * another stream is reported as not found.
 */
import type { ContractApp } from '../contract-app.js';
import type { ServerContext } from '../server-context.js';
import { registerHistoryDiffRoutes } from './history-diff-routes.js';
import { registerHistoryInsightRoutes } from './history-insight-routes.js';
import { registerHistoryLogRoutes } from './history-log-routes.js';
import { registerHistoryTreeRoutes } from './history-tree-routes.js';

/** Register the `/v1/history/…` routes on `app`. */
export function registerHistoryRoutes(app: ContractApp, context: ServerContext): void {
  registerHistoryLogRoutes(app, context);
  registerHistoryTreeRoutes(app, context);
  registerHistoryDiffRoutes(app, context);
  registerHistoryInsightRoutes(app, context);
}
