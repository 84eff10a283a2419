/**
 * Caps on open watch streams (server README "Limits"), over HTTP on loopback: a key holds at
 * most `watchesPerKey` streams and the server at most `maxWatches` (the owner's count there);
 * one more answers 429 `RATE_LIMITED` with `Retry-After` before any stream opens, and a slot
 * frees when a stream ends. Watchers of one class share one encoding of a transition, and each
 * still gets exactly its own view.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '@stateflow/server';
import type { ServerHandle } from '@stateflow/server';
import { http, makeDirs } from './fixtures.js';
import type { Dirs } from './fixtures.js';

let dirs: Dirs;
let server: ServerHandle;
let aliceSession: string;
let bobSession: string;

interface OpenWatch {
  status: number;
  retryAfter: string | null;
  body: any;
  /** Read events until `predicate` holds on the text read so far. */
  until(predicate: (text: string) => boolean): Promise<string>;
  close(): void;
}

async function watch(credential: { key?: string; token?: string }, query = ''): Promise<OpenWatch> {
  const abort = new AbortController();
  const headers: Record<string, string> = credential.key !== undefined ? { authorization: `Bearer ${credential.key}` } : { 'x-stateflow-token': credential.token ?? '' };
  const response = await fetch(`${server.url}/v1/watch${query}`, { headers, signal: abort.signal });
  if (response.status !== 200) return { status: response.status, retryAfter: response.headers.get('retry-after'), body: await response.json(), until: async () => '', close: () => undefined };
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  return {
    status: 200,
    retryAfter: null,
    body: null,
    async until(predicate) {
      while (!predicate(text)) {
        const { value, done } = await reader.read();
        if (done) break;
        text += decoder.decode(value);
      }
      return text;
    },
    close: () => abort.abort(),
  };
}

beforeAll(async () => {
  dirs = await makeDirs();
  server = await startServer({ dir: path.join(dirs.root, 'store'), ladders: dirs.ladders, port: 0, keys: { 'key-alice': 'alice', 'key-bob': 'bob' }, watchesPerKey: 2, maxWatches: 4, sweepIntervalMs: 0, onWarning: () => undefined });
  aliceSession = (await http(`${server.url}/v1/alice/researcher/sessions`, { key: 'key-alice', body: {} })).body.id;
  bobSession = (await http(`${server.url}/v1/alice/researcher/sessions`, { key: 'key-bob', body: {} })).body.id;
});

afterAll(async () => {
  await server?.close();
  await dirs?.cleanup();
});

/** Open a watch of `key` once a slot is free again (a closed stream frees its slot when the server sees the close). */
async function openWhenFree(key: string): Promise<OpenWatch> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const opened = await watch({ key });
    if (opened.status === 200) return opened;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('the slot never freed');
}

describe('open watch streams', () => {
  it('are capped per key and per server: 429 RATE_LIMITED with Retry-After, and a closed stream frees its slot', async () => {
    const a1 = await watch({ key: 'key-alice' });
    const a2 = await watch({ key: 'key-alice' });
    expect([a1.status, a2.status]).toEqual([200, 200]);
    await a1.until((t) => t.includes('event:ready'));
    const a3 = await watch({ key: 'key-alice' });
    expect([a3.status, a3.retryAfter, a3.body.error.code, a3.body.error.details]).toEqual([429, '1', 'RATE_LIMITED', { limit: 'watches', max: 2, retryAfterSeconds: 1 }]);
    const b1 = await watch({ key: 'key-bob' });
    const owner = await watch({ token: server.token });
    expect([b1.status, owner.status]).toEqual([200, 200]);
    const b2 = await watch({ key: 'key-bob' });
    expect([b2.status, b2.body.error.details]).toEqual([429, { limit: 'server-watches', max: 4, retryAfterSeconds: 1 }]);
    a1.close();
    const again = await openWhenFree('key-alice');
    for (const w of [a2, again, b1, owner]) w.close();
  });

  it('shares one encoding per class, and each watcher still gets only its own view', async () => {
    const alice = await openWhenFree('key-alice');
    const aliceToo = await openWhenFree('key-alice');
    const bob = await openWhenFree('key-bob');
    for (const w of [alice, aliceToo, bob]) await w.until((t) => t.includes('event:ready'));
    await server.store.publish({ changes: { [`session:${aliceSession}`]: { lazy: { a: 1 } }, [`session:${bobSession}`]: { lazy: { b: 1 } } } });
    const seen = await Promise.all([alice, aliceToo, bob].map((w) => w.until((t) => t.includes('event:transition'))));
    const data = seen.map((t) => JSON.parse(/event:transition\nid:\d+\ndata:(.*)\n/.exec(t)?.[1] ?? 'null'));
    expect(data[0]).toEqual(data[1]);
    expect(data[0].changes.map((c: { stream: string }) => c.stream)).toEqual([`session:${aliceSession}`]);
    expect(data[2].changes.map((c: { stream: string }) => c.stream)).toEqual([`session:${bobSession}`]);
    expect(data[0]).not.toHaveProperty('hash');
    for (const w of [alice, aliceToo, bob]) w.close();
  });
});
