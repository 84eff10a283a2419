/**
 * The staging budget of one publish-many (server README "Limits"), over HTTP on loopback: a
 * batch whose staging runs past `workBudgetMs` is refused whole — 400 `INPUT_INVALID`
 * `{ field: 'inputs', reason: 'over-budget' }` — before anything is written; a batch within it
 * publishes as before.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '@stateflow/server';
import type { ServerHandle } from '@stateflow/server';
import { http, makeDirs } from './fixtures.js';
import type { Dirs } from './fixtures.js';

const KEYS = 3000;

let dirs: Dirs;
let server: ServerHandle;
let stream: string;

beforeAll(async () => {
  dirs = await makeDirs();
  server = await startServer({ dir: path.join(dirs.root, 'store'), ladders: dirs.ladders, port: 0, keys: { 'key-alice': 'alice' }, workBudgetMs: 5, sweepIntervalMs: 0, onWarning: () => undefined });
  stream = `session:${(await http(`${server.url}/v1/alice/researcher/sessions`, { key: 'key-alice', body: {} })).body.id}`;
  const wide = Object.fromEntries(Array.from({ length: KEYS }, (_, i) => [`k${i}`, i]));
  expect((await http(`${server.url}/v1/store/publish`, { key: 'key-alice', body: { changes: { [stream]: { lazy: wide } } } })).status).toBe(200);
});

afterAll(async () => {
  await server?.close();
  await dirs?.cleanup();
});

describe('a publish-many past its staging budget', () => {
  it('is refused whole with a typed error, and nothing is written', async () => {
    const before = server.store.lastSeq();
    const inputs = Array.from({ length: 1000 }, (_, i) => ({ changes: { [stream]: { lazy: { [`k${i}`]: -i, [`n${i}`]: { deep: [i, i, i] } } } } }));
    const answer = await http(`${server.url}/v1/store/publish-many`, { key: 'key-alice', body: { inputs } });
    expect([answer.status, answer.body.error.code, answer.body.error.details]).toEqual([400, 'INPUT_INVALID', { field: 'inputs', reason: 'over-budget' }]);
    expect(answer.headers.get('x-should-retry')).toBe('false');
    expect(server.store.lastSeq()).toBe(before);
    expect(((await server.store.state(stream)).lazy as Record<string, number>).k1).toBe(1);
  });

  it('publishes a batch within it', async () => {
    const answer = await http(`${server.url}/v1/store/publish-many`, { key: 'key-alice', body: { inputs: [{ changes: { [stream]: { lazy: { k1: 'one' } } } }] } });
    expect([answer.status, answer.body.results[0].status]).toEqual([200, 'accepted']);
  });
});
