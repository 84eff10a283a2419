/**
 * End-to-end: the real MCP SDK `Client` over a real stdio child process, `stateflow mcp` as an
 * agent's config starts it, which forwards to the store's server it starts in the background (a
 * classic-level store in a temp directory).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { BASELINE_RESOURCE_URI } from '@stateflow/server';
import { openStore } from '@stateflow/store-leveldb';
import { patchStateInputSchema, readStateInputSchema } from '@stateflow/tools';
import { BIN, removeDir, tempDir } from '../cli/helpers.js';
import { TEST_IDLE_MS, stopServer } from './processes.js';

/** The tool result's text item parsed, after checking it is the only content and matches structuredContent. */
function payload(result: CallToolResult): unknown {
  expect(result.content).toHaveLength(1);
  const item = result.content[0];
  if (item?.type !== 'text') throw new Error('expected one text content item');
  const parsed = JSON.parse(item.text) as unknown;
  if (result.isError !== true) expect(result.structuredContent).toEqual(parsed);
  return parsed;
}

describe('stateflow mcp (SDK client over a child process)', () => {
  let dir: string;
  let client: Client;
  let transport: StdioClientTransport;

  beforeAll(async () => {
    dir = await tempDir('mcp');
    transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, '--dir', dir, '--cwd', '/repo', '--session', 's1', '--mode', 'active', 'mcp', '--idle-timeout', String(TEST_IDLE_MS)],
      stderr: 'pipe',
    });
    client = new Client({ name: 'stateflow-e2e', version: '1.0.0' });
    await client.connect(transport);
  });

  afterAll(async () => {
    await client?.close();
    if (dir !== undefined) {
      await stopServer(dir);
      await removeDir(dir);
    }
  });

  it('lists read_state and patch_state with their JSON Schemas and descriptions', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['read_state', 'patch_state']);
    expect(tools[0]?.inputSchema).toEqual(readStateInputSchema);
    expect(tools[1]?.inputSchema).toEqual(patchStateInputSchema);
    for (const tool of tools) expect(tool.description?.length).toBeGreaterThan(100);
  });

  it('patches two scopes in one call and reads cwd[1] with each projection', async () => {
    const patched = (await client.callTool({
      name: 'patch_state',
      arguments: {
        patch: {
          cwd: { intents: { release: { $ref: 'cwd.lazy.plan' } }, lazy: { plan: { steps: ['a', 'b'] } } },
          session: { tactics: { next: 'review' } },
        },
      },
    })) as CallToolResult;
    expect(patched.isError).toBeFalsy();
    expect(payload(patched)).toEqual({
      state_updates: {
        effective: [
          { path: 'intents.release', value: { $ref: 'cwd.lazy.plan' } },
          { path: 'tactics.next', value: 'review' },
        ],
        selectors: { cwd: 'cwd[1]', session: 'session[1]' },
      },
    });
    const value = (await client.callTool({ name: 'read_state', arguments: { path: 'cwd[1].lazy.plan' } })) as CallToolResult;
    expect(payload(value)).toEqual({ value: { steps: ['a', 'b'] } });
    const keys = (await client.callTool({ name: 'read_state', arguments: { path: 'cwd[1]', projection: 'keys' } })) as CallToolResult;
    expect(payload(keys)).toEqual({ meta: { type: 'object', size: 2 }, keys: { intents: 'object', lazy: 'object' } });
    const patch = (await client.callTool({ name: 'read_state', arguments: { path: 'cwd[1].lazy', projection: 'patch' } })) as CallToolResult;
    expect(payload(patch)).toEqual({ patch: { plan: { steps: ['a', 'b'] } } });
    const batch = (await client.callTool({ name: 'read_state', arguments: { paths: ['session.tactics.next', 'cwd[1].intents'] } })) as CallToolResult;
    expect(payload(batch)).toEqual({ value: ['review', { release: { $ref: 'cwd.lazy.plan' } }] });
  });

  it('returns isError with {code, message, details} (as HTTP and the CLI do) for a bad path and for rejected input', async () => {
    const bad = (await client.callTool({ name: 'read_state', arguments: { path: 'cwd.lazy.*' } })) as CallToolResult;
    expect(bad.isError).toBe(true);
    expect(bad.structuredContent).toBeUndefined();
    const body = payload(bad) as { code: string; message: string; details: unknown };
    expect(Object.keys(body)).toEqual(['code', 'message', 'details']);
    expect(body.code).toBe('PATH_SYNTAX');
    expect(body.details).toEqual({ path: 'cwd.lazy.*', column: 10 });
    expect(body.message).toContain('wildcards');
    const offset = (await client.callTool({ name: 'read_state', arguments: { path: 'cwd', offset: 1 } })) as CallToolResult;
    expect(offset.isError).toBe(true);
    expect(payload(offset)).toMatchObject({ code: 'INPUT_INVALID' });
    const owner = (await client.callTool({ name: 'patch_state', arguments: { patch: { global: { tactics: { x: 1 } } } } })) as CallToolResult;
    expect(payload(owner)).toMatchObject({ code: 'OWNER_NOT_SELECTED' });
  });

  it('serves the baseline as a resource', async () => {
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toEqual([BASELINE_RESOURCE_URI]);
    const read = await client.readResource({ uri: BASELINE_RESOURCE_URI });
    const content = read.contents[0] as { mimeType: string; text: string };
    expect(content.mimeType).toBe('application/json');
    expect(JSON.parse(content.text)).toEqual({
      state: { intents: { release: { $ref: 'cwd.lazy.plan' } }, tactics: { next: 'review' } },
      lazy_navigation: { available: true, path: 'effective.lazy', keys: { plan: 'object' } },
      transitions: [
        {
          seq: 1,
          selectors: { cwd: 'cwd[1]', session: 'session[1]' },
          patch: { cwd: { intents: { release: { $ref: 'cwd.lazy.plan' } } }, session: { tactics: { next: 'review' } } },
        },
      ],
    });
  });

  it('40 concurrent patch_state calls on different keys all succeed and every key is present', async () => {
    const calls = Array.from({ length: 40 }, (_, i) =>
      client.callTool({ name: 'patch_state', arguments: { patch: { cwd: { tactics: { [`k${i}`]: i } } } } }) as Promise<CallToolResult>,
    );
    const results = await Promise.all(calls);
    expect(results.filter((r) => r.isError === true).map((r) => payload(r))).toEqual([]);
    const read = (await client.callTool({ name: 'read_state', arguments: { path: 'cwd.tactics' } })) as CallToolResult;
    expect(payload(read)).toEqual({ value: Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${i}`, i])) });
  });

  it('a 1 MB path answers a bounded error, not the path echoed back', async () => {
    const huge = (await client.callTool({ name: 'read_state', arguments: { path: `cwd.lazy.${'x'.repeat(1_000_000)}` } })) as CallToolResult;
    expect(huge.isError).toBe(true);
    const body = payload(huge) as { code: string; message: string };
    expect(body.code).toBe('PATH_SYNTAX');
    expect(body.message).toMatch(/at column 4097: path is longer than 4096 characters\.$/);
    // The message and the details' path are both bounded (the path shown as 200 characters at most).
    expect(JSON.stringify(huge.content).length).toBeLessThan(800);
  });

  it('bounds a read_state answer: too many paths, or results past 8 MiB, are a RESPONSE_TOO_LARGE tool error', async () => {
    const written = await client.callTool({ name: 'patch_state', arguments: { patch: { cwd: { lazy: { big: 'y'.repeat(1024 * 1024) } } } } });
    expect(written.isError).toBeUndefined();
    const many = (await client.callTool({ name: 'read_state', arguments: { paths: Array.from({ length: 400 }, () => 'cwd.lazy.big') } })) as CallToolResult;
    expect(many.isError).toBe(true);
    expect((payload(many) as { code: string }).code).toBe('RESPONSE_TOO_LARGE');
    const large = (await client.callTool({ name: 'read_state', arguments: { paths: Array.from({ length: 20 }, () => 'cwd.lazy.big') } })) as CallToolResult;
    expect(large.isError).toBe(true);
    expect(payload(large)).toMatchObject({ code: 'RESPONSE_TOO_LARGE', message: expect.stringContaining('8388608 bytes'), details: { cap: 'bytes' } });
    const one = (await client.callTool({ name: 'read_state', arguments: { path: 'cwd.lazy.big', projection: 'keys' } })) as CallToolResult;
    expect(payload(one)).toEqual({ meta: { type: 'string', length: 1024 * 1024 }, keys: [] });
  });

  it('keeps every write after the client disconnects; once the server is stopped the directory reopens with them', async () => {
    await client.close();
    await stopServer(dir);
    let store;
    for (let attempt = 0; attempt < 50 && store === undefined; attempt++) {
      try {
        store = await openStore(dir);
      } catch (err) {
        if ((err as { code?: string }).code !== 'STORE_LOCKED') throw err;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    expect(store).toBeDefined();
    expect(await store?.state('cwd:/repo')).toMatchObject({ lazy: { plan: { steps: ['a', 'b'] } } });
    await store?.close();
  });
});
