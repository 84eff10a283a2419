/**
 * Traces (server README "Traces"): a server started with an in-memory span exporter records the
 * span tree of one MCP `patch_state` — the `/mcp` HTTP span, the tool call's span, the store's
 * publish and its storage commit — in the caller's trace: `params._meta.traceparent` names the
 * parent of the tool call's span, and a `traceparent` header continues the HTTP request's trace.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { startServer } from '@stateflow/server';
import type { ServerHandle } from '@stateflow/server';
import { removeDir, tempDir } from '@stateflow/test-kit';

const exporter = new InMemorySpanExporter();
let dir: string;
let server: ServerHandle;
let client: Client;

const CALLER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';
const HEADER_TRACE = '0af7651916cd43dd8448eb211c80319c';

beforeAll(async () => {
  dir = await tempDir('tracing');
  server = await startServer({ dir, port: 0, tracing: { exporter }, onWarning: () => undefined });
  client = new Client({ name: 'traced-agent', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp?global=1', server.url)));
});

afterAll(async () => {
  await client?.close();
  await server?.close();
  await removeDir(dir);
});

const parentOf = (span: ReadableSpan): string | undefined => span.parentSpanContext?.spanId;

describe('traces', () => {
  it("records one MCP patch_state's span tree in the caller's trace (params._meta.traceparent)", async () => {
    exporter.reset();
    const result = await client.callTool({ name: 'patch_state', arguments: { patch: { lazy: { traced: true } } }, _meta: { traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01` } });
    expect(result.isError).not.toBe(true);
    const spans = exporter.getFinishedSpans().filter((span) => span.spanContext().traceId === CALLER_TRACE);
    const byName = (name: string): ReadableSpan => {
      const found = spans.find((span) => span.name === name);
      if (found === undefined) throw new Error(`no span ${name} in ${spans.map((s) => s.name).join(', ')}`);
      return found;
    };
    const tool = byName('tools/call patch_state');
    const publish = byName('stateflow.publish');
    const commit = byName('stateflow.commit');
    expect(parentOf(tool)).toBe(CALLER_SPAN);
    expect(tool.attributes).toMatchObject({ 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'patch_state', 'gen_ai.operation.name': 'execute_tool' });
    expect(parentOf(publish)).toBe(tool.spanContext().spanId);
    expect(publish.attributes).toMatchObject({ 'stateflow.durability': 'buffered', 'stateflow.publish.outcome': 'accepted' });
    expect(parentOf(commit)).toBe(publish.spanContext().spanId);
    expect(commit.attributes).toMatchObject({ 'stateflow.commit.transitions': 1, 'stateflow.commit.synced': false });
  });

  it('continues a traceparent header: POST /v1/store/publish → stateflow.publish → stateflow.commit', async () => {
    exporter.reset();
    const answer = await fetch(`${server.url}/v1/store/publish`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', traceparent: `00-${HEADER_TRACE}-${CALLER_SPAN}-01` },
      body: JSON.stringify({ changes: { global: { lazy: { n: 1 } } } }),
    });
    expect(answer.status).toBe(200);
    // The HTTP span ends in onResponse, just after the answer was sent.
    await new Promise((resolve) => setImmediate(resolve));
    const spans = exporter.getFinishedSpans().filter((span) => span.spanContext().traceId === HEADER_TRACE);
    const http = spans.find((span) => span.name === 'POST /v1/store/publish');
    const publish = spans.find((span) => span.name === 'stateflow.publish');
    const commit = spans.find((span) => span.name === 'stateflow.commit');
    expect(http?.attributes).toMatchObject({ 'http.request.method': 'POST', 'http.route': '/v1/store/publish', 'http.response.status_code': 200 });
    expect(parentOf(http as ReadableSpan)).toBe(CALLER_SPAN);
    expect(parentOf(publish as ReadableSpan)).toBe(http?.spanContext().spanId);
    expect(parentOf(commit as ReadableSpan)).toBe(publish?.spanContext().spanId);
  });
});
