/**
 * Shapes over HTTP (store README "Shapes"): declaring is the owner's (a write of the declaration
 * stream `stateflow:shapes`; a key user is refused 403), `POST /v1/state/read` takes read_state's
 * `shape` (default `current`), a write invalid under the shape answers 422 `SHAPE_VIOLATION`, and
 * the remote store reads in a shape on its side (the operations are data).
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRemoteStore } from '@stateflow/client';
import { startServer } from '@stateflow/server';
import { listShapes, setShape } from '@stateflow/store';
import type { ServerHandle } from '@stateflow/server';
import { http, makeDirs } from './fixtures.js';
import type { Dirs } from './fixtures.js';

let dirs: Dirs;
let server: ServerHandle;

const V1 = { type: 'object', properties: { lazy: { type: 'object', properties: { plan: { type: 'string' } } } } };
const V2 = { type: 'object', properties: { lazy: { type: 'object', properties: { plans: { type: 'array', items: { type: 'string' } } }, additionalProperties: false } } };
const UP2 = [{ op: 'wrap' as const, path: '/lazy/plan' }, { op: 'move' as const, from: '/lazy/plan', path: '/lazy/plans' }];

beforeAll(async () => {
  dirs = await makeDirs();
  server = await startServer({ dir: path.join(dirs.root, 'store'), ladders: dirs.ladders, port: 0, keys: { 'key-alice': 'alice' }, sweepIntervalMs: 0, onWarning: () => undefined });
});

afterAll(async () => {
  await server?.close();
  await dirs?.cleanup();
});

describe('shapes over HTTP', () => {
  it('the owner declares; state/read reads current by default and stored on request; a key user may not declare', async () => {
    const owner = { 'x-stateflow-token': server.token };
    const read = (body: unknown) => http(`${server.url}/v1/state/read`, { headers: owner, body });
    expect((await http(`${server.url}/v1/state/patch`, { headers: owner, body: { selection: { cwd: '/repo', mode: 'active' }, patch: { lazy: { plan: 'draft' } } } })).status).toBe(200);
    const remote = await openRemoteStore({ url: server.url, token: server.token });
    await setShape(remote, 'memory', { streams: 'cwd:*', schema: V1 });
    expect((await setShape(remote, 'memory', { streams: 'cwd:*', schema: V2, upcast: UP2 })).upgraded).toEqual(['cwd:/repo']);
    expect(await read({ selection: { cwd: '/repo', mode: 'active' }, path: 'cwd[1].lazy' })).toMatchObject({ status: 200, body: { value: { plans: ['draft'] } } });
    expect(await read({ selection: { cwd: '/repo', mode: 'active' }, path: 'cwd[1].lazy', shape: 'stored' })).toMatchObject({ status: 200, body: { value: { plan: 'draft' } } });
    expect(await read({ selection: { cwd: '/repo', mode: 'active' }, path: 'cwd[1].lazy', shape: 9 })).toMatchObject({ status: 404, body: { error: { code: 'SHAPE_NOT_FOUND' } } });
    expect(await remote.stateAt('cwd:/repo', 1, { shape: 'current' })).toEqual({ lazy: { plans: ['draft'] } });
    expect(await remote.stateAt('cwd:/repo', 1)).toEqual({ lazy: { plan: 'draft' } });
    const refused = await http(`${server.url}/v1/state/patch`, { headers: owner, body: { selection: { cwd: '/repo', mode: 'active' }, patch: { lazy: { plan: 'again' } } } });
    expect(refused).toMatchObject({ status: 422, body: { error: { code: 'SHAPE_VIOLATION', details: { stream: 'cwd:/repo', path: '/lazy', rule: 'additionalProperties' } } } });
    const user = await openRemoteStore({ url: server.url, apiKey: 'key-alice' });
    await expect(setShape(user, 'mine', { streams: 'session:*', schema: V1 })).rejects.toMatchObject({ code: 'FORBIDDEN' });
    expect((await listShapes(user)).map((s) => [s.name, s.versions.length])).toEqual([['memory', 2]]);
    await remote.close();
    await user.close();
  });
});
