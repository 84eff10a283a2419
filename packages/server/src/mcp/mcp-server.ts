/**
 * The MCP server of the agent surface (README "An agent over MCP"): the tools
 * `read_state` and `patch_state` with their JSON Schemas, and the baseline snapshot as the
 * resource `stateflow://baseline`, over one store. `/mcp` serves it per request over Streamable
 * HTTP; `stateflow mcp` forwards to that (`stdio-proxy.ts`); `runMcpServer` serves it over any
 * transport in-process (for embedders that hold the store).
 *
 * A successful call returns one text content item holding exactly the tool's response JSON, and
 * the same object as `structuredContent`. A failure returns `isError: true` with the text
 * `{"code": ..., "message": ...}` — never a success carrying an error field.
 */
import { createRequire } from 'node:module';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import {
  CallToolRequestSchema,
  ErrorCode as McpErrorCode,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { isStateflowError } from '@stateflow/core';
import type { Store } from '@stateflow/store';
import {
  PATCH_STATE_DESCRIPTION,
  PATCH_STATE_TOOL,
  READ_STATE_DESCRIPTION,
  READ_STATE_TOOL,
  createRuntime,
  patchStateInputSchema,
  readStateInputSchema,
} from '@stateflow/tools';
import type { Selection } from '@stateflow/tools';
import {
  DIFF_REVISIONS_DESCRIPTION,
  DIFF_REVISIONS_TOOL,
  HISTORY_DESCRIPTION,
  HISTORY_TOOL,
  UNDO_DESCRIPTION,
  UNDO_TOOL,
  createHistoryTools,
  diffRevisionsInputSchema,
  historyInputSchema,
  undoInputSchema,
} from '@stateflow/tools';
import type { UndoInput, UndoResult } from '@stateflow/store';
import { observedHandlers } from './mcp-telemetry.js';
import { withToolCall } from './tool-call.js';
import type { McpOperationObservation } from './mcp-telemetry.js';

/** URI of the baseline resource. */
export const BASELINE_RESOURCE_URI = 'stateflow://baseline';

/** Options of {@link createMcpServer} and {@link runMcpServer}. */
export interface McpServerOptions {
  /** The open store. The MCP server never closes it; the caller owns it. */
  store: Store;
  /** The owners served and the mode. */
  selection: Selection;
  /** How many recent transitions the baseline resource considers (default 10). */
  recentTransitions?: number;
  /**
   * The tools runtime's `precondition` (expected revisions added to every `patch_state`
   * publication): `/mcp` guards a ladder session's patches with its record's revision.
   */
  precondition?: () => Promise<Record<string, number>>;
  /**
   * Told after each request the server answered (`mcp-telemetry.ts`: the server's
   * `mcp_server_operation_duration_seconds`); each request also runs in an OpenTelemetry span
   * continuing `params._meta.traceparent`. Default none.
   */
  onOperation?: (operation: McpOperationObservation) => void;
  /**
   * Offer the opt-in history tools (`history`, `diff_revisions`, `undo`; tools README "History
   * tools") beside the seed's two, with `undo` undoing as the caller may (the transport fixes the
   * writer to the caller and authorizes each stream). Default: not offered.
   */
  historyTools?: { undo: (input: UndoInput) => Promise<UndoResult> };
  /**
   * The error a tool call answers for a failure that is not the caller's (an untyped error, or
   * `INTERNAL`): `/mcp` logs it with the request id and answers what HTTP answers. Default:
   * `INTERNAL` with a fixed message — the internal message (paths, a driver's words) never
   * reaches the client.
   */
  internalFailure?: (err: unknown) => ToolFailure;
}

/** The `{ code, message, details }` of a failed tool call (the HTTP error body's `error`). */
export interface ToolFailure {
  code: string;
  message: string;
  details: object;
}

const { version } = createRequire(import.meta.url)('../../package.json') as { version: string };

/**
 * One JSON Schema validator for every SDK server of this process. The SDK builds a new Ajv per
 * server by default, and `/mcp` creates a server per request: sharing it removes most of a
 * request's cost (the validator is only used for elicitation, which these servers never send).
 */
const sharedValidator = new AjvJsonSchemaValidator();

/** What the server tells the model about itself (MCP `instructions`), on every transport. */
export const MCP_INSTRUCTIONS =
  `Stateflow memory. Read the baseline resource ${BASELINE_RESOURCE_URI} for hot state and lazy_navigation; ` +
  'read deeper with read_state and change memory with patch_state.';

/**
 * Creates an MCP server (not yet connected) serving `read_state`, `patch_state` and the
 * baseline resource for `selection` over `store`.
 * @throws StateflowError `INPUT_INVALID` for an invalid selection.
 */
export function createMcpServer(options: McpServerOptions): Server {
  const runtime = createRuntime({
    store: options.store,
    selection: options.selection,
    ...(options.recentTransitions === undefined ? {} : { recentTransitions: options.recentTransitions }),
    ...(options.precondition === undefined ? {} : { precondition: options.precondition }),
  });
  const server = new Server(
    { name: 'stateflow', version },
    {
      capabilities: { tools: {}, resources: {} },
      instructions: MCP_INSTRUCTIONS,
      jsonSchemaValidator: sharedValidator,
    },
  );

  const handle = observedHandlers(server, options.onOperation);
  const history = options.historyTools === undefined ? null : createHistoryTools({ store: options.store, selection: options.selection, undo: options.historyTools.undo });
  const tools = [
    { name: READ_STATE_TOOL, description: READ_STATE_DESCRIPTION, inputSchema: readStateInputSchema },
    { name: PATCH_STATE_TOOL, description: PATCH_STATE_DESCRIPTION, inputSchema: patchStateInputSchema },
    ...(history === null ? [] : HISTORY_TOOL_LIST),
  ];
  handle(ListToolsRequestSchema, () => ({ tools }));

  const internalFailure = options.internalFailure ?? hiddenFailure;
  handle(CallToolRequestSchema, async (request) => {
    const input = request.params.arguments ?? {};
    const name = request.params.name;
    if (name === READ_STATE_TOOL) return toolResult(() => runtime.readState(input), internalFailure);
    if (name === PATCH_STATE_TOOL) return toolResult(() => withToolCall(PATCH_STATE_TOOL, input, () => runtime.patchState(input)), internalFailure);
    if (history !== null && name === HISTORY_TOOL) return toolResult(() => history.history(input), internalFailure);
    if (history !== null && name === DIFF_REVISIONS_TOOL) return toolResult(() => history.diffRevisions(input), internalFailure);
    if (history !== null && name === UNDO_TOOL) return toolResult(() => withToolCall(UNDO_TOOL, input, () => history.undo(input)), internalFailure);
    throw new McpError(McpErrorCode.InvalidParams, `Unknown tool "${name}"; tools: ${tools.map((t) => t.name).join(', ')}.`);
  });

  handle(ListResourcesRequestSchema, () => ({
    resources: [
      {
        uri: BASELINE_RESOURCE_URI,
        name: 'baseline',
        title: 'Stateflow baseline',
        description: 'Hot effective state (intents, strategy, tactics, artifacts, response), lazy_navigation and recent transitions.',
        mimeType: 'application/json',
      },
    ],
  }));

  handle(ReadResourceRequestSchema, async (request) => {
    if (request.params.uri !== BASELINE_RESOURCE_URI) {
      throw new McpError(McpErrorCode.InvalidParams, `Unknown resource "${request.params.uri}"; resources: ${BASELINE_RESOURCE_URI}.`);
    }
    const baseline = await runtime.baseline();
    return { contents: [{ uri: BASELINE_RESOURCE_URI, mimeType: 'application/json', text: JSON.stringify(baseline) }] };
  });

  return server;
}

/** The opt-in history tools as `tools/list` shows them. */
const HISTORY_TOOL_LIST = [
  { name: HISTORY_TOOL, description: HISTORY_DESCRIPTION, inputSchema: historyInputSchema },
  { name: DIFF_REVISIONS_TOOL, description: DIFF_REVISIONS_DESCRIPTION, inputSchema: diffRevisionsInputSchema },
  { name: UNDO_TOOL, description: UNDO_DESCRIPTION, inputSchema: undoInputSchema },
];

/** The default {@link McpServerOptions.internalFailure}: `INTERNAL`, saying nothing of the cause. */
function hiddenFailure(): ToolFailure {
  return { code: 'INTERNAL', message: 'Internal error in the Stateflow MCP server; its log has the details.', details: {} };
}

/**
 * Runs one tool call and maps its outcome to an MCP tool result: a typed error of the caller's
 * as the HTTP error body's `{ code, message, details }`, anything else as `internalFailure` says.
 */
async function toolResult(call: () => Promise<object>, internalFailure: (err: unknown) => ToolFailure): Promise<CallToolResult> {
  try {
    const result = await call();
    return { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result as Record<string, unknown> };
  } catch (err) {
    const body = isStateflowError(err) && err.code !== 'INTERNAL' ? err.toJSON() : internalFailure(err);
    return { content: [{ type: 'text', text: JSON.stringify(body) }], isError: true };
  }
}

/** A running MCP server. */
export interface RunningMcpServer {
  server: Server;
  /** Closes the MCP connection (not the store). */
  close(): Promise<void>;
}

/**
 * Creates the MCP server and connects it to `transport` (default: this process's stdio).
 * Resolves once connected; the server then runs until the transport closes.
 * @throws StateflowError `INPUT_INVALID` for an invalid selection.
 */
export async function runMcpServer(options: McpServerOptions & { transport?: Transport }): Promise<RunningMcpServer> {
  const server = createMcpServer(options);
  await server.connect(options.transport ?? new StdioServerTransport());
  return { server, close: () => server.close() };
}
