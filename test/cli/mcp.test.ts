/**
 * `stateflow mcp` started exactly as the README's MCP config line says (paths substituted), driven
 * by the MCP SDK's own client over a real stdio child process. It starts the store's server in
 * the background (logging to the store directory); teardown stops it with `stateflow stop`.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { readmeBlock, removeDir, REPO_ROOT, stateflow, tempDir } from './helpers.js';

interface ServerEntry {
  command: string;
  args: string[];
}

/** The README's MCP server entry with its placeholder paths replaced. */
async function configuredServer(dir: string, project: string): Promise<ServerEntry> {
  const block = await readmeBlock('mcp-config', 'json');
  const substituted = block
    .replaceAll('/path/to/stateflow/.stateflow', dir)
    .replaceAll('/path/to/stateflow', REPO_ROOT)
    .replaceAll('/path/to/your/project', project);
  const config = JSON.parse(substituted) as { mcpServers: Record<string, ServerEntry> };
  const entry = config.mcpServers['stateflow'];
  if (entry === undefined) throw new Error('README MCP config has no "stateflow" server');
  return entry;
}

let root: string;
let client: Client;

beforeAll(async () => {
  root = await tempDir();
  const entry = await configuredServer(path.join(root, 'store'), path.join(root, 'project'));
  expect(entry.command).toBe('node');
  client = new Client({ name: 'stateflow-cli-test', version: '0.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: entry.args, stderr: 'pipe' }));
});

afterAll(async () => {
  await client?.close();
  // The config line's stateflow mcp started the store's server in the background: stop it.
  const stopped = await stateflow(['--dir', path.join(root, 'store'), 'stop']);
  expect(stopped.code, stopped.stderr).toBe(0);
  expect(stopped.stdout).toMatch(/^stopped the stateflow server pid \d+/);
  await removeDir(root);
});

describe('stateflow mcp (README config line)', () => {
  it('lists read_state and patch_state', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['patch_state', 'read_state']);
  });

  it('patches and reads the configured cwd owner; a bad path is an isError result', async () => {
    const patched = await client.callTool({ name: 'patch_state', arguments: { patch: { lazy: { plan: ['a', 'b'] } } } });
    expect(patched.isError).not.toBe(true);
    const read = await client.callTool({ name: 'read_state', arguments: { path: 'cwd[1].lazy.plan', projection: 'value' } });
    expect(read.structuredContent).toEqual({ value: ['a', 'b'] });
    const bad = await client.callTool({ name: 'read_state', arguments: { path: 'cwd.lazy.*' } });
    expect(bad.isError).toBe(true);
    expect(JSON.parse((bad.content as { text: string }[])[0]?.text ?? '{}')).toMatchObject({ code: 'PATH_SYNTAX' });
  });
});
