/**
 * The opt-in history tools over MCP (tools README "History tools"): with `historyTools`, `/mcp`
 * lists `history`, `diff_revisions` and `undo` beside the seed's two tools; without it, exactly
 * the seed's two, as before. Through the MCP SDK's client with API keys: `history` pages the
 * selected owner's transitions with writer and net patch, `diff_revisions` takes revisions and
 * tags, and `undo` undoes only the caller's own writes (a dry run by default), its transition
 * recording the tool call.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startServer } from '@stateflow/server';
import type { ServerHandle } from '@stateflow/server';
import { setTag } from '@stateflow/store';
import { http, makeDirs } from './fixtures.js';
import type { Dirs } from './fixtures.js';

let dirs: Dirs;
let server: ServerHandle;
let plain: ServerHandle;
let session: string;

beforeAll(async () => {
  dirs = await makeDirs();
  const keys = { 'key-alice': 'alice', 'key-bob': 'bob' };
  server = await startServer({ dir: path.join(dirs.root, 'store'), ladders: dirs.ladders, port: 0, keys, historyTools: true, sweepIntervalMs: 0, onWarning: () => undefined });
  plain = await startServer({ dir: path.join(dirs.root, 'plain'), ladders: dirs.ladders, port: 0, keys, sweepIntervalMs: 0, onWarning: () => undefined });
  session = (await http(`${server.url}/v1/alice/researcher/sessions`, { key: 'key-alice', body: {} })).body.id;
});

afterAll(async () => {
  await server?.close();
  await plain?.close();
  await dirs?.cleanup();
});

async function connect(on: ServerHandle, key: string, query: string): Promise<Client> {
  const client = new Client({ name: 'history-agent', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`/mcp?${query}`, on.url), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
  return client;
}

/** The structured answer of a successful call. */
async function call(client: Client, name: string, args: Record<string, unknown>): Promise<any> {
  const result = await client.callTool({ name, arguments: args });
  expect(result.isError, JSON.stringify(result.content)).not.toBe(true);
  return result.structuredContent;
}

describe('history tools over MCP', () => {
  it('are listed only when the server offers them', async () => {
    const other = (await http(`${plain.url}/v1/alice/researcher/sessions`, { key: 'key-alice', body: {} })).body.id;
    const seedOnly = await connect(plain, 'key-alice', `session=${other}`);
    const offered = await connect(server, 'key-alice', `session=${session}`);
    try {
      expect((await seedOnly.listTools()).tools.map((t) => t.name)).toEqual(['read_state', 'patch_state']);
      expect((await offered.listTools()).tools.map((t) => t.name)).toEqual(['read_state', 'patch_state', 'history', 'diff_revisions', 'undo']);
      // An unknown tool is a protocol error (-32602), as before.
      await expect(seedOnly.callTool({ name: 'history', arguments: {} })).rejects.toThrow(/Unknown tool "history"/);
    } finally {
      await seedOnly.close();
      await offered.close();
    }
  });

  it('history pages with writer and net patch; diff_revisions takes a tag; undo undoes the caller\'s own writes', async () => {
    const agent = await connect(server, 'key-alice', `session=${session}`);
    try {
      await call(agent, 'patch_state', { patch: { lazy: { plan: 'v1' } } });
      await setTag(server.store, 'before-poison');
      await call(agent, 'patch_state', { patch: { lazy: { plan: 'poisoned', junk: [1, 2] } } });
      const page = await call(agent, 'history', { limit: 1 });
      expect(page.transitions).toHaveLength(1);
      expect(page.transitions[0]).toMatchObject({ writer: { user: 'alice', surface: 'mcp-http', tool: 'patch_state' }, changes: [{ owner: 'session', rev: 2, patch: { lazy: { plan: 'poisoned', junk: [1, 2] } } }] });
      const older = await call(agent, 'history', { limit: 5, before: page.next_before });
      expect(older.transitions.map((t: { changes: { rev: number }[] }) => t.changes[0]?.rev)).toEqual([1]);
      expect(older.next_before).toBe(null);
      expect(await call(agent, 'diff_revisions', { from: 'before-poison' })).toEqual({ patch: { lazy: { plan: 'poisoned', junk: [1, 2] } } });
      const preview = await call(agent, 'undo', { since: 'before-poison' });
      expect(preview).toMatchObject({ status: 'preview', writer: { user: 'alice' }, patches: { [`session:${session}`]: { lazy: { plan: 'v1', junk: null } } } });
      const done = await call(agent, 'undo', { since: 'before-poison', dry_run: false });
      expect(done.status).toBe('accepted');
      expect(done.transition.meta.writer).toMatchObject({ user: 'alice', tool: 'undo', args: expect.stringMatching(/^sha256:/) });
      expect(await server.store.state(`session:${session}`)).toEqual({ lazy: { plan: 'v1' } });
      const bad = await agent.callTool({ name: 'undo', arguments: { since: {} } });
      expect(bad.isError).toBe(true);
    } finally {
      await agent.close();
    }
  });
});
