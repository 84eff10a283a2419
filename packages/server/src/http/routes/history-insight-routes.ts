/**
 * The history page's second set of views (contract `history-insight-routes.ts`): search through
 * time, blame of a subtree, the lineage of a stream and a LangGraph thread as steps — reads any
 * caller may make of the streams it sees — and the audit as a background job, for the store's
 * owner only (`audit-job-routes.ts`).
 */
import { BLAME_PAGE, LANGGRAPH_STEP_PAGE, SEARCH_PAGE, historyBlameRoute, historyLangGraphStepsRoute, historyLineageRoute, historySearchRoute } from '@stateflow/http-contract';
import type { ContractApp } from '../contract-app.js';
import { visibleHead } from '../history/stream-reads.js';
import { langGraphSteps } from '../insight/langgraph-steps.js';
import { compileMatcher } from '../insight/search-matcher.js';
import { streamLineage } from '../insight/stream-lineage.js';
import { subtreeBlame } from '../insight/subtree-blame.js';
import { searchThroughTime } from '../insight/time-search.js';
import type { ServerContext } from '../server-context.js';
import { streamVisibility } from '../stream-visibility.js';
import { USER_ROUTE } from '../access-gate.js';
import { workBudget } from '@stateflow/store';
import { requestBudget } from '../work-budget.js';
import { registerAuditJobRoutes } from './audit-job-routes.js';

/** Register search, blame, lineage, LangGraph steps and the audit job on `app`. */
export function registerHistoryInsightRoutes(app: ContractApp, context: ServerContext): void {
  const { store } = context;
  app.route({
    ...historySearchRoute,
    config: USER_ROUTE,
    handler: async (request) => {
      const { stream, key, value, text, after = 0, limit = SEARCH_PAGE.default, scan = SEARCH_PAGE.scan } = request.query;
      const matcher = compileMatcher({ ...(key === undefined ? {} : { key }), ...(value === undefined ? {} : { value }), ...(text === undefined ? {} : { text }) });
      const visibility = streamVisibility(context, request);
      if (stream !== undefined) await visibleHead(store, visibility, stream);
      return searchThroughTime(store, visibility, { matcher, after, limit, scan, ...(stream === undefined ? {} : { stream }) }, requestBudget(context, request));
    },
  });

  app.route({
    ...historyBlameRoute,
    config: USER_ROUTE,
    handler: async (request) => {
      const { stream, pointer = '', offset = 0, limit = BLAME_PAGE.default, scan = BLAME_PAGE.scan, until } = request.query;
      const head = await visibleHead(store, streamVisibility(context, request), stream);
      const page = { rev: request.query.rev ?? head.rev, pointer, offset, limit, scan, ...(until === undefined ? {} : { until }) };
      return subtreeBlame(store, head, page, requestBudget(context, request));
    },
  });

  app.route({
    ...historyLineageRoute,
    config: USER_ROUTE,
    handler: async (request) => {
      const visibility = streamVisibility(context, request);
      return streamLineage(store, visibility, await visibleHead(store, visibility, request.query.stream), workBudget(0));
    },
  });

  app.route({
    ...historyLangGraphStepsRoute,
    config: USER_ROUTE,
    handler: async (request) => {
      const { stream, from = 1, limit = LANGGRAPH_STEP_PAGE.default } = request.query;
      const head = await visibleHead(store, streamVisibility(context, request), stream);
      return langGraphSteps(store, head, { from, limit });
    },
  });

  registerAuditJobRoutes(app, context);
}
