/**
 * The OpenAPI document lists every endpoint of the store API, the watch stream, `/v1/server` and
 * `/mcp`, each answered by the running server (so a route added without documentation, or a
 * documented path without a route, fails here).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openMemoryStore } from '@stateflow/store';
import type { Store } from '@stateflow/store';
import { startServer } from './start-server.js';
import type { ServerHandle } from './start-server.js';

let store: Store;
let server: ServerHandle;

beforeAll(async () => {
  store = await openMemoryStore();
  server = await startServer({ store, port: 0, sweepIntervalMs: 0, onWarning: () => undefined });
});

afterAll(async () => {
  await server.close();
  await store.close();
});

const DOCUMENTED: Record<string, 'get' | 'post'> = {
  '/v1/server': 'get',
  '/v1/server/proof': 'get',
  '/v1/store/streams': 'get',
  '/v1/store/head': 'get',
  '/v1/store/state': 'get',
  '/v1/store/patch': 'get',
  '/v1/store/revision-seq': 'get',
  '/v1/store/diff': 'get',
  '/v1/store/view': 'post',
  '/v1/store/states-at': 'post',
  '/v1/store/effective-at': 'post',
  '/v1/store/transitions': 'get',
  '/v1/store/transitions/{seq}': 'get',
  '/v1/store/publish': 'post',
  '/v1/store/publish-many': 'post',
  '/v1/store/fork': 'post',
  '/v1/store/merge': 'post',
  '/v1/store/revert': 'post',
  '/v1/store/compact': 'post',
  '/v1/store/append': 'post',
  '/v1/store/append-many': 'post',
  '/v1/store/audit': 'post',
  '/v1/watch': 'get',
  '/mcp': 'post',
};

describe('OpenAPI: store API, watch, server, /mcp', () => {
  it('documents each endpoint, and each documented endpoint has a route', async () => {
    const doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as { paths: Record<string, Record<string, { responses?: object }>> };
    for (const [route, method] of Object.entries(DOCUMENTED)) {
      expect(doc.paths[route]?.[method]?.responses, `${method} ${route}`).toBeDefined();
      const url = `${server.url}${route.replace('{seq}', '1')}`;
      const init: RequestInit = method === 'get' ? {} : { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' };
      const response = await fetch(url, init);
      // A route answers anything but the 404 of an unknown route (bad input is fine here).
      if (response.headers.get('content-type')?.includes('text/event-stream') === true) {
        await response.body?.cancel();
        continue;
      }
      const body = (await response.json()) as { error?: { message?: string } };
      expect(body.error?.message ?? '', `${method} ${route}`).not.toMatch(/^No route/);
    }
    const undocumented = Object.keys(doc.paths).filter((p) => (p.startsWith('/v1/store') || p === '/v1/watch' || p.startsWith('/v1/server') || p === '/mcp') && !(p in DOCUMENTED));
    expect(undocumented).toEqual([]);
  });
});
