/**
 * `GET /v1/history/node` in a shape (store README "Shapes"), over a real HTTP server on loopback:
 * stored by default with the version the revision was written in, `current` upcast, a version
 * number, and the refusals. The browser test in test/ui drives the page's toggle over it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openMemoryStore, setShape } from '@stateflow/store';
import type { Store } from '@stateflow/store';
import { startServer } from '../start-server.js';
import type { ServerHandle } from '../start-server.js';

let store: Store;
let server: ServerHandle;

async function get(path: string): Promise<{ status: number; body: any }> {
  const response = await fetch(`${server.url}${path}`);
  return { status: response.status, body: await response.json() };
}
const node = (query: string) => get(`/v1/history/node?stream=session%3A1&${query}`);
const keys = (body: any) => Object.fromEntries(body.children.map((c: any) => [c.label, c.changed === true]));

beforeAll(async () => {
  store = await openMemoryStore();
  await setShape(store, 'note', { streams: 'session:*', schema: { type: 'object', properties: { title: { type: 'string' } } } });
  await store.publish({ changes: { 'session:1': { title: 'plan', tags: 'draft' } } });
  await store.publish({ changes: { 'session:1': { tags: 'todo' } } });
  await setShape(store, 'note', { streams: 'session:*', schema: { type: 'object', properties: { name: { type: 'string' } } }, upcast: [{ op: 'move', from: '/title', path: '/name' }, { op: 'wrap', path: '/tags' }] });
  await store.publish({ changes: { 'other:x': { a: 1 } } });
  server = await startServer({ store, port: 0, sweepIntervalMs: 0 });
});

afterAll(async () => {
  await server.close();
  await store.close();
});

describe('GET /v1/history/node with shape', () => {
  it('shows a revision stored by default, with the version it was written in', async () => {
    const { status, body } = await node('rev=2');
    expect(status).toBe(200);
    expect(keys(body)).toEqual({ title: false, tags: true });
    expect(body.shape).toEqual({ name: 'note', written: 1, shown: 1, latest: 2 });
    expect((await node('rev=2&shape=stored')).body).toEqual(body);
  });

  it('shows it upcast with shape=current or the version number, changes compared in that shape', async () => {
    const { status, body } = await node('rev=2&shape=current');
    expect(status).toBe(200);
    expect(keys(body)).toEqual({ tags: true, name: false });
    expect(body.shape).toEqual({ name: 'note', written: 1, shown: 2, latest: 2 });
    const tags = await node('rev=2&shape=current&pointer=/tags');
    expect(tags.body.children.map((c: any) => c.preview ?? c.value)).toEqual(['todo']);
    expect((await node('rev=2&shape=2')).body.children).toEqual(body.children);
    expect((await node('rev=3&shape=current')).body.shape).toEqual({ name: 'note', written: 2, shown: 2, latest: 2 });
  });

  it('refuses a version the shape does not have, and a selector it does not know', async () => {
    const missing = await node('rev=2&shape=3');
    expect(missing.body.error.code).toBe('SHAPE_NOT_FOUND');
    const bogus = await node('rev=2&shape=newest');
    expect(bogus.status).toBe(400);
    expect(bogus.body.error.code).toBe('INPUT_INVALID');
  });

  it('says nothing of a shape for a stream none governs', async () => {
    const { body } = await get('/v1/history/node?stream=other%3Ax&shape=current');
    expect(body.shape).toBeUndefined();
    expect(keys(body)).toEqual({ a: true });
  });
});
