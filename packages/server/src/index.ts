// --- HTTP server (sessions API, chat/completions, state API) ---
export { startServer, DEFAULT_PORT, DEFAULT_BODY_LIMIT } from './http/start-server.js';
export type { ServerOptions, ServerHandle } from './http/start-server.js';
export { HTTP_STATUS_BY_CODE, shouldRetry, toHttpError } from './http/error-status.js';
export type { HttpErrorBody } from './http/error-status.js';
export { loadApiKeys, authenticate, LOCAL_USER } from './http/api-keys.js';
export type { ApiKeySources } from './http/api-keys.js';
export type { RejectedLadder, LadderEntry, LadderCatalog } from './http/ladder-catalog.js';
export { openApiDocument } from './http/openapi.js';
// --- MCP (read_state, patch_state, baseline resource): in-process, and the stdio client of /mcp ---
export { createMcpServer, runMcpServer, BASELINE_RESOURCE_URI, MCP_INSTRUCTIONS } from './mcp/mcp-server.js';
export type { McpServerOptions, RunningMcpServer } from './mcp/mcp-server.js';
export { runMcpProxy } from './mcp/stdio-proxy.js';
export type { McpProxyOptions, RunningMcpProxy } from './mcp/stdio-proxy.js';
export { selectionFromUrl } from './http/routes/mcp-route.js';
// --- a store that reopens itself after a failed write (what a long-running server holds) ---
export { reopeningStore } from './reopening-store.js';
export type { ReopeningOptions } from './reopening-store.js';
