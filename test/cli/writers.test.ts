/**
 * Several agents on one store told apart (server README "Who wrote it"): two MCP clients over
 * `stateflow mcp` (stdio, through the one background server) with different `clientInfo` names
 * each write; `stateflow log --json` shows each one's name in `meta.writer`, the table has a
 * WRITER column, and `log --writer NAME` keeps one client's transitions. A CLI patch (here
 * through that same server) is stamped `cli`.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { BIN, expectOk, jsonLines, removeDir, stateflow, tempDir } from './helpers.js';

let root: string;
let dir: string;
let project: string;
const clients: Client[] = [];

async function agent(name: string): Promise<Client> {
  const client = new Client({ name, version: '2.1.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, '--dir', dir, '--cwd', project, 'mcp'], stderr: 'pipe' }));
  clients.push(client);
  return client;
}

interface Logged {
  seq: number;
  meta?: { writer?: Record<string, string> };
}

beforeAll(async () => {
  root = await tempDir();
  dir = path.join(root, 'store');
  project = path.join(root, 'project');
});

afterAll(async () => {
  for (const client of clients) await client.close();
  const stopped = await stateflow(['--dir', dir, 'stop']);
  expect(stopped.code, stopped.stderr).toBe(0);
  await removeDir(root);
});

describe('writers of transitions through stateflow mcp', () => {
  it('two stdio clients with different clientInfo names each show in log --json, and --writer filters', async () => {
    const alpha = await agent('alpha-agent');
    const beta = await agent('beta-agent');
    expect((await alpha.callTool({ name: 'patch_state', arguments: { patch: { lazy: { a: 1 } } } })).isError).not.toBe(true);
    expect((await beta.callTool({ name: 'patch_state', arguments: { patch: { lazy: { b: 1 } } } })).isError).not.toBe(true);
    expect((await alpha.callTool({ name: 'patch_state', arguments: { patch: { lazy: { a: 2 } } } })).isError).not.toBe(true);

    const logged = jsonLines(expectOk(await stateflow(['--dir', dir, '--json', 'log'])).stdout) as Logged[];
    // Each carries the tool-call record: the tool and a digest of its arguments (server README "Who wrote it").
    const call = { tool: 'patch_state', args: expect.stringMatching(/^sha256:[0-9a-f]{16}$/) };
    expect(logged.map((t) => t.meta?.writer)).toEqual([
      { user: 'local', surface: 'mcp-stdio', client: 'alpha-agent/2.1.0', request: expect.any(String), ...call },
      { user: 'local', surface: 'mcp-stdio', client: 'beta-agent/2.1.0', request: expect.any(String), ...call },
      { user: 'local', surface: 'mcp-stdio', client: 'alpha-agent/2.1.0', request: expect.any(String), ...call },
    ]);
    expect(expectOk(await stateflow(['--dir', dir, 'log', '--tool', 'patch_state'])).stdout).toContain('local mcp-stdio alpha-agent/2.1.0 tool:patch_state');
    const alphas = jsonLines(expectOk(await stateflow(['--dir', dir, '--json', 'log', '--writer', 'alpha-agent'])).stdout) as Logged[];
    expect(alphas.map((t) => t.seq)).toEqual([1, 3]);
    const table = expectOk(await stateflow(['--dir', dir, 'log', '--writer', 'beta-agent/2.1.0'])).stdout;
    expect(table).toMatch(/^SEQ\s+TIME\s+WRITER\s+STREAM/);
    expect(table).toContain('local mcp-stdio beta-agent/2.1.0');
    expect(table).not.toContain('alpha-agent');
  });

  it('a CLI patch through the server is stamped cli', async () => {
    expectOk(await stateflow(['--dir', dir, '--cwd', project, 'patch', '{"lazy": {"c": 1}}']));
    const logged = jsonLines(expectOk(await stateflow(['--dir', dir, '--json', 'log', '--writer', 'cli'])).stdout) as Logged[];
    expect(logged.map((t) => t.meta?.writer)).toEqual([{ user: 'local', surface: 'cli', client: expect.stringMatching(/^stateflow\//), request: expect.any(String) }]);
  });
});
