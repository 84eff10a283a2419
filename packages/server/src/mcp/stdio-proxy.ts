/**
 * `stateflow mcp` as a client of the store's server (server README "stdio as a client of the
 * server"): an MCP server on this process's stdio whose every request is forwarded, with the MCP
 * SDK's client, to `/mcp` of the server that holds the store. Many agent windows therefore share
 * one store through one writer process, and none of them opens the directory itself.
 *
 * - Same tools, schemas, errors and baseline resource as `/mcp`: they are the server's answers.
 * - `resources/subscribe` to the baseline: the stateless `/mcp` keeps no notification stream,
 *   so the proxy follows `GET /v1/watch` for the selected owners' streams and sends
 *   `notifications/resources/updated` for each transition that changed one of them.
 * - A server that cannot be reached before a request was sent (connection refused: it stopped,
 *   idled out or was killed) is found or started again through `connect` and the request is
 *   sent there. A request whose connection broke after it was sent is answered with
 *   `STORE_UNAVAILABLE` (`outcome: 'unknown'`): a write may have been applied, so it is not
 *   repeated behind the caller's back. The next request starts a new server if needed.
 * - The server is verified before each request that carries the token (`verifyServer` of
 *   `@stateflow/client`: the server proves it holds the token for a fresh nonce, and only then
 *   is the token sent). A process that cannot — another one listening on the port after the
 *   server crashed — gets neither the token nor the request: the proxy treats the server as gone,
 *   finds or starts it again, and says what it found through `onIgnoredServer`.
 */
import { createRequire } from 'node:module';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { FetchLike, Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolRequestSchema,
  ErrorCode as McpErrorCode,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { StateflowError, isJsonObject, isStateflowError } from '@stateflow/core';
import { authHeaders, callServer, serverError, unreachable, verifyServer, watchTransitions } from '@stateflow/client';
import type { ServerEndpoint } from '@stateflow/client';
import { PATCH_STATE_TOOL, READ_STATE_TOOL, jsonInput, selectedOwners } from '@stateflow/tools';
import type { Selection } from '@stateflow/tools';
import { CLIENT_HEADER, SURFACE_HEADER } from '@stateflow/http-contract/headers';
import { BASELINE_RESOURCE_URI, MCP_INSTRUCTIONS } from './mcp-server.js';

const { version } = createRequire(import.meta.url)('../../package.json') as { version: string };

/** Options of {@link runMcpProxy}. */
export interface McpProxyOptions {
  /** The owners served and the mode (sent to the server in the `/mcp` URL). */
  selection: Selection;
  /**
   * Find the store's server, starting one when none runs; called before the first request and
   * again after a request found the server gone.
   */
  connect: () => Promise<ServerEndpoint>;
  /** Where the agent speaks MCP. Default: this process's stdio. */
  transport?: Transport;
  /**
   * Told when the process on the server's address could not prove it holds the token
   * (`STORE_UNAVAILABLE`, `reason: 'server-unverified'`; it was sent nothing). Default: nothing.
   */
  onIgnoredServer?: (error: StateflowError) => void;
}

/** A running proxy. */
export interface RunningMcpProxy {
  server: Server;
  /** Ends subscriptions and the connections, and closes the agent-side transport. */
  close(): Promise<void>;
}

/**
 * Start the proxy: an MCP server on `options.transport` forwarding to the store's server.
 * Resolves once the agent-side transport is connected; nothing is sent to the store's server
 * until the agent's first request.
 * @throws StateflowError `INPUT_INVALID` for an invalid selection.
 */
export async function runMcpProxy(options: McpProxyOptions): Promise<RunningMcpProxy> {
  const streams = selectedOwners(options.selection).map((owner) => owner.stream);
  const server = new Server(
    { name: 'stateflow', version },
    { capabilities: { tools: {}, resources: { subscribe: true } }, instructions: MCP_INSTRUCTIONS },
  );
  const upstream = new Upstream(options.selection, options.connect, options.onIgnoredServer ?? (() => undefined), () => mcpClientName(server));
  server.setRequestHandler(ListToolsRequestSchema, () => rpc(upstream.request((client) => client.listTools())));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    try {
      // Arguments that JSON text cannot carry (1e400 parsed to Infinity) are refused here, with
      // the tool's own error: re-serialised for the server they would arrive changed.
      if (request.params.name === READ_STATE_TOOL || request.params.name === PATCH_STATE_TOOL) jsonInput(request.params.name, request.params.arguments ?? {});
      return await upstream.request((client) => client.callTool(request.params) as Promise<CallToolResult>);
    } catch (err) {
      if (err instanceof McpError) throw err;
      // A tool failure is a tool result, as every other Stateflow error is (DESIGN.md "Errors").
      const error = asStateflowError(err);
      return { content: [{ type: 'text', text: JSON.stringify(error.toJSON()) }], isError: true };
    }
  });
  server.setRequestHandler(ListResourcesRequestSchema, () => rpc(upstream.request((client) => client.listResources())));
  server.setRequestHandler(ReadResourceRequestSchema, (request) => rpc(upstream.request((client) => client.readResource(request.params))));

  const subscriptions = new Map<string, AbortController>();
  server.setRequestHandler(SubscribeRequestSchema, async (request) => {
    const { uri } = request.params;
    if (uri !== BASELINE_RESOURCE_URI) {
      throw new McpError(McpErrorCode.InvalidParams, `Unknown resource "${uri}"; resources: ${BASELINE_RESOURCE_URI}.`);
    }
    if (subscriptions.has(uri)) return {};
    // The stream starts at the server's last seq now, so only later changes notify.
    const from = await rpc(upstream.lastSeq());
    if (subscriptions.has(uri)) return {};
    const stop = new AbortController();
    subscriptions.set(uri, stop);
    void (async () => {
      for await (const _event of watchTransitions(() => upstream.endpoint(), { from, streams, signal: stop.signal })) {
        await server.sendResourceUpdated({ uri }).catch(() => undefined);
      }
    })().catch(() => undefined);
    return {};
  });
  server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
    subscriptions.get(request.params.uri)?.abort();
    subscriptions.delete(request.params.uri);
    return {};
  });

  await server.connect(options.transport ?? new StdioServerTransport());
  return {
    server,
    async close() {
      for (const stop of subscriptions.values()) stop.abort();
      subscriptions.clear();
      await upstream.close();
      await server.close();
    },
  };
}

/** One SDK client and the server it talks to. */
interface Connection {
  client: Client;
  endpoint: ServerEndpoint;
}

/** The MCP SDK client connected to the current server's `/mcp`, replaced when the server goes. */
class Upstream {
  #client: Promise<Connection> | null = null;
  /** What `#client` resolved to, once it did. */
  #connected: Connection | null = null;

  constructor(
    readonly selection: Selection,
    readonly connect: () => Promise<ServerEndpoint>,
    readonly onIgnoredServer: (error: StateflowError) => void,
    /** The agent's MCP client, `name/version` (from its `initialize`), or `undefined` before it. */
    readonly client: () => string | undefined,
  ) {}

  /** The current server (found or started), verified just now; one that fails the proof is dropped. */
  async endpoint(): Promise<ServerEndpoint> {
    const current = await this.#current();
    try {
      await this.#verify(current.endpoint);
    } catch (err) {
      this.#drop(current);
      throw err;
    }
    return current.endpoint;
  }

  /** The server's last seq. */
  async lastSeq(): Promise<number> {
    return (await callServer<{ lastSeq: number }>(await this.endpoint(), 'v1/server')).body.lastSeq;
  }

  /**
   * Run `call` on the server's client. When the server cannot be reached before the request
   * was sent, find or start the server again and run it once more there.
   */
  async request<T>(call: (client: Client) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const current = await this.#current();
      try {
        return await call(current.client);
      } catch (err) {
        const error = classify(current.endpoint, err);
        if (error instanceof McpError) throw error;
        if (!isStateflowError(error, 'STORE_UNAVAILABLE')) throw error;
        this.#drop(current);
        if (error.details.outcome !== 'not-sent' || attempt === 2) throw error;
      }
    }
  }

  async close(): Promise<void> {
    const current = this.#client;
    this.#client = null;
    if (current !== null) await (await current.catch(() => null))?.client.close().catch(() => undefined);
  }

  #current(): Promise<Connection> {
    this.#client ??= (async () => {
      const endpoint = await this.connect();
      const client = new Client({ name: 'stateflow-mcp-proxy', version });
      const url = new URL('mcp', `${endpoint.url}/`);
      if (this.selection.global === true) url.searchParams.set('global', '1');
      if (this.selection.cwd !== undefined) url.searchParams.set('cwd', this.selection.cwd);
      if (this.selection.session !== undefined) url.searchParams.set('session', this.selection.session);
      url.searchParams.set('mode', this.selection.mode);
      try {
        await client.connect(new StreamableHTTPClientTransport(url, { fetch: this.#verifiedFetch(endpoint) }));
      } catch (err) {
        const error = classify(endpoint, err);
        throw error;
      }
      const connection = { client, endpoint };
      this.#connected = connection;
      return connection;
    })();
    const pending = this.#client;
    // A failed connection is not kept: the next request tries again.
    pending.catch(() => {
      if (this.#client === pending) this.#client = null;
    });
    return pending;
  }

  /**
   * `fetch` for the SDK's transport: every request first checks the server's proof, and only
   * then carries the token.
   */
  #verifiedFetch(endpoint: ServerEndpoint): FetchLike {
    return async (url, init) => {
      await this.#verify(endpoint);
      const headers = new Headers(init?.headers);
      for (const [name, value] of Object.entries(authHeaders(endpoint))) headers.set(name, value);
      // Who writes (meta.writer): this proxy's surface and the agent's client, which the
      // stateless /mcp cannot learn from an initialize of its own.
      headers.set(SURFACE_HEADER, 'mcp-stdio');
      const client = this.client();
      if (client !== undefined) headers.set(CLIENT_HEADER, client);
      return stateflowFailure(endpoint, await fetch(url, { ...init, headers }));
    };
  }

  /**
   * @throws STORE_UNAVAILABLE `outcome: 'not-sent'` when the server does not answer the proof, or
   *   (`reason: 'server-unverified'`, also told to `onIgnoredServer`) answers it wrongly.
   */
  async #verify(endpoint: ServerEndpoint): Promise<void> {
    if (endpoint.token === undefined) return;
    try {
      await verifyServer({ url: endpoint.url, token: endpoint.token });
    } catch (err) {
      if (isStateflowError(err, 'STORE_UNAVAILABLE') && err.details.reason === 'server-unverified') this.onIgnoredServer(err);
      throw err;
    }
  }

  /**
   * Forget the client of a server that went away. It is not closed: closing would fail its other
   * requests in flight with "connection closed" although each of them has its own outcome.
   */
  #drop(current: Connection): void {
    if (this.#connected !== current) return;
    this.#connected = null;
    this.#client = null;
  }
}

/**
 * An error answer of the server that is not JSON-RPC is a Stateflow error answer: it is thrown
 * here, decoded by the client's wire codec (`serverError`), from the `fetch` the SDK's transport
 * calls, which rethrows it as it is. JSON-RPC answers (the SDK's own 4xx: 405, 406, a parse
 * error) go to the SDK unchanged.
 */
async function stateflowFailure(endpoint: ServerEndpoint, response: Response): Promise<Response> {
  if (response.ok) return response;
  const text = await response.text();
  let body: unknown = null;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON: neither form; the wire codec says so below.
  }
  if (isJsonObject(body) && body['jsonrpc'] === '2.0') return new Response(text, { status: response.status, statusText: response.statusText, headers: response.headers });
  throw await serverError(response.status, body, endpoint, 'mcp');
}

/**
 * The Stateflow error behind a failed forward: one the server answered (thrown by
 * {@link stateflowFailure}), or a failed connection.
 */
function classify(endpoint: ServerEndpoint, err: unknown): StateflowError | McpError {
  if (isStateflowError(err)) return err;
  if (err instanceof McpError) {
    // The SDK's own words for a connection that went away or an answer that never came.
    if (err.code === McpErrorCode.ConnectionClosed || err.code === McpErrorCode.RequestTimeout) return unreachable(endpoint, err);
    return err;
  }
  // fetch reports a failed connection as a TypeError ("fetch failed") with the socket error as its cause.
  if (err instanceof TypeError || (err as { name?: unknown }).name === 'TimeoutError') return unreachable(endpoint, err);
  const message = err instanceof Error ? err.message : String(err);
  return new StateflowError('INTERNAL', `The store's server failed the request: ${message}`, {}, { cause: err });
}

/**
 * A request that is not a tool call fails as a JSON-RPC error; a Stateflow failure keeps its
 * code and details in the error's `data`.
 */
async function rpc<T>(pending: Promise<T>): Promise<T> {
  try {
    return await pending;
  } catch (err) {
    if (err instanceof McpError) throw err;
    const error = asStateflowError(err);
    throw new McpError(McpErrorCode.InternalError, error.message, { code: error.code, details: error.details });
  }
}

/**
 * `name/version` of an MCP server's client (its `initialize` `clientInfo`), header-safe (visible
 * ASCII, at most 64 characters): `meta.writer.client`. `undefined` before the client initialized.
 */
export function mcpClientName(server: Pick<Server, 'getClientVersion'>): string | undefined {
  const info = server.getClientVersion();
  if (info === undefined) return undefined;
  // A header value is visible ASCII: anything else in a client's name is dropped.
  return `${info.name}/${info.version}`.replace(/[^\x20-\x7e]/g, '').slice(0, 64);
}

function asStateflowError(err: unknown): StateflowError {
  return isStateflowError(err) ? err : new StateflowError('INTERNAL', err instanceof Error ? err.message : String(err), {}, { cause: err });
}
