/**
 * A tool call's failure that is not the caller's answers as HTTP does (server README "MCP over
 * HTTP", "Errors"): `/mcp` is served by the same server, so an untyped error inside a tool
 * (here the store's publish failing with a driver's words and a path) answers `INTERNAL` with
 * the request id — never the internal message — exactly as `POST /v1/store/publish` does.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startServer } from '@stateflow/server';
import type { ServerHandle } from '@stateflow/server';
import { openMemoryStore } from '@stateflow/store';
import type { Store } from '@stateflow/store';
import { http } from './fixtures.js';

const SECRET = 'password authentication failed for user "svc" at /srv/secret/store';

const logged: string[] = [];
let local: Store;
let server: ServerHandle;

beforeAll(async () => {
  local = await openMemoryStore();
  const failing = new Proxy(local, {
    get(target, key) {
      if (key === 'publish') return () => Promise.reject(new Error(SECRET));
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  server = await startServer({ store: failing, port: 0, sweepIntervalMs: 0, onWarning: () => undefined, logDestination: { write: (line: string) => logged.push(line) } });
});

afterAll(async () => {
  await server?.close();
  await local?.close();
});

describe('an MCP tool failure that is not the caller', () => {
  it('answers INTERNAL with the request id and without the internal message, as HTTP does', async () => {
    const client = new Client({ name: 'internal-errors', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL('/mcp?global=1', server.url), { requestInit: { headers: { 'x-stateflow-token': server.token } } }));
    try {
      const result = await client.callTool({ name: 'patch_state', arguments: { patch: { lazy: { plan: 'v1' } } } });
      expect(result.isError).toBe(true);
      const text = (result.content as { type: string; text: string }[])[0]?.text ?? '';
      expect(text).not.toContain('secret');
      expect(text).not.toContain('password');
      const body = JSON.parse(text);
      expect(body.code).toBe('INTERNAL');
      expect(typeof body.details.requestId).toBe('string');
      // The server's log keeps the cause, under that request id.
      expect(logged.some((line) => line.includes(body.details.requestId) && line.includes('secret'))).toBe(true);
    } finally {
      await client.close();
    }
    const answer = await http(`${server.url}/v1/store/publish`, { headers: { 'x-stateflow-token': server.token }, body: { changes: { global: { a: 1 } } } });
    expect([answer.status, answer.body.error.code]).toEqual([500, 'INTERNAL']);
    expect(JSON.stringify(answer.body)).not.toContain('secret');
  });
});
