/**
 * The stdio proxy's error path through the real MCP SDK client (server README "stdio as a client
 * of the server"): when the server answers a forwarded request with an HTTP error, the agent gets
 * the server's Stateflow error itself — its code and typed details, decoded by the one wire codec —
 * as an `isError` tool result for a tool call, and as a JSON-RPC error carrying `{ code, details }`
 * for any other request. Never the SDK's "Error POSTing to endpoint" text.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { runMcpProxy, startServer } from '@stateflow/server';
import type { RunningMcpProxy, ServerHandle } from '@stateflow/server';
import type { Selection } from '@stateflow/tools';
import { http, makeDirs } from './fixtures.js';
import type { Dirs } from './fixtures.js';

let dirs: Dirs;
let server: ServerHandle;
let alicesSession: string;
const proxies: RunningMcpProxy[] = [];

beforeAll(async () => {
  dirs = await makeDirs();
  server = await startServer({ dir: path.join(dirs.root, 'store'), ladders: dirs.ladders, port: 0, keys: { 'key-alice': 'alice', 'key-bob': 'bob' }, sweepIntervalMs: 0, onWarning: () => undefined });
  alicesSession = (await http(`${server.url}/v1/alice/researcher/sessions`, { key: 'key-alice', body: {} })).body.id;
});

afterAll(async () => {
  for (const proxy of proxies) await proxy.close();
  await server?.close();
  await dirs?.cleanup();
});

/** An agent's SDK client talking to a proxy that forwards with `apiKey` for `selection`. */
async function agentThroughProxy(apiKey: string, selection: Selection): Promise<Client> {
  const [agentSide, proxySide] = InMemoryTransport.createLinkedPair();
  proxies.push(await runMcpProxy({ selection, connect: async () => ({ url: server.url, apiKey }), transport: proxySide }));
  const agent = new Client({ name: 'agent', version: '1.0.0' });
  await agent.connect(agentSide);
  return agent;
}

/** The Stateflow error of an `isError` tool result. */
function toolError(result: Awaited<ReturnType<Client['callTool']>>): unknown {
  expect(result.isError).toBe(true);
  const [content] = result.content as Array<{ type: string; text: string }>;
  return JSON.parse(content?.text ?? 'null');
}

describe('the stdio proxy answers the server\'s HTTP errors as the Stateflow errors they are', () => {
  it("another user's session: SESSION_NOT_FOUND (404) with its details, as a tool error and as a JSON-RPC error", async () => {
    const agent = await agentThroughProxy('key-bob', { session: alicesSession, mode: 'active' });
    const error = toolError(await agent.callTool({ name: 'read_state', arguments: { path: 'tactics' } }));
    expect(error).toEqual({ code: 'SESSION_NOT_FOUND', message: expect.stringContaining(alicesSession), details: { session: alicesSession } });
    const listed = await agent.listTools().catch((err: unknown) => err);
    expect(listed).toBeInstanceOf(McpError);
    expect((listed as McpError).data).toEqual({ code: 'SESSION_NOT_FOUND', details: { session: alicesSession } });
    expect((listed as McpError).message).not.toMatch(/POSTing/);
  });

  it('an unknown API key: UNAUTHORIZED (401)', async () => {
    const agent = await agentThroughProxy('key-nobody', { session: alicesSession, mode: 'active' });
    expect(toolError(await agent.callTool({ name: 'patch_state', arguments: { patch: { tactics: { next: 'x' } } } }))).toMatchObject({ code: 'UNAUTHORIZED', details: {} });
  });

  it('a selection the keyed server refuses (the cwd owner): its 400 code, and nothing written', async () => {
    const agent = await agentThroughProxy('key-bob', { cwd: '/work/project', mode: 'active' });
    const error = toolError(await agent.callTool({ name: 'patch_state', arguments: { patch: { tactics: { next: 'x' } } } }));
    expect(error).toEqual({ code: 'INPUT_INVALID', message: expect.stringMatching(/^With API keys configured the state API serves only your sessions/), details: { field: 'selection' } });
    const status = (await http(`${server.url}/v1/store/head?stream=${encodeURIComponent('cwd:/work/project')}`, { headers: { 'x-stateflow-token': server.token } })).body;
    expect(status).toMatchObject({ rev: 0 });
  });
});
