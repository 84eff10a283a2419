/**
 * The routes about the server itself and its transports: who serves the store (`/v1/server`),
 * the proof that it holds its token, the live watch stream (`/v1/watch`, Server-Sent Events),
 * MCP over Streamable HTTP (`/mcp`) and the OpenAPI document.
 */
import { Type } from '@sinclair/typebox';
import { enumOf } from './json-schemas.js';
import { bodyErrors, errors, storelessErrors } from './error-responses.js';
import type { ErrorBody } from './error-responses.js';
import { VISIBILITY } from './store-read-routes.js';
import { ShownTransition, revision, streamId, streamList, tokenParameter } from './store-shapes.js';

/** The route of the server proof. */
export const PROOF_URL = '/v1/server/proof';

export const serverInfoRoute = {
  method: 'GET',
  url: '/v1/server',
  schema: {
    operationId: 'serverInfo',
    summary: "Who serves this store: version and last seq; for the store's owner also the pid and store directory (clients compare the pid with the discovery file)",
    response: {
      200: Type.Object(
        {
          version: Type.String(),
          lastSeq: revision,
          dir: Type.Optional(Type.String({ description: "Store directory (the store's owner only)" })),
          pid: Type.Optional(Type.Integer({ description: "Server process id (the store's owner only)" })),
        },
        { description: 'The server' },
      ),
      ...errors(401),
    },
  },
} as const;

export const serverProofRoute = {
  method: 'GET',
  url: PROOF_URL,
  schema: {
    operationId: 'serverProof',
    summary:
      'The proof that this server holds its token, for a fresh client nonce: HMAC-SHA256(token, "stateflow-server-proof:" + nonce). Needs no credential: a client that read the token from the discovery file checks the proof before it sends the token.',
    security: [],
    querystring: Type.Object(
      { nonce: Type.String({ pattern: '^[0-9a-f]{64}$', description: '64 lowercase hex characters, fresh for each proof' }) },
      { additionalProperties: false },
    ),
    response: {
      200: Type.Object(
        {
          proof: Type.String({ description: 'HMAC-SHA256(server token, "stateflow-server-proof:" + nonce), 64 hex' }),
          pidProof: Type.String({ description: 'HMAC-SHA256(server token, "stateflow-server-proof:" + nonce + ":pid:" + server pid), 64 hex: a client checks the pid of its discovery file before it sends the token' }),
        },
        { description: 'The proof' },
      ),
      ...storelessErrors(400),
    },
  },
} as const;

export const openApiRoute = {
  method: 'GET',
  url: '/openapi.json',
  schema: {
    operationId: 'openApi',
    summary: 'This document: the OpenAPI 3.1 description of every route, generated from the route schemas the server validates with',
    response: { 200: Type.Object({}, { description: 'The OpenAPI document', additionalProperties: true }), ...storelessErrors(401) },
  },
} as const;

export const watchRoute = {
  method: 'GET',
  url: '/v1/watch',
  schema: {
    operationId: 'watch',
    summary:
      'Server-Sent Events: a `ready` event (`id:` = the seq the stream starts after), then one `transition` event per transition with `id:` = its seq — the retained ones after the start, then live ones. ' +
      'Start: the `Last-Event-ID` header (wins), else `from`, else the last seq now (live only). A comment line every 15 s keeps it open. When the server stops, the last event is `stopping` (no id). ' +
      `\`stream\` (repeatable) keeps only transitions that changed one of them. With API keys only the caller's streams.${VISIBILITY}`,
    querystring: Type.Object(
      {
        from: Type.Optional(revision),
        stream: Type.Optional(Type.Union([streamId, streamList], { description: 'a stream id (repeat the parameter for several)' })),
        token: Type.Optional(tokenParameter),
      },
      { additionalProperties: false },
    ),
    headers: Type.Object({
      'last-event-id': Type.Optional(Type.String({ description: 'The seq of the last event received: the stream resumes after it (wins over from)' })),
    }),
    response: {
      200: {
        description: 'The event stream: `ready` {from, lastSeq}, then `transition` events (each data a transition as the caller may see it), and `stopping` when the server stops',
        content: { 'text/event-stream': { schema: ShownTransition } },
      },
      ...errors(400, 401, 404),
    },
  },
} as const;

/** The query parameters of `/mcp`: the owner selection. */
const mcpQuery = Type.Object(
  {
    global: Type.Optional(enumOf(['1', 'true'])),
    cwd: Type.Optional(Type.String({ description: 'An absolute directory' })),
    session: Type.Optional(Type.String()),
    mode: Type.Optional(enumOf(['active', 'passive'], { default: 'active' })),
    token: Type.Optional(tokenParameter),
  },
  { additionalProperties: false },
);

/** A JSON-RPC error answered by `/mcp` itself (the MCP SDK's transport), not a Stateflow error body. */
function jsonRpcError(description: string) {
  return Type.Object({ jsonrpc: Type.Literal('2.0'), id: Type.Null(), error: Type.Object({ code: Type.Integer(), message: Type.String() }) }, { description });
}

/** The JSON-RPC error `/mcp` answers to a method other than POST. */
const mcpMethodNotAllowed = jsonRpcError('Method Not Allowed: this MCP endpoint is stateless, POST only (watch changes with GET /v1/watch)');

/**
 * A status `/mcp` answers in either form: the Stateflow error body (the selection in the URL,
 * checked before any JSON-RPC is read) or the SDK's JSON-RPC error (the body it parses).
 */
function stateflowOrJsonRpc(stateflow: ErrorBody, jsonRpc: string) {
  return Type.Union([stateflow, jsonRpcError(jsonRpc)], { description: `${stateflow.description ?? ''}; or a JSON-RPC error: ${jsonRpc}` });
}

/** The error answers of `POST /mcp`. */
function mcpErrors() {
  const answers = bodyErrors(401, 404);
  return {
    ...answers,
    400: stateflowOrJsonRpc(answers[400], 'a body that is not JSON-RPC (-32700 Parse error, -32600 Invalid Request)'),
    406: jsonRpcError('Not Acceptable: the Accept header must accept application/json and text/event-stream (the MCP SDK\'s answer)'),
    415: stateflowOrJsonRpc(answers[415], 'a Content-Type other than application/json'),
  };
}

export const mcpRoute = {
  method: 'POST',
  url: '/mcp',
  schema: {
    operationId: 'mcp',
    summary:
      'MCP over Streamable HTTP, stateless with JSON responses: tools read_state and patch_state and the resource stateflow://baseline, for the owners selected in the URL. ' +
      "With API keys only your sessions (404 SESSION_NOT_FOUND for another user's; global and cwd answer 400). GET and DELETE answer 405.",
    querystring: mcpQuery,
    body: Type.Unsafe<string>({ type: 'object', description: 'A JSON-RPC 2.0 message (or batch) of MCP' }),
    response: {
      200: Type.Object({}, { description: 'The JSON-RPC response', additionalProperties: true }),
      202: Type.Null({ description: 'A notification or response was accepted' }),
      ...mcpErrors(),
    },
  },
} as const;

/** `GET /mcp` and `DELETE /mcp`: 405, as a JSON-RPC error. */
function mcpOtherMethod(method: 'GET' | 'DELETE', operationId: string) {
  return {
    method,
    url: '/mcp',
    schema: {
      operationId,
      summary: `${method} /mcp (the standalone SSE stream, the end of an MCP session) is not served: this endpoint is stateless, so it answers 405 with Allow: POST`,
      response: { 405: mcpMethodNotAllowed, ...storelessErrors(401) },
    },
  } as const;
}

export const mcpGetRoute = mcpOtherMethod('GET', 'mcpGet');
export const mcpDeleteRoute = mcpOtherMethod('DELETE', 'mcpDelete');

/** The routes of this module. */
export const metricsRoute = {
  method: 'GET',
  url: '/metrics',
  schema: {
    operationId: 'metrics',
    summary:
      "Prometheus metrics of this server, in the Prometheus text exposition format 0.0.4 (server README \"Observability\" lists every metric and its labels). The store's owner only: the server token, or a server without API keys.",
    querystring: Type.Object({ token: Type.Optional(tokenParameter) }, { additionalProperties: false }),
    response: {
      200: {
        description: 'The metrics',
        content: { 'text/plain; version=0.0.4; charset=utf-8': { schema: Type.String() } },
      },
      ...errors(400, 401),
    },
  },
} as const;

export const SERVER_ROUTES = [serverInfoRoute, serverProofRoute, openApiRoute, watchRoute, mcpRoute, mcpGetRoute, mcpDeleteRoute, metricsRoute] as const;
