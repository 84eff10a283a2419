/**
 * Query strings and unmatched paths over HTTP on loopback (server README "Store API", "Limits",
 * "The server token"): a number in a query or path is decimal only (`?from=0x10` is not 16);
 * `?token=` — what browser URLs and `EventSource` carry — is accepted on routes whose query
 * schema is otherwise closed; and a path no route serves is counted by the per-key request rate.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '@stateflow/server';
import type { ServerHandle } from '@stateflow/server';
import { http, makeDirs } from './fixtures.js';
import type { Dirs } from './fixtures.js';

let dirs: Dirs;
let server: ServerHandle;
let limited: ServerHandle;

beforeAll(async () => {
  dirs = await makeDirs();
  server = await startServer({ dir: path.join(dirs.root, 'store'), ladders: dirs.ladders, port: 0, sweepIntervalMs: 0, onWarning: () => undefined });
  limited = await startServer({ dir: path.join(dirs.root, 'limited'), ladders: dirs.ladders, port: 0, keys: { 'key-alice': 'alice' }, rateLimit: { requests: 3, windowMs: 60_000 }, sweepIntervalMs: 0, onWarning: () => undefined });
  for (let i = 1; i <= 20; i++) await server.store.publish({ changes: { global: { n: i } } });
});

afterAll(async () => {
  await server?.close();
  await limited?.close();
  await dirs?.cleanup();
});

const get = (url: string) => http(`${server.url}${url}`, { headers: { 'x-stateflow-token': server.token } });

describe('numbers in a query or a path', () => {
  it('are decimal: 0x10, 1e1, 0b1, a leading zero or blanks answer 400 INPUT_INVALID naming the member', async () => {
    expect((await get('/v1/store/transitions?from=16&limit=1')).body.transitions[0].seq).toBe(16);
    for (const spelled of ['0x10', '1e1', '0b1', '016', '%2016', '16%20']) {
      const answer = await get(`/v1/store/transitions?from=${spelled}&limit=1`);
      expect([answer.status, answer.body.error?.code, answer.body.error?.details?.field], spelled).toEqual([400, 'INPUT_INVALID', 'querystring.from']);
    }
    expect((await get('/v1/store/transitions/0x10')).status).toBe(400);
    expect((await get('/v1/store/transitions/16')).body.seq).toBe(16);
  });
});

describe('?token= on a route whose query schema is closed', () => {
  it('is the credential there as everywhere, and an unknown parameter is still refused', async () => {
    const noHeader = (url: string) => http(`${server.url}${url}`);
    const histogram = await noHeader(`/v1/history/streams?token=${server.token}`);
    expect(histogram.status).toBe(200);
    const revisions = await noHeader(`/v1/history/revisions?stream=global&token=${server.token}`);
    expect(revisions.status).toBe(200);
    const unknown = await noHeader(`/v1/history/streams?token=${server.token}&bogus=1`);
    expect([unknown.status, unknown.body.error.code]).toEqual([400, 'INPUT_INVALID']);
  });
});

describe('a path no route serves', () => {
  it("counts against the key's request rate: past it, 429 RATE_LIMITED with Retry-After", async () => {
    const statuses = [];
    let last;
    for (let i = 0; i < 5; i++) {
      last = await http(`${limited.url}/v1/no-such-route-${i}`, { key: 'key-alice' });
      statuses.push(last.status);
    }
    expect(statuses).toEqual([404, 404, 404, 429, 429]);
    expect(last?.body.error.code).toBe('RATE_LIMITED');
    expect(Number(last?.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
