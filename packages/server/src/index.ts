// --- HTTP server (sessions API, chat/completions, state API) ---
export { startServer } from './http/start-server.js';
export type { ServerHandle } from './http/start-server.js';
export {
  DEFAULT_PORT,
  DEFAULT_BODY_LIMIT,
  DEFAULT_HEADERS_TIMEOUT_MS,
  DEFAULT_REQUEST_TIMEOUT_MS,
  DEFAULT_RATE_LIMIT,
  DEFAULT_MODEL_CALLS_PER_KEY,
} from './http/server-options.js';
export type { ServerOptions } from './http/server-options.js';
// --- observability: metrics, traces, writers ---
export { ServerMetrics } from './http/observability/metrics.js';
export type { MetricSources, McpOperation, WatchTracker } from './http/observability/metrics.js';
export type { TracingOptions } from './http/observability/tracing.js';
export type { Writer, WriterSurface } from './http/observability/writer-scope.js';
export { mcpClientName } from './mcp/stdio-proxy.js';
export type { RateLimit } from './http/build-app.js';
export type { RouteAccess, ServedRoute } from './http/access-gate.js';
export { HTTP_STATUS_BY_CODE, shouldRetry, toHttpError } from './http/error-status.js';
export type { HttpErrorBody } from './http/error-status.js';
export { loadApiKeys, authenticate, LOCAL_USER } from './http/api-keys.js';
export type { ApiKeySources } from './http/api-keys.js';
export type { RejectedLadder, LadderEntry, LadderCatalog } from './http/ladder-catalog.js';
// --- MCP (read_state, patch_state, baseline resource): in-process, and the stdio client of /mcp ---
export { createMcpServer, runMcpServer, BASELINE_RESOURCE_URI, MCP_INSTRUCTIONS } from './mcp/mcp-server.js';
export { currentToolCall, argumentsDigest } from './mcp/tool-call.js';
export type { ToolCall } from './mcp/tool-call.js';
export type { McpServerOptions, RunningMcpServer } from './mcp/mcp-server.js';
export { runMcpProxy } from './mcp/stdio-proxy.js';
export type { McpProxyOptions, RunningMcpProxy } from './mcp/stdio-proxy.js';
export { selectionFromUrl } from './http/routes/mcp-route.js';
// --- a store that reopens itself after a failed write (what a long-running server holds) ---
export { reopeningStore } from './reopening-store.js';
export type { ReopeningOptions } from './reopening-store.js';
