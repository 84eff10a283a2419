/**
 * `@stateflow/http-contract`: the HTTP API of `stateflow serve` as data — every route's method,
 * path and fastify schema (TypeBox), from which the server validates requests and generates its
 * OpenAPI document, and from which `@stateflow/client` and the history page take their request
 * and response types (types only: a client loads none of this at run time).
 */
// --- what a route contract is, and the types taken from one ---
export type {
  ResponseContract,
  RouteBody,
  RouteContract,
  RouteKey,
  RouteParams,
  RouteQuery,
  RouteReply,
  RouteSchema,
  RoutesByKey,
} from './route-contract.js';
export { ERROR_TEXT, EVERY_ROUTE_STATUSES, codesOfStatus, errorBody } from './error-responses.js';
export type { ErrorBody, ErrorStatus } from './error-responses.js';
export { ERROR_DETAILS } from './error-details.js';
export { decodeWireError, encodeWireError } from './wire-error.js';
export type { DecodedWireError, WireErrorBody } from './wire-error.js';
export { CLIENT_HEADER, LAST_SEQ_HEADER, SURFACE_HEADER, TOKEN_HEADER, TRANSITION_HEADER } from './headers.js';
// --- every route, and the document's own members ---
export { HTTP_ROUTES } from './routes.js';
export type { HttpRoute, HttpRoutes } from './routes.js';
export { API_INFO, SECURITY, SECURITY_SCHEMES } from './api-document.js';
// --- ladder sessions, chat/completions, models ---
export {
  SESSION_ROUTES,
  SESSION_STATUSES,
  DEFAULT_SLATE_HISTORY_PAGE,
  Session,
  createSessionRoute,
  listSessionsRoute,
  getSessionRoute,
  closeSessionRoute,
  pauseSessionRoute,
  resumeSessionRoute,
  readSlatesRoute,
  readSlateHistoryRoute,
} from './session-routes.js';
export { CHAT_ROUTES, ChatCompletion, ChatCompletionChunk, ChatCompletionRequest, ModelObject, chatCompletionRoute, listModelsRoute, getModelRoute } from './chat-routes.js';
// --- the state API ---
export { stateRoutes, Selection } from './state-routes.js';
export type { ToolInputSchema } from './state-routes.js';
// --- the store API ---
export {
  AuditReport,
  MergeConflict,
  MergeInput,
  MergeResult,
  PrunedTransition,
  PublishInput,
  PublishResult,
  StreamChange,
  StreamHead,
  ShownTransition,
  DuplicateTransition,
  Transition,
  MAX_STREAMS,
  tokenParameter,
} from './store-shapes.js';
export { UndoConflict, UndoInput, UndoResult, WriterMatch } from './undo-shapes.js';
export {
  STORE_READ_ROUTES,
  MAX_TRANSITION_PAGE,
  DEFAULT_TRANSITION_PAGE,
  listStreamsRoute,
  streamHeadRoute,
  streamStateRoute,
  streamPatchRoute,
  revisionSeqRoute,
  streamDiffRoute,
  storeViewRoute,
  statesAtRoute,
  effectiveAtRoute,
  listTransitionsRoute,
  getTransitionRoute,
} from './store-read-routes.js';
export {
  STORE_WRITE_ROUTES,
  PUBLISH_MANY_LIMIT,
  publishRoute,
  publishManyRoute,
  forkRoute,
  mergeRoute,
  undoRoute,
  revertRoute,
  compactRoute,
  appendRoute,
  appendManyRoute,
  auditRoute,
} from './store-write-routes.js';
export { RETENTION_ROUTES, RetainReport, RetentionPolicy, listRetentionRoute, setRetentionRoute, removeRetentionRoute, retainRoute } from './retention-routes.js';
// --- the server, watch, MCP, this document ---
export { SERVER_ROUTES, PROOF_URL, serverInfoRoute, serverProofRoute, openApiRoute, watchRoute, mcpRoute, mcpGetRoute, mcpDeleteRoute, metricsRoute } from './server-routes.js';
// --- the history endpoints behind the page ---
export {
  HISTORY_ROUTES,
  STREAM_PAGE,
  HISTOGRAM_BUCKETS,
  NODE_PAGE,
  REVISION_PAGE,
  PATH_HISTORY_PAGE,
  DIFF_ENTRIES,
  DATE_AXIS_SCAN,
  historyStreamsRoute,
  historyHistogramRoute,
  historyNodeRoute,
  historyEffectiveNodeRoute,
  historyRevisionsRoute,
  historyPathHistoryRoute,
  historyDiffRoute,
  historySlatesRoute,
} from './history-routes.js';
export {
  STREAM_KINDS,
  StreamKind,
  Scope,
  StreamRow,
  StreamPage,
  HistogramBucket,
  Histogram,
  ValueSummary,
  ShownValue,
  NodeChild,
  NodePage,
  StreamNode,
  EffectiveNode,
  RevisionRow,
  RevisionPage,
  PathChange,
  PathHistoryPage,
  DiffEntry,
  StructuralDiff,
  DiffResult,
  SlateFileView,
  SlateView,
  SlatesAtCall,
} from './history-shapes.js';
export {
  HISTORY_INSIGHT_ROUTES,
  SEARCH_PAGE,
  BLAME_PAGE,
  LINEAGE_SCAN,
  LANGGRAPH_STEP_PAGE,
  historySearchRoute,
  historyBlameRoute,
  historyLineageRoute,
  historyLangGraphStepsRoute,
  auditJobStartRoute,
  auditJobGetRoute,
  auditJobCancelRoute,
  auditJobEventsRoute,
} from './history-insight-routes.js';
export { SearchMatch, SearchHit, SearchPage, BlameEntry, BlamePage, LineageEvent, LineageStream, LineageGraph, StepWrite, LangGraphStep, LangGraphSteps, AuditJob } from './history-insight-shapes.js';
