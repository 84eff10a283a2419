/**
 * `GET /metrics` after a scripted workload (server README "Observability"): publishes over the
 * store API, one CAS conflict, reads of each kind, an MCP call over each transport (`/mcp`, and
 * the stdio proxy forwarding to it), a ladder call with a watcher open. The text is parsed with a
 * Prometheus text-format parser, and every metric of the README is there with the counts the
 * workload implies. On a keyed server the route answers 401 without credentials, 403 to a key.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { runMcpProxy, startServer } from '@stateflow/server';
import type { RunningMcpProxy, ServerHandle } from '@stateflow/server';
import type { FakeUpstream } from './fake-upstream.js';
import { ask, http, makeDirs, startCountingUpstream, upstreamEnv } from './fixtures.js';
import type { Dirs } from './fixtures.js';
import { histogramSum, labelValues, parseMetrics, samples, total } from './prometheus-text.js';
import type { Scrape } from './prometheus-text.js';

let dirs: Dirs;
let upstream: FakeUpstream;
let server: ServerHandle;
let proxy: RunningMcpProxy;
let session: string;
let families: Scrape;
const watch = new AbortController();

const owner = (): Record<string, string> => ({ 'x-stateflow-token': server.token });

async function publish(body: unknown): Promise<number> {
  return (await http(`${server.url}/v1/store/publish`, { headers: owner(), body })).status;
}

/** The workload; returns nothing, the scrape tells. */
async function workload(): Promise<void> {
  session = (await http(`${server.url}/v1/alice/researcher/sessions`, { key: 'key-alice', body: {} })).body.id;
  for (const n of [1, 2, 3]) expect(await publish({ changes: { global: { lazy: { n } } } })).toBe(200);
  expect(await publish({ changes: { global: { lazy: { n: 4 } } }, expected: { global: 1 } })).toBe(409);
  expect((await http(`${server.url}/v1/store/state?stream=global`, { headers: owner() })).status).toBe(200);
  expect((await http(`${server.url}/v1/store/state?stream=global&rev=2`, { headers: owner() })).status).toBe(200);
  expect((await http(`${server.url}/v1/store/transitions?stream=global`, { headers: owner() })).status).toBe(200);
  expect((await http(`${server.url}/v1/store/audit`, { headers: owner(), body: {} })).status).toBe(200);

  const direct = new Client({ name: 'direct', version: '1.0.0' });
  await direct.connect(new StreamableHTTPClientTransport(new URL('/mcp?global=1', server.url), { requestInit: { headers: owner() } }));
  expect((await direct.callTool({ name: 'patch_state', arguments: { patch: { lazy: { over: 'http' } } } })).isError).not.toBe(true);
  await direct.close();

  const [agentSide, proxySide] = InMemoryTransport.createLinkedPair();
  proxy = await runMcpProxy({ selection: { global: true, mode: 'active' }, connect: async () => ({ url: server.url, token: server.token }), transport: proxySide });
  const agent = new Client({ name: 'stdio-agent', version: '3.0.0' });
  await agent.connect(agentSide);
  expect((await agent.callTool({ name: 'patch_state', arguments: { patch: { lazy: { over: 'stdio' } } } })).isError).not.toBe(true);
  await agent.close();

  const stream = await fetch(`${server.url}/v1/watch?from=0`, { headers: owner(), signal: watch.signal });
  expect(stream.status).toBe(200);
  const answer = await http(`${server.url}/v1/alice/researcher/chat/completions`, { key: 'key-alice', body: ask('hello'), headers: { 'x-session-id': session } });
  expect(answer.status).toBe(200);
}

beforeAll(async () => {
  dirs = await makeDirs();
  upstream = await startCountingUpstream();
  server = await startServer({ dir: path.join(dirs.root, 'store'), ladders: dirs.ladders, port: 0, keys: { 'key-alice': 'alice' }, env: upstreamEnv(upstream), sweepIntervalMs: 0, onWarning: () => undefined });
  await workload();
  const scraped = await fetch(`${server.url}/metrics`, { headers: owner() });
  expect(scraped.status).toBe(200);
  expect(scraped.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  families = parseMetrics(await scraped.text());
});

afterAll(async () => {
  watch.abort();
  await proxy?.close();
  await server?.close();
  await upstream?.close();
  await dirs?.cleanup();
});

describe('GET /metrics', () => {
  it('answers 401 without credentials and 403 to an API key on a keyed server', async () => {
    expect((await http(`${server.url}/metrics`)).status).toBe(401);
    expect((await http(`${server.url}/metrics`, { key: 'key-alice' })).status).toBe(403);
  });

  it('counts every publish by durability and outcome, the one conflict, and the commits that wrote them', () => {
    const transitions = server.store.lastSeq();
    // Every transition of the workload came from a publish (no fork, merge or revert).
    expect(total(families, 'stateflow_publish_duration_seconds', { durability: 'buffered', outcome: 'accepted' })).toBe(transitions);
    expect(total(families, 'stateflow_publish_duration_seconds', { outcome: 'conflict' })).toBe(1);
    expect(total(families, 'stateflow_cas_conflicts_total')).toBe(1);
    expect(histogramSum(families, 'stateflow_commit_transitions', { synced: 'false' })).toBe(transitions);
    expect(total(families, 'stateflow_commit_bytes')).toBe(total(families, 'stateflow_commit_transitions'));
    expect(total(families, 'stateflow_commit_duration_seconds')).toBe(total(families, 'stateflow_commit_transitions'));
    expect(histogramSum(families, 'stateflow_commit_bytes')).toBeGreaterThan(100 * transitions);
  });

  it('times reads by kind', () => {
    for (const kind of ['state', 'stateAt', 'transitions', 'audit']) expect(total(families, 'stateflow_read_duration_seconds', { kind, outcome: 'ok' }), kind).toBeGreaterThanOrEqual(1);
    expect(total(families, 'stateflow_read_duration_seconds', { kind: 'audit' })).toBe(1);
  });

  it('times HTTP requests by route pattern and status, never by URL', () => {
    expect(total(families, 'http_server_request_duration_seconds', { http_request_method: 'POST', http_route: '/v1/store/publish', http_response_status_code: '200' })).toBe(3);
    expect(total(families, 'http_server_request_duration_seconds', { http_route: '/v1/store/publish', http_response_status_code: '409' })).toBe(1);
    const routes = new Set(samples(families, 'http_server_request_duration_seconds_count').map((s) => s.labels?.['http_route']));
    expect(routes.has('/v1/:author/:ladder/sessions')).toBe(true);
    expect([...routes].some((route) => route?.includes('?') || route?.includes('alice'))).toBe(false);
  });

  it('times MCP operations by method and tool over each transport (OTel mcp.server.operation.duration)', () => {
    const calls = (surface: string) => total(families, 'mcp_server_operation_duration_seconds', { mcp_method_name: 'tools/call', gen_ai_tool_name: 'patch_state', stateflow_surface: surface, error_type: '' });
    expect(calls('mcp-http')).toBe(1);
    expect(calls('mcp-stdio')).toBe(1);
    expect(total(families, 'mcp_server_operation_duration_seconds', { mcp_method_name: 'tools/call' })).toBe(2);
  });

  it('times the ladder step and the model call, with its token counts (OTel gen_ai.client.*)', () => {
    expect(total(families, 'stateflow_ladder_step_duration_seconds', { ladder: '@alice/researcher', step: 'answer' })).toBe(1);
    expect(total(families, 'gen_ai_client_operation_duration_seconds', { gen_ai_operation_name: 'chat', ladder: '@alice/researcher', error_type: '' })).toBe(1);
    const reported = upstream.requests[0]?.reported;
    expect(reported).not.toBeNull();
    expect(histogramSum(families, 'gen_ai_client_token_usage', { gen_ai_token_type: 'input' })).toBe(reported?.prompt_tokens);
    expect(histogramSum(families, 'gen_ai_client_token_usage', { gen_ai_token_type: 'output' })).toBe(reported?.completion_tokens);
  });

  it('reads the gauges at scrape time: streams, store bytes, sessions by status, watchers and their lag', async () => {
    expect(total(families, 'stateflow_streams')).toBe((await server.store.streams()).length);
    expect(total(families, 'stateflow_store_bytes')).toBeGreaterThan(0);
    expect(total(families, 'stateflow_sessions', { status: 'active' })).toBe(1);
    expect(total(families, 'stateflow_watch_subscribers')).toBe(1);
    expect(samples(families, 'stateflow_watch_lag_transitions')).toHaveLength(1);
  });

  it("has Node's default process metrics", () => {
    expect(families.types.get('process_cpu_user_seconds_total')).toBe('COUNTER');
    expect(families.types.get('nodejs_eventloop_lag_seconds')).toBe('GAUGE');
    expect(total(families, 'process_resident_memory_bytes')).toBeGreaterThan(0);
  });

  it('keeps label values bounded: no stream, session or user id appears in any label', () => {
    const values = labelValues(families);
    expect(values.length).toBeGreaterThan(50);
    for (const { series, value } of values) {
      expect(value, series).not.toMatch(/^(global|cwd:|session:|slate:|ladder-session:)/);
      expect(['alice', 'local', 'key-alice', session], series).not.toContain(value);
    }
  });
});
