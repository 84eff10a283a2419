/**
 * MCP over Streamable HTTP at `/mcp` (server README "MCP over HTTP"): the same tools, schemas,
 * errors and baseline resource as `stateflow mcp`, served statelessly by the MCP SDK's
 * transport — each POST stands alone (a fresh SDK server and transport per request, no
 * `Mcp-Session-Id`), answered with JSON. The owner selection comes from the URL:
 * `/mcp?global=1&cwd=/abs/dir&session=ID&mode=active|passive`, checked by the tools' selection
 * rules and the server's ownership rules (`selection-access.ts`) before any JSON-RPC is read.
 *
 * Stateless means there is no stream for server-to-client notifications: GET (the standalone
 * SSE stream) and DELETE (session end) answer 405, and resource subscriptions are not offered
 * here; `GET /v1/watch` carries changes, and `stateflow mcp` turns them into
 * `notifications/resources/updated` for its stdio client.
 */
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { StateflowError, elidePath } from '@stateflow/core';
import { selectedOwners } from '@stateflow/tools';
import type { Selection } from '@stateflow/tools';
import { mcpDeleteRoute, mcpGetRoute, mcpRoute } from '@stateflow/http-contract';
import { createMcpServer } from '../../mcp/mcp-server.js';
import type { ContractApp } from '../contract-app.js';
import type { ServerContext } from '../server-context.js';
import { validateExcept } from '../request-validation.js';
import { authorizeSelection, sessionPrecondition } from '../selection-access.js';
import { USER_ROUTE } from '../access-gate.js';
import { currentWriter, setWriterSurface } from '../observability/writer-scope.js';
import { undoAsCaller } from '../undo-access.js';
import type { UndoInput } from '@stateflow/store';
import type { McpOperationObservation } from '../../mcp/mcp-telemetry.js';

/** Query parameters `/mcp` accepts (`token` is the server token, checked before routing). */
const PARAMETERS = ['global', 'cwd', 'session', 'mode', 'token'];

/** Register `/mcp` on `app`. */
export function registerMcpRoute(app: ContractApp, context: ServerContext): void {
  void app.register(async (scope: ContractApp) => {
    // The SDK parses the JSON-RPC body itself, so a malformed body is answered as JSON-RPC
    // (-32700 Parse error), not as a failed HTTP body.
    scope.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => done(null, body));

    // The selection in the URL is checked by selectionFromUrl, the body by the SDK: the schema
    // documents both.
    scope.route({ ...mcpRoute, config: USER_ROUTE, validatorCompiler: validateExcept('querystring', 'body'), handler: async (request, reply) => {
      setWriterSurface('mcp-http');
      const selection = selectionFromUrl(new URL(request.url, 'http://localhost').searchParams);
      const session = await authorizeSelection(context, request, selection);
      const surface = currentWriter().surface;
      const onOperation = (operation: McpOperationObservation): void => context.metrics.mcpOperation({ ...operation, surface });
      // The history tools' undo: the caller's own writes only, each stream authorized as any write.
      const historyTools = context.historyTools ? { undo: (input: UndoInput) => undoAsCaller(context, request, { ...input, writer: { user: request.user } }) } : undefined;
      // A failure that is not the caller's answers as HTTP answers it: logged, INTERNAL with the request id.
      const internalFailure = (err: unknown) => {
        const { code, message, details } = context.answerFailure(err, request).body.error;
        return { code, message, details: details as object };
      };
      const server = createMcpServer({ store: context.store, selection, onOperation, internalFailure, ...sessionPrecondition(context, request, session), ...(historyTools === undefined ? {} : { historyTools }) });
      const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      try {
        await server.connect(transport);
        const headers = new Headers();
        for (const [name, value] of Object.entries(request.headers)) {
          if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
        }
        const response = await transport.handleRequest(
          new Request(new URL(request.url, context.baseUrl ?? 'http://127.0.0.1'), { method: 'POST', headers, body: request.body }),
        );
        // The SDK answers the statuses the contract lists for /mcp (JSON-RPC over HTTP).
        void reply.status(response.status as keyof typeof mcpRoute.schema.response);
        response.headers.forEach((value, name) => void reply.header(name, value));
        return reply.send(await response.text());
      } finally {
        await server.close();
      }
    } });

    for (const route of [mcpGetRoute, mcpDeleteRoute]) {
      scope.route({
        ...route,
        config: USER_ROUTE,
        handler: async (_request, reply) =>
          reply
            .status(405)
            .header('allow', 'POST')
            .send({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Method not allowed: this MCP endpoint is stateless (POST only); watch changes with GET /v1/watch.' } }),
      });
    }
  });
}

/**
 * The owner selection of `/mcp?global=1&cwd=/abs/dir&session=ID&mode=active|passive`: the same
 * rules as `stateflow mcp`'s flags and the state API's `selection`, except that `cwd` must
 * already be absolute (a URL has no working directory to resolve it against) and at least one
 * owner must be named (`mode` defaults to `active`).
 * @throws INPUT_INVALID `{ field, reason }` for an unknown or repeated parameter, a `global`
 *   other than `1`/`true`, and every selection error of the tools (relative cwd, unknown mode,
 *   nothing selected).
 */
export function selectionFromUrl(params: URLSearchParams): Selection {
  for (const name of new Set(params.keys())) {
    if (!PARAMETERS.includes(name)) {
      throw new StateflowError('INPUT_INVALID', `/mcp does not take the parameter ${JSON.stringify(elidePath(name))}; use global=1, cwd=/abs/dir, session=ID and mode=active|passive.`, {
        field: `query.${elidePath(name)}`,
        reason: 'unknown-field',
      });
    }
    if (params.getAll(name).length > 1) {
      throw new StateflowError('INPUT_INVALID', `/mcp takes ${name} once.`, { field: `query.${name}`, reason: 'repeated' });
    }
  }
  const selection: Record<string, unknown> = { mode: params.get('mode') ?? 'active' };
  const global = params.get('global');
  if (global !== null) {
    if (global !== '1' && global !== 'true') {
      throw new StateflowError('INPUT_INVALID', `global must be 1 (or true) to select the global owner, got ${JSON.stringify(elidePath(global))}; leave it out otherwise.`, {
        field: 'query.global',
        reason: 'type',
      });
    }
    selection['global'] = true;
  }
  const cwd = params.get('cwd');
  if (cwd !== null) selection['cwd'] = cwd;
  const session = params.get('session');
  if (session !== null) selection['session'] = session;
  selectedOwners(selection as unknown as Selection);
  return selection as unknown as Selection;
}
