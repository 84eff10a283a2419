/**
 * `stateflow serve --rate-limit N/DURATION|off` and `--model-calls N` reach the server (server
 * README "Limits"): a spawned server with API keys answers the request over the rate, and the
 * model call over the limit, 429 `RATE_LIMITED` with `Retry-After`; `off` and `0` lift them. The
 * server's own tests (`test/server/rate-limits.test.ts`) cover the limits themselves; these cover
 * the flags and their refusals.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream } from '../server/fake-upstream.js';
import type { FakeUpstream } from '../server/fake-upstream.js';
import { ask, http, makeDirs, upstreamEnv } from '../server/fixtures.js';
import type { Dirs } from '../server/fixtures.js';
import { jsonError, startServe, stateflow, stopServe } from './helpers.js';

let dirs: Dirs;
let keys: string;
let upstream: FakeUpstream;
let release: () => void = () => undefined;

beforeAll(async () => {
  dirs = await makeDirs();
  keys = path.join(dirs.root, 'keys.json');
  await writeFile(keys, JSON.stringify({ 'key-alice': 'alice' }));
  // A model call whose question says "hold me" waits until the test releases it.
  upstream = await startFakeUpstream(async (request) => {
    if (JSON.stringify(request.messages).includes('hold me')) await new Promise<void>((resolve) => (release = resolve));
    return 'Answer. {"exchange": "x"}';
  });
});
afterAll(async () => {
  release();
  await upstream?.close();
  await dirs?.cleanup();
});

/** Serve a new store of the temp root with `flags`; run `work` against its URL; stop it. */
async function serving(name: string, flags: string[], work: (url: string) => Promise<void>): Promise<void> {
  const store = path.join(dirs.root, name);
  const { child, banner } = await startServe(['--dir', store, 'serve', '--port', '0', '--keys', keys, '--ladders', dirs.ladders, ...flags], upstreamEnv(upstream));
  try {
    const url = /stateflow serving on (\S+)/.exec(banner)?.[1];
    expect(url, banner).toBeDefined();
    await work(url as string);
  } finally {
    await stopServe(child);
  }
}

/** The status and `x-ratelimit-limit` header (@fastify/rate-limit's) of `n` sequential model-list requests as alice. */
async function answers(url: string, n: number): Promise<string[]> {
  const seen: string[] = [];
  for (let i = 0; i < n; i++) {
    const answer = await http(`${url}/v1/alice/researcher/models`, { key: 'key-alice' });
    seen.push(`${answer.status} limit=${answer.headers.get('x-ratelimit-limit')}`);
  }
  return seen;
}

describe('serve --rate-limit', () => {
  it('N/DURATION: the request over N in the window is 429 RATE_LIMITED with Retry-After', async () => {
    await serving('rate', ['--rate-limit', '3/1m'], async (url) => {
      expect(await answers(url, 3)).toEqual(['200 limit=3', '200 limit=3', '200 limit=3']);
      const over = await http(`${url}/v1/alice/researcher/models`, { key: 'key-alice' });
      expect(over.status).toBe(429);
      expect(Number(over.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(over.body.error).toMatchObject({ code: 'RATE_LIMITED', details: { limit: 'requests', max: 3, windowMs: 60_000 } });
    });
  });

  it('off: no request rate at all (the default, 600/1m, would announce its limit on every answer)', async () => {
    await serving('rate-off', ['--rate-limit', 'off'], async (url) => {
      expect(new Set(await answers(url, 30))).toEqual(new Set(['200 limit=null']));
    });
  });

  it('refuses a rate that is not N/DURATION or off with USAGE, before it serves', async () => {
    const result = await stateflow(['--dir', path.join(dirs.root, 'never'), 'serve', '--port', '0', '--rate-limit', 'fast', '--json']);
    expect(jsonError(result, 2)).toMatchObject({ code: 'USAGE' });
    expect(result.stderr + result.stdout).toContain('--rate-limit');
  });
});

describe('serve --model-calls', () => {
  it('N: a model call beyond N running at once for one key is 429 RATE_LIMITED; the one running completes', async () => {
    await serving('calls', ['--model-calls', '1'], async (url) => {
      const chat = (content: string) => http(`${url}/v1/alice/researcher/chat/completions`, { key: 'key-alice', body: ask(content) });
      const held = chat('hold me');
      // The first call is at the upstream once the upstream's gate was set.
      for (let i = 0; i < 200 && upstream.requests.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 25));
      const second = await chat('and me');
      expect(second.status).toBe(429);
      expect(second.headers.get('retry-after')).not.toBeNull();
      expect(second.body.error).toMatchObject({ code: 'RATE_LIMITED', details: { limit: 'model-calls', max: 1 } });
      release();
      expect((await held).status).toBe(200);
    });
  });

  it('refuses a count that is not a non-negative integer with USAGE', async () => {
    const result = await stateflow(['--dir', path.join(dirs.root, 'never'), 'serve', '--port', '0', '--model-calls', '-1', '--json']);
    expect(jsonError(result, 2)).toMatchObject({ code: 'USAGE' });
  });
});
