/**
 * `/mcp` and the store API against spawned servers: the token of a background server, API keys
 * (another user's session is 404, as in the state API), the loopback Host/Origin guard, and bad
 * input (malformed JSON-RPC, an unknown tool, an invalid selection in the URL, an invalid patch)
 * answered with typed errors while nothing is published.
 */
import { stat, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, removeDir, tempDir } from '../cli/helpers.js';
import { closeAll, discovery, httpAgent, spawnServe, stdioAgent, stopServer, type ServeProcess } from './processes.js';

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

let root: string;
let background: string;
let plain: ServeProcess;
let keyed: ServeProcess;
let clients: Client[] = [];
let aliceSession: string;

async function lastSeq(url: string, headers: Record<string, string> = {}): Promise<number> {
  return ((await (await fetch(`${url}/v1/server`, { headers })).json()) as { lastSeq: number }).lastSeq;
}

/** POST one raw body to /mcp. */
async function postMcp(url: string, query: string, body: string, headers: Record<string, string> = {}): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${url}/mcp?${query}`, { method: 'POST', headers: { ...MCP_HEADERS, ...headers }, body });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const call = (id: number, name: string, args: unknown) => JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });

beforeAll(async () => {
  root = await tempDir('mcp-http');
  background = path.join(root, 'background');
  plain = await spawnServe(path.join(root, 'plain'));
  const keys = path.join(root, 'keys.json');
  await writeFile(keys, JSON.stringify({ 'k-alice': 'alice', 'k-bob': 'bob' }));
  keyed = await spawnServe(path.join(root, 'keyed'), ['--keys', keys, '--ladders', path.join(REPO_ROOT, 'packages/cli/examples/ladders')]);
  const created = await fetch(`${keyed.url}/v1/demo/notes/sessions`, { method: 'POST', headers: { authorization: 'Bearer k-alice', 'content-type': 'application/json' }, body: '{}' });
  aliceSession = ((await created.json()) as { id: string }).id;
  // The first stateflow mcp starts the background server — last, so that its idle timeout
  // (TEST_IDLE_MS) starts after the slow spawns above, not during them on a loaded machine.
  const agent = await stdioAgent(background, ['--cwd', '/p']);
  clients.push(agent);
  await agent.callTool({ name: 'read_state', arguments: { path: 'cwd', projection: 'keys' } });
});

afterAll(async () => {
  await closeAll(clients);
  clients = [];
  await Promise.all([plain?.stop(), keyed?.stop()]);
  await stopServer(background);
  await removeDir(root);
});

describe('the token of a background server', () => {
  it('is in a discovery file only its owner can read, and every request without it is refused (401)', async () => {
    const file = path.join(background, 'stateflow-server.json');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const { url, token } = await discovery(background);
    for (const route of ['/mcp?cwd=/p', '/v1/store/streams', '/v1/watch', '/openapi.json', '/v1/server', '/nothing']) {
      const method = route.startsWith('/mcp') ? 'POST' : 'GET';
      const body = method === 'POST' ? call(1, 'read_state', { path: 'cwd' }) : undefined;
      for (const headers of [{}, { 'x-stateflow-token': 'f'.repeat(64) }, { authorization: `Bearer ${token.slice(1)}` }]) {
        const response = await fetch(`${url}${route}`, { method, headers: { ...MCP_HEADERS, ...headers }, ...(body === undefined ? {} : { body }) });
        expect(response.status, `${route} ${JSON.stringify(headers)}`).toBe(401);
        expect(((await response.json()) as { error: { code: string } }).error.code).toBe('UNAUTHORIZED');
      }
    }
    // With the token, in any of the accepted places.
    for (const headers of [{ 'x-stateflow-token': token }, { authorization: `Bearer ${token}` }]) {
      expect((await fetch(`${url}/v1/store/streams`, { headers })).status).toBe(200);
    }
    expect((await fetch(`${url}/v1/store/streams?token=${token}`)).status).toBe(200);
    const viaHttp = await httpAgent(url, 'cwd=/p', { authorization: `Bearer ${token}` });
    clients.push(viaHttp);
    expect((await viaHttp.listTools()).tools.map((t) => t.name).sort()).toEqual(['patch_state', 'read_state']);
  });
});

describe('/mcp with API keys', () => {
  it("serves a user's own session, answers 404 for another user's, and refuses global and cwd (400)", async () => {
    const mine = await httpAgent(keyed.url, `session=${aliceSession}`, { authorization: 'Bearer k-alice' });
    clients.push(mine);
    const patched = await mine.callTool({ name: 'patch_state', arguments: { patch: { lazy: { secret: 1 } } } });
    expect(patched.isError).not.toBe(true);
    const before = await lastSeq(keyed.url, { authorization: 'Bearer k-alice' });
    const foreign = await postMcp(keyed.url, `session=${aliceSession}`, call(1, 'patch_state', { patch: { lazy: { x: 1 } } }), { authorization: 'Bearer k-bob' });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toMatchObject({ error: { code: 'SESSION_NOT_FOUND' } });
    const unknown = await postMcp(keyed.url, 'session=sess_00000000000000000000000000000000', call(1, 'read_state', { path: 'lazy' }), { authorization: 'Bearer k-bob' });
    expect(unknown.status).toBe(404);
    for (const query of ['global=1', 'cwd=/p']) {
      const shared = await postMcp(keyed.url, query, call(1, 'read_state', { path: 'lazy' }), { authorization: 'Bearer k-bob' });
      expect(shared.status, query).toBe(400);
      expect(shared.body).toMatchObject({ error: { code: 'INPUT_INVALID' } });
    }
    const anonymous = await postMcp(keyed.url, `session=${aliceSession}`, call(1, 'read_state', { path: 'lazy' }));
    expect(anonymous.status).toBe(401);
    expect(await lastSeq(keyed.url, { authorization: 'Bearer k-alice' })).toBe(before);
  });
});

describe('/mcp on a server without keys', () => {
  it('keeps the loopback Host/Origin guard (403)', async () => {
    // fetch sets Host itself: a DNS-rebinding request is sent with node:http.
    const host = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const request = httpRequest(`${plain.url}/mcp?cwd=/p`, { method: 'POST', headers: { ...MCP_HEADERS, host: 'evil.example' } }, (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      });
      request.on('error', reject);
      request.end(call(1, 'read_state', { path: 'cwd' }));
    });
    expect(host.status).toBe(403);
    expect(JSON.parse(host.body)).toMatchObject({ error: { code: 'FORBIDDEN', details: { header: 'Host' } } });
    const origin = await postMcp(plain.url, 'cwd=/p', call(1, 'read_state', { path: 'cwd' }), { origin: 'https://evil.example' });
    expect(origin.status).toBe(403);
    expect(origin.body).toMatchObject({ error: { code: 'FORBIDDEN', details: { header: 'Origin' } } });
    const local = await postMcp(plain.url, 'cwd=/p', call(1, 'read_state', { path: 'cwd', projection: 'keys' }), { origin: 'http://localhost:5173' });
    expect(local.status).toBe(200);
  });

  it('answers bad input with typed errors and publishes nothing', async () => {
    const before = await lastSeq(plain.url);
    const malformed = await postMcp(plain.url, 'cwd=/p', '{"jsonrpc": "2.0", "id": 1, "method": ');
    expect(malformed).toMatchObject({ status: 400, body: { error: { code: -32700 } } });
    const notRpc = await postMcp(plain.url, 'cwd=/p', '{"hello": "world"}');
    expect(notRpc.status).toBe(400);
    expect((notRpc.body['error'] as { code: number }).code).toBeLessThan(-32000);
    const unknownTool = await postMcp(plain.url, 'cwd=/p', call(7, 'drop_state', {}));
    expect(unknownTool.status).toBe(200);
    expect(unknownTool.body).toMatchObject({ id: 7, error: { code: -32602 } });
    for (const [query, field] of [
      ['cwd=relative/dir', 'selection.cwd'],
      ['cwd=/p&mode=sleepy', 'selection.mode'],
      ['', 'selection'],
      ['global=yes', 'query.global'],
      ['sesion=s', 'query.sesion'],
    ] as const) {
      const bad = await postMcp(plain.url, query, call(1, 'patch_state', { patch: { lazy: { x: 1 } } }));
      expect(bad.status, query).toBe(400);
      expect(bad.body, query).toMatchObject({ error: { code: 'INPUT_INVALID', details: { field } } });
    }
    const badPatch = await postMcp(plain.url, 'cwd=/p', call(2, 'patch_state', { patch: { lazy: { x: null, y: { z: null } }, nope: 1 } }));
    expect(badPatch.status).toBe(200);
    const result = badPatch.body['result'] as { isError: boolean; content: { text: string }[] };
    expect(result.isError).toBe(true);
    expect(JSON.parse(result.content[0]?.text ?? '{}')).toMatchObject({ code: 'INPUT_INVALID' });
    expect(await lastSeq(plain.url)).toBe(before);
    const get = await fetch(`${plain.url}/mcp?cwd=/p`, { headers: { accept: 'text/event-stream' } });
    expect(get.status).toBe(405);
  });
});
