/**
 * `POST /v1/store/merge` over real HTTP: what an HTTP caller sees of a merge — the plan of a dry
 * run, 409 `MERGE_CONFLICT` with every conflict in `error.details` and nothing published, the
 * accepted transition with its meta, 422 `MERGE_UNRELATED`, 400 for a body the schema refuses —
 * and that `x-should-retry` says none of them is worth retrying unchanged.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openMemoryStore } from '@stateflow/store';
import type { Store } from '@stateflow/store';
import { startServer } from '../start-server.js';
import type { ServerHandle } from '../start-server.js';

let store: Store;
let server: ServerHandle;

beforeAll(async () => {
  store = await openMemoryStore();
  server = await startServer({ store, port: 0, sweepIntervalMs: 0, onWarning: () => undefined });
  await store.publish({ changes: { 'session:main': { strategy: { plan: 'v1' }, lazy: { notes: { a: 1 } } }, 'session:other': { tactics: { t: 1 } } } });
  await store.fork('session:main', 'session:draft');
  await store.publish({ changes: { 'session:draft': { strategy: { plan: 'v2' }, lazy: { notes: { b: 2 } } } } });
  await store.publish({ changes: { 'session:main': { strategy: { plan: 'v3' } } } });
});

afterAll(async () => {
  await server.close();
  await store.close();
});

async function merge(body: unknown): Promise<{ status: number; retry: string | null; body: any }> {
  const response = await fetch(`${server.url}/v1/store/merge`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: response.status, retry: response.headers.get('x-should-retry'), body: await response.json() };
}

describe('POST /v1/store/merge', () => {
  it('answers a dry run with the plan and publishes nothing', async () => {
    const seq = store.lastSeq();
    const answer = await merge({ from: 'session:draft', into: 'session:main', dryRun: true });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      status: 'preview',
      transition: null,
      from: 'session:draft',
      fromRev: 2,
      into: 'session:main',
      intoRev: 2,
      base: { stream: 'session:main', rev: 1 },
      patch: { lazy: { notes: { b: 2 } } },
      conflicts: [{ path: '/strategy/plan', base: 'v1', ours: 'v3', theirs: 'v2' }],
    });
    expect(store.lastSeq()).toBe(seq);
  });

  it('answers open conflicts with 409 MERGE_CONFLICT listing each one, and publishes nothing', async () => {
    const seq = store.lastSeq();
    const answer = await merge({ from: 'session:draft', into: 'session:main' });
    expect([answer.status, answer.retry, answer.body.error.code]).toEqual([409, 'false', 'MERGE_CONFLICT']);
    expect(answer.body.error.details.conflicts).toEqual([{ path: '/strategy/plan', base: 'v1', ours: 'v3', theirs: 'v2' }]);
    expect(store.lastSeq()).toBe(seq);
  });

  it('publishes one transition with the merge meta once every conflict is resolved', async () => {
    const answer = await merge({ from: 'session:draft', into: 'session:main', expected: 2, resolve: { '/strategy/plan': { value: 'v2+v3' } }, meta: { by: 'test' } });
    expect(answer.status).toBe(200);
    expect(answer.body.status).toBe('accepted');
    expect(answer.body.transition.meta).toEqual({ by: 'test', writer: { user: 'local', surface: 'http', request: expect.any(String) }, merge: { from: 'session:draft', fromRev: 2, base: { stream: 'session:main', rev: 1 } } });
    expect(answer.body.conflicts).toEqual([{ path: '/strategy/plan', base: 'v1', ours: 'v3', theirs: 'v2', resolution: { value: 'v2+v3' } }]);
    expect(await store.state('session:main')).toEqual({ strategy: { plan: 'v2+v3' }, lazy: { notes: { a: 1, b: 2 } } });
  });

  it('answers 422 MERGE_UNRELATED for streams with no common origin, 400 for bodies the schema refuses', async () => {
    const unrelated = await merge({ from: 'session:other', into: 'session:main' });
    expect([unrelated.status, unrelated.retry, unrelated.body.error.code, unrelated.body.error.details]).toEqual([422, 'false', 'MERGE_UNRELATED', { from: 'session:other', into: 'session:main' }]);
    for (const body of [{ from: 'session:draft' }, { from: 'session:draft', into: 'session:main', resolve: { '/a': 'mine' } }, { from: 'session:draft', into: 'session:main', prefer: 'both' }, { from: 'session:draft', into: 'session:main', extra: 1 }]) {
      const answer = await merge(body);
      expect([answer.status, answer.body.error.code], JSON.stringify(body)).toEqual([400, 'INPUT_INVALID']);
    }
  });
});
