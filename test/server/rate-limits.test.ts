/**
 * Per-key limits with API keys (server README "Limits"): a request rate (`@fastify/rate-limit`)
 * and a number of chat/completions calls running at once, both answered 429 `RATE_LIMITED` with
 * `Retry-After` and `x-should-retry: true`. The official `openai` client waits exactly what
 * `Retry-After` says and retries: its sleep is a `setTimeout` of that many seconds (spied on,
 * so the test asserts the wait asked for, not a time measured).
 */
import path from 'node:path';
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startServer } from '@stateflow/server';
import type { ServerHandle } from '@stateflow/server';
import { startFakeUpstream } from './fake-upstream.js';
import type { FakeUpstream } from './fake-upstream.js';
import { ask, http, makeDirs, upstreamEnv } from './fixtures.js';
import type { Dirs } from './fixtures.js';

const KEYS = { 'key-alice': 'alice', 'key-bob': 'bob' };

interface Seen {
  status: number;
  retryAfter: string | null;
  shouldRetry: string | null;
  body: string;
}

/** The official client with `maxRetries` retries, recording every answer it got. */
function recordingClient(server: ServerHandle, key: string, seen: Seen[], onAnswer: (answer: Seen) => void = () => undefined): OpenAI {
  return new OpenAI({
    baseURL: `${server.url}/v1/alice/researcher`,
    apiKey: key,
    maxRetries: 2,
    fetch: async (url: string | URL | Request, init?: RequestInit) => {
      const response = await fetch(url, init);
      const answer = { status: response.status, retryAfter: response.headers.get('retry-after'), shouldRetry: response.headers.get('x-should-retry'), body: await response.clone().text() };
      seen.push(answer);
      onAnswer(answer);
      return response;
    },
  });
}

/** The delays of every `setTimeout` made while `work` ran. */
async function timeoutsDuring<T>(work: () => Promise<T>): Promise<{ result: T; delays: unknown[] }> {
  const spy = vi.spyOn(globalThis, 'setTimeout');
  try {
    const result = await work();
    return { result, delays: spy.mock.calls.map((call) => call[1]) };
  } finally {
    spy.mockRestore();
  }
}

let dirs: Dirs;
let upstream: FakeUpstream;
let release: () => void = () => undefined;
beforeAll(async () => {
  dirs = await makeDirs();
  let gate = Promise.resolve();
  upstream = await startFakeUpstream(async (request) => {
    if (JSON.stringify(request.messages).includes('hold me')) {
      gate = new Promise<void>((resolve) => (release = resolve));
      await gate;
    }
    return 'Answer. {"exchange": "x"}';
  });
});
afterAll(async () => {
  await upstream?.close();
  await dirs?.cleanup();
});
afterEach(() => release());

describe('the per-key request rate', () => {
  let server: ServerHandle;
  beforeAll(async () => {
    server = await startServer({ dir: path.join(dirs.root, 'rate'), ladders: dirs.ladders, port: 0, keys: KEYS, env: upstreamEnv(upstream), sweepIntervalMs: 0, rateLimit: { requests: 2, windowMs: 3_000 } });
  });
  afterAll(() => server?.close());

  it('answers the request over it 429 RATE_LIMITED with Retry-After, which the openai client waits for before it retries', async () => {
    const seen: Seen[] = [];
    const client = recordingClient(server, 'key-alice', seen);
    await client.models.list();
    await client.models.list();
    const { result, delays } = await timeoutsDuring(() => client.models.list());
    expect(result.data.map((m) => m.id)).toEqual(['@alice/researcher']);
    expect(seen.map((s) => s.status)).toEqual([200, 200, 429, 200]);
    const limited = seen[2] as Seen;
    expect(limited.shouldRetry).toBe('true');
    const retryAfter = Number(limited.retryAfter);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(3);
    expect(JSON.parse(limited.body).error).toMatchObject({ code: 'RATE_LIMITED', details: { limit: 'requests', max: 2, windowMs: 3_000, retryAfterSeconds: retryAfter } });
    expect(delays).toContain(retryAfter * 1000);
  });

  it('counts per key: another key, the token and a request without a credential are not limited by it', async () => {
    let status = 200;
    for (let i = 0; i < 10 && status !== 429; i++) status = (await http(`${server.url}/v1/alice/researcher/models`, { key: 'key-alice' })).status;
    expect(status).toBe(429);
    expect((await http(`${server.url}/v1/alice/researcher/models`, { key: 'key-bob' })).status).toBe(200);
    for (let i = 0; i < 4; i++) expect((await http(`${server.url}/v1/server`, { headers: { 'x-stateflow-token': server.token } })).status).toBe(200);
    expect((await http(`${server.url}/v1/server`)).status).toBe(401);
  });
});

describe('the per-key model calls at once', () => {
  let server: ServerHandle;
  beforeAll(async () => {
    server = await startServer({ dir: path.join(dirs.root, 'calls'), ladders: dirs.ladders, port: 0, keys: KEYS, env: upstreamEnv(upstream), sweepIntervalMs: 0, modelCallsPerKey: 1 });
  });
  afterAll(() => server?.close());

  it('answers a second concurrent call 429 with Retry-After: 1; the openai client waits 1 s and its retry runs once the first call ended', async () => {
    const first = http(`${server.url}/v1/alice/researcher/chat/completions`, { key: 'key-alice', body: ask('hold me') });
    while (upstream.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    const seen: Seen[] = [];
    // The first call ends as soon as the second has been refused.
    const client = recordingClient(server, 'key-alice', seen, (answer) => answer.status === 429 && release());
    const { result, delays } = await timeoutsDuring(() => client.chat.completions.create(ask('second')));
    expect(result.choices[0]?.message.content).toContain('Answer.');
    expect((await first).status).toBe(200);
    expect(seen.map((s) => [s.status, s.retryAfter, s.shouldRetry])).toEqual([
      [429, '1', 'true'],
      [200, null, null],
    ]);
    expect(JSON.parse((seen[0] as Seen).body).error).toMatchObject({ code: 'RATE_LIMITED', details: { limit: 'model-calls', max: 1, retryAfterSeconds: 1 } });
    expect(delays).toContain(1000);
  });

  it('another key has its own slots, and a streamed call over the limit is refused before its stream starts', async () => {
    const before = upstream.requests.length;
    const first = http(`${server.url}/v1/alice/researcher/chat/completions`, { key: 'key-alice', body: ask('hold me') });
    while (upstream.requests.length === before) await new Promise((resolve) => setTimeout(resolve, 10));
    const streamed = await http(`${server.url}/v1/alice/researcher/chat/completions`, { key: 'key-alice', body: { ...ask('stream'), stream: true } });
    expect([streamed.status, streamed.body.error.code, streamed.headers.get('retry-after')]).toEqual([429, 'RATE_LIMITED', '1']);
    expect((await http(`${server.url}/v1/alice/researcher/chat/completions`, { key: 'key-bob', body: ask('bob') })).status).toBe(200);
    release();
    expect((await first).status).toBe(200);
    // The slot is free again once the call ended.
    expect((await http(`${server.url}/v1/alice/researcher/chat/completions`, { key: 'key-alice', body: ask('third') })).status).toBe(200);
  });
});
