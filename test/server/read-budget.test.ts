/**
 * The work budget of the paged reads (server README "Limits"), over HTTP on loopback: on a
 * session stream with a wide object and thousands of revisions, an API-key user's search, blame
 * and path history stop once their work took `workBudgetMs` and answer a `next`; following
 * `next` gives exactly the owner's answer (the owner is not bounded: one request); and another
 * user's small request answers while a long read runs (the reads yield to the event loop).
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '@stateflow/server';
import type { ServerHandle } from '@stateflow/server';
import { http, makeDirs } from './fixtures.js';
import type { Dirs } from './fixtures.js';

const KEYS = 400;
/** Keys the later revisions change: the others were last changed at revision 1, below blame's window. */
const CHANGED = 300;
const REVISIONS = 3000;
const BUDGET_MS = 20;
/** What an answer may take past the budget on a shared 2-core machine: one chunk of work and the answer's encoding. */
const SLACK_MS = 1500;

let dirs: Dirs;
let server: ServerHandle;
let stream: string;
let owner: Record<string, string>;

beforeAll(async () => {
  dirs = await makeDirs();
  server = await startServer({ dir: path.join(dirs.root, 'store'), ladders: dirs.ladders, port: 0, keys: { 'key-alice': 'alice', 'key-bob': 'bob' }, rateLimit: false, workBudgetMs: BUDGET_MS, sweepIntervalMs: 0, onWarning: () => undefined });
  owner = { 'x-stateflow-token': server.token };
  stream = `session:${(await http(`${server.url}/v1/alice/researcher/sessions`, { key: 'key-alice', body: {} })).body.id}`;
  await server.store.publish({ changes: { [stream]: { lazy: Object.fromEntries(Array.from({ length: KEYS }, (_, i) => [`k${i}`, i])) } } });
  for (let done = 1; done < REVISIONS; done += 1000) {
    const inputs = Array.from({ length: Math.min(1000, REVISIONS - done) }, (_, j) => {
      const i = done + j;
      return { changes: { [stream]: { lazy: { [`k${(i * 7) % CHANGED}`]: i % 50 === 0 ? `needle ${i}` : `v${i}` } } } };
    });
    await server.store.publishMany(inputs);
  }
  expect((await server.store.head(stream)).rev).toBe(REVISIONS);
});

afterAll(async () => {
  await server?.close();
  await dirs?.cleanup();
});

const q = encodeURIComponent;
const alice = { key: 'key-alice' };

/** GET `route` as `who`, expecting 200; with its wall time. */
async function get(route: string, who: { key?: string; headers?: Record<string, string> }): Promise<{ body: any; ms: number }> {
  const t = performance.now();
  const answer = await http(`${server.url}${route}`, who);
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return { body: answer.body, ms: performance.now() - t };
}

describe("an API-key user's paged reads within the work budget", () => {
  it('search: a page ends at the budget with a next, and following next finds the owner\'s hits', async () => {
    const route = `/v1/history/search?stream=${q(stream)}&text=needle&scan=50000&limit=200`;
    const whole = (await get(route, { headers: owner })).body;
    expect([whole.next, whole.scanned]).toEqual([null, REVISIONS]);
    expect(whole.hits.length).toBeGreaterThan(5);

    const first = await get(route, alice);
    expect(typeof first.body.next).toBe('number');
    expect(first.body.scanned).toBeLessThan(REVISIONS);
    expect(first.ms).toBeLessThan(BUDGET_MS + SLACK_MS);
    const hits = [...first.body.hits];
    let { next } = first.body;
    let pages = 1;
    while (next !== null) {
      const page = (await get(`${route}&after=${next}`, alice)).body;
      hits.push(...page.hits);
      next = page.next;
      pages++;
    }
    expect(pages).toBeGreaterThan(2);
    expect(hits).toEqual(whole.hits);
  });

  it("blame: a page ends at the budget with a next, and merging the pages gives the owner's blame", async () => {
    const route = `/v1/history/blame?stream=${q(stream)}&pointer=/lazy&scan=2500&limit=2000`;
    const whole = (await get(route, { headers: owner })).body;
    expect([whole.next, whole.scanned, whole.entries.length]).toEqual([null, 2500, KEYS]);
    expect(whole.entries.filter((e: any) => e.change === null && e.atOrBefore === REVISIONS - 2500).length).toBe(KEYS - CHANGED);

    const first = await get(route, alice);
    expect(typeof first.body.next).toBe('number');
    expect(first.ms).toBeLessThan(BUDGET_MS + SLACK_MS);
    const merged = first.body.entries.map((e: any) => ({ ...e }));
    let { next } = first.body;
    let pages = 1;
    while (next !== null) {
      const page = (await get(`${route}&until=${next}`, alice)).body;
      page.entries.forEach((entry: any, i: number) => {
        if (merged[i].change === null) merged[i] = { ...entry };
      });
      next = page.next;
      pages++;
    }
    expect(pages).toBeGreaterThan(1);
    expect(merged).toEqual(whole.entries);
  });

  it("path history: a page ends at the budget with a next, and following next lists the owner's changes", async () => {
    const route = `/v1/history/path-history?stream=${q(stream)}&pointer=/lazy&scan=20000&limit=500`;
    const changes = async (who: { key?: string; headers?: Record<string, string> }) => {
      const out: unknown[] = [];
      let after = 0;
      let pages = 0;
      for (;;) {
        const page = (await get(`${route}&after=${after}`, who)).body;
        out.push(...page.changes);
        pages++;
        if (page.next === null) return { out, pages };
        after = page.next;
      }
    };
    const whole = await changes({ headers: owner });
    const paged = await changes(alice);
    expect(whole.out.length).toBe(REVISIONS);
    expect(paged.pages).toBeGreaterThan(whole.pages);
    expect(paged.out).toEqual(whole.out);
  });

  it("another user's small request answers while a long read runs", async () => {
    let done = false;
    const long = get(`/v1/history/search?text=needle&scan=50000&limit=200`, { headers: owner }).then((answer) => {
      done = true;
      return answer;
    });
    await new Promise((resolve) => setTimeout(resolve, 30));
    const ping = await get('/v1/server', { key: 'key-bob' });
    expect(done).toBe(false);
    expect(ping.body).toBeDefined();
    expect((await long).body.next).toBeNull();
  });
});
