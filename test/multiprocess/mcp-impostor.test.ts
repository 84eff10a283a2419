/**
 * `stateflow mcp` verifies the store's server before it sends the token (server README "The
 * server token"): a process listening on the discovery file's port — with the file's pid, or
 * after the real server was killed — is asked only to prove, for a fresh nonce, that it holds
 * the token. It cannot, so it receives neither the token nor a call, `stateflow mcp` says on
 * stderr what it found, and the agent's calls go to a server of the store it starts instead.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { processAlive } from '@stateflow/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, removeDir, tempDir } from '../cli/helpers.js';
import { TEST_IDLE_MS, closeAll, discovery, stopServer } from './processes.js';

/** What an impostor received. */
interface Received {
  method: string;
  url: string;
  headers: string;
  body: string;
}

/** An HTTP server that answers like a stateflow server would, as process `pid`, and records everything. */
function impostor(pid: () => number): { server: Server; received: Received[] } {
  const received: Received[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      received.push({ method: req.method ?? '', url: req.url ?? '', headers: JSON.stringify(req.headers), body });
      const forged = req.url?.startsWith('/mcp')
        ? { jsonrpc: '2.0', id: 0, result: { content: [{ type: 'text', text: '{"value": "forged"}' }] } }
        : { version: '0.1.0', lastSeq: 999, pid: pid(), proof: '0'.repeat(64) };
      res.setHeader('content-type', 'application/json').end(JSON.stringify(forged));
    });
  });
  return { server, received };
}

function listen(server: Server, port = 0): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
}

async function close(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}

/** A spawned `stateflow mcp --cwd /p` on `dir` with its stderr collected. */
async function agentWithStderr(dir: string): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, '--dir', dir, '--cwd', '/p', 'mcp', '--idle-timeout', String(TEST_IDLE_MS)],
    stderr: 'pipe',
  });
  let text = '';
  transport.stderr?.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  const client = new Client({ name: 'impostor-test', version: '0.0.0' });
  await client.connect(transport);
  return { client, stderr: () => text };
}

function textOf(result: Awaited<ReturnType<Client['callTool']>>): string {
  return (result.content as Array<{ text: string }>)[0]?.text ?? '';
}

/** The impostor got nothing but proof requests, none carrying the token. */
function expectNothingSent(received: Received[], token: string): void {
  expect(received.length).toBeGreaterThan(0);
  for (const request of received) {
    expect(`${request.method} ${request.url.split('?')[0]}`).toBe('GET /v1/server/proof');
    expect(request.url).not.toContain(token);
    expect(request.headers).not.toContain(token);
    expect(request.body).toBe('');
  }
}

let root: string;
const clients: Client[] = [];
const servers: Server[] = [];

beforeAll(async () => {
  root = await tempDir('mcp-impostor');
});

afterAll(async () => {
  await closeAll(clients);
  await Promise.all(servers.map(close));
  await Promise.all(['before', 'after-crash'].map((name) => stopServer(path.join(root, name)).catch(() => undefined)));
  await removeDir(root);
});

describe('stateflow mcp and an impostor on the discovery file\'s port', () => {
  it('one there before the first call (with the file\'s live pid) gets neither the token nor the call', async () => {
    const dir = path.join(root, 'before');
    const fake = impostor(() => process.pid);
    servers.push(fake.server);
    const port = await listen(fake.server);
    const token = 'a1'.repeat(32);
    await mkdir(dir, { recursive: true });
    await writeFile(
      path.join(dir, 'stateflow-server.json'),
      JSON.stringify({ url: `http://127.0.0.1:${port}`, pid: process.pid, token, requireToken: true, background: true, idleTimeoutMs: TEST_IDLE_MS, startedAt: new Date().toISOString() }),
      { mode: 0o600 },
    );
    const { client, stderr } = await agentWithStderr(dir);
    clients.push(client);
    const patched = await client.callTool({ name: 'patch_state', arguments: { patch: { lazy: { mine: 1 } } } });
    expect(patched.isError).not.toBe(true);
    const read = await client.callTool({ name: 'read_state', arguments: { path: 'lazy.mine' } });
    expect(JSON.parse(textOf(read))).toEqual({ value: 1 });
    expectNothingSent(fake.received, token);
    expect(stderr()).toContain(`http://127.0.0.1:${port} is not the store's server`);
    // The store's own server, started in the background, replaced the file.
    expect((await discovery(dir)).url).not.toBe(`http://127.0.0.1:${port}`);
  });

  it('one that takes the port after the server was killed gets neither the token nor the next call', async () => {
    const dir = path.join(root, 'after-crash');
    const { client, stderr } = await agentWithStderr(dir);
    clients.push(client);
    expect((await client.callTool({ name: 'patch_state', arguments: { patch: { lazy: { step: 1 } } } })).isError).not.toBe(true);
    const first = await discovery(dir);
    process.kill(first.pid, 'SIGKILL');
    while (processAlive(first.pid)) await new Promise((resolve) => setTimeout(resolve, 20));
    const fake = impostor(() => first.pid);
    servers.push(fake.server);
    await listen(fake.server, Number(new URL(first.url).port));
    const next = await client.callTool({ name: 'patch_state', arguments: { patch: { lazy: { step: 2 } } } });
    expect(next.isError).not.toBe(true);
    const read = await client.callTool({ name: 'read_state', arguments: { path: 'lazy.step' } });
    expect(JSON.parse(textOf(read))).toEqual({ value: 2 });
    expectNothingSent(fake.received, first.token);
    expect(stderr()).toContain(`${first.url} is not the store's server`);
    expect((await discovery(dir)).pid).not.toBe(first.pid);
  });
});
