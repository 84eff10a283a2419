/**
 * The MCP server's telemetry (server README "Observability"): every request handler runs in an
 * OpenTelemetry span named after the OTel MCP semantic conventions (`{mcp.method.name}
 * {gen_ai.tool.name}`, kind SERVER, attributes `mcp.method.name`, `gen_ai.tool.name`,
 * `gen_ai.operation.name` = `execute_tool`, `error.type`), whose parent is the caller's trace
 * when the request carries `params._meta.traceparent` (W3C Trace Context, as MCP's `_meta`
 * propagation proposes), else the active context (the HTTP request's span). After each request
 * the hook is told its method, tool, outcome and time.
 */
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, context, propagation, trace } from '@opentelemetry/api';
import type { Context } from '@opentelemetry/api';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';

const tracer = trace.getTracer('@stateflow/server');

/** One MCP request the server answered. */
export interface McpOperationObservation {
  /** JSON-RPC method, e.g. `tools/call`. */
  method: string;
  /** The tool of a `tools/call`. */
  tool?: string;
  /** `tool_error` for an `isError` tool result, the JSON-RPC error code of a failed request; absent on success. */
  error?: string;
  /** Time to answer, in ms. */
  ms: number;
}

type Handler = Parameters<Server['setRequestHandler']>[1];

/** The parent context of a request: its `params._meta.traceparent`, else the active one. */
function parentOf(request: { params?: { _meta?: Record<string, unknown> } }): Context {
  const meta = request.params?._meta;
  if (meta === undefined || typeof meta['traceparent'] !== 'string') return context.active();
  const carrier: Record<string, string> = { traceparent: meta['traceparent'] };
  if (typeof meta['tracestate'] === 'string') carrier['tracestate'] = meta['tracestate'];
  return propagation.extract(ROOT_CONTEXT, carrier);
}

/** The JSON-RPC method a request schema of the SDK names (its `method` literal). */
function methodOf(schema: Parameters<Server['setRequestHandler']>[0]): string {
  const literal = (schema as { shape?: { method?: { value?: unknown } } }).shape?.method?.value;
  return typeof literal === 'string' ? literal : 'unknown';
}

/**
 * `server.setRequestHandler`, each handler wrapped in its span and told to `onOperation`.
 */
export function observedHandlers(server: Server, onOperation: ((operation: McpOperationObservation) => void) | undefined): Server['setRequestHandler'] {
  return ((schema: Parameters<Server['setRequestHandler']>[0], handler: Handler) => {
    const method = methodOf(schema);
    server.setRequestHandler(schema, (async (request: { params?: { name?: unknown; _meta?: Record<string, unknown> } }, extra: unknown) => {
      const tool = method === 'tools/call' && typeof request.params?.name === 'string' ? request.params.name : undefined;
      const start = performance.now();
      const attributes = { 'mcp.method.name': method, ...(tool === undefined ? {} : { 'gen_ai.tool.name': tool, 'gen_ai.operation.name': 'execute_tool' }) };
      const span = tracer.startSpan(tool === undefined ? method : `${method} ${tool}`, { kind: SpanKind.SERVER, attributes }, parentOf(request));
      let error: string | undefined;
      try {
        const result = await context.with(trace.setSpan(context.active(), span), () => (handler as (r: unknown, e: unknown) => unknown)(request, extra));
        if ((result as { isError?: unknown } | undefined)?.isError === true) error = 'tool_error';
        return result;
      } catch (err) {
        error = err instanceof McpError ? String(err.code) : 'error';
        throw err;
      } finally {
        if (error !== undefined) {
          span.setAttribute('error.type', error);
          span.setStatus({ code: SpanStatusCode.ERROR });
        }
        span.end();
        onOperation?.({ method, ...(tool === undefined ? {} : { tool }), ...(error === undefined ? {} : { error }), ms: performance.now() - start });
      }
    }) as Handler);
  }) as Server['setRequestHandler'];
}
