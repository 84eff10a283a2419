/**
 * Who wrote each transition (server README "Who wrote it"): the server stamps `meta.writer` on
 * every write it makes — the store API, `/mcp`, a ladder call — from the request's credentials,
 * route and headers; a writer a caller puts in its own `meta` is replaced, the rest of its meta
 * is kept.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { argumentsDigest, startServer } from '@stateflow/server';
import type { ServerHandle } from '@stateflow/server';
import type { FakeUpstream } from './fake-upstream.js';
import { ask, http, makeDirs, startCountingUpstream, upstreamEnv } from './fixtures.js';
import type { Dirs } from './fixtures.js';

let dirs: Dirs;
let upstream: FakeUpstream;
let server: ServerHandle;
let session: string;

beforeAll(async () => {
  dirs = await makeDirs();
  upstream = await startCountingUpstream();
  server = await startServer({ dir: path.join(dirs.root, 'store'), ladders: dirs.ladders, port: 0, keys: { 'key-alice': 'alice' }, env: upstreamEnv(upstream), sweepIntervalMs: 0, onWarning: () => undefined });
  session = (await http(`${server.url}/v1/alice/researcher/sessions`, { key: 'key-alice', body: {} })).body.id;
  expect(typeof session).toBe('string');
});

afterAll(async () => {
  await server?.close();
  await upstream?.close();
  await dirs?.cleanup();
});

/** `meta` of transition `seq`. */
async function metaOf(seq: number): Promise<Record<string, unknown>> {
  return ((await server.store.transition(seq)).meta ?? {}) as Record<string, unknown>;
}

describe('meta.writer', () => {
  it('replaces a writer a caller forged over the store API, keeps its note, and names the owner and the request', async () => {
    const answer = await http(`${server.url}/v1/store/publish`, {
      headers: { 'x-stateflow-token': server.token },
      body: { changes: { global: { lazy: { forged: 1 } } }, meta: { writer: { user: 'mallory', surface: 'ladder' }, note: 'by hand' } },
    });
    expect(answer.status).toBe(200);
    const meta = await metaOf(answer.body.transition.seq);
    expect(meta).toEqual({ note: 'by hand', writer: { user: 'local', surface: 'http', request: answer.headers.get('x-request-id') } });
  });

  it('stamps every input of publish-many, and the CLI surface when the caller names it', async () => {
    const answer = await http(`${server.url}/v1/store/publish-many`, {
      headers: { 'x-stateflow-token': server.token, 'x-stateflow-surface': 'cli' },
      body: { inputs: [{ changes: { global: { a: 1 } } }, { changes: { global: { a: 2 } }, meta: { writer: 'me' } }] },
    });
    expect(answer.status).toBe(200);
    for (const result of answer.body.results) expect((await metaOf(result.transition.seq)).writer).toMatchObject({ user: 'local', surface: 'cli' });
  });

  it('a surface a caller may not claim is ignored (http)', async () => {
    const answer = await http(`${server.url}/v1/store/publish`, {
      headers: { 'x-stateflow-token': server.token, 'x-stateflow-surface': 'ladder' },
      body: { changes: { global: { b: 1 } } },
    });
    expect((await metaOf(answer.body.transition.seq)).writer).toMatchObject({ surface: 'http' });
  });

  it("a /mcp client's patch_state names surface mcp-http, its key's user and its User-Agent", async () => {
    const client = new Client({ name: 'alpha-agent', version: '1.0.0' });
    const url = new URL(`/mcp?session=${session}`, server.url);
    await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: 'Bearer key-alice', 'user-agent': 'alpha-agent/1.0.0 (test)' } } }));
    try {
      const before = server.store.lastSeq();
      const patched = await client.callTool({ name: 'patch_state', arguments: { patch: { lazy: { plan: 'x' } } } });
      expect(patched.isError).not.toBe(true);
      expect(server.store.lastSeq()).toBe(before + 1);
      // The tool-call record: the tool and a digest of its arguments, never the arguments.
      expect((await metaOf(before + 1)).writer).toEqual({
        user: 'alice',
        surface: 'mcp-http',
        client: 'alpha-agent/1.0.0 (test)',
        request: expect.any(String),
        tool: 'patch_state',
        args: argumentsDigest({ patch: { lazy: { plan: 'x' } } }),
      });
      expect(argumentsDigest({ patch: { lazy: { plan: 'x' } } })).toMatch(/^sha256:[0-9a-f]{16}$/);
      expect(argumentsDigest({ patch: { lazy: { plan: 'y' } } })).not.toBe(argumentsDigest({ patch: { lazy: { plan: 'x' } } }));
      expect(JSON.stringify((await metaOf(before + 1)).writer)).not.toContain('"x"');
    } finally {
      await client.close();
    }
  });

  it("a ladder call's slate write names surface ladder, the ladder and the user", async () => {
    const before = server.store.lastSeq();
    const answer = await http(`${server.url}/v1/alice/researcher/chat/completions`, { key: 'key-alice', body: ask('hello'), headers: { 'x-session-id': session } });
    expect(answer.status).toBe(200);
    const writers = [];
    for (let seq = before + 1; seq <= server.store.lastSeq(); seq++) writers.push((await metaOf(seq)).writer);
    expect(writers.length).toBeGreaterThan(0);
    for (const writer of writers) expect(writer).toMatchObject({ user: 'alice', surface: 'ladder', ladder: '@alice/researcher' });
  });
});
