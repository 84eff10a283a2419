/**
 * Undo over HTTP (server README "Undo"): `POST /v1/store/undo` with API keys. A key user undoes
 * only her own writes — `writer.user` filled in with hers, another user's refused 403 — and only
 * on streams she may write; the store's owner undoes anyone's. A conflict answers 409
 * UNDO_CONFLICT with every conflict; a dry run publishes nothing. The remote store's `undo`
 * goes the same way.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRemoteStore } from '@stateflow/client';
import { startServer } from '@stateflow/server';
import { setTag } from '@stateflow/store';
import type { ServerHandle } from '@stateflow/server';
import { http, makeDirs } from './fixtures.js';
import type { Dirs } from './fixtures.js';

let dirs: Dirs;
let server: ServerHandle;
let alice: string;
let bob: string;

const agent = (id: string) => `session:${id}`;

async function undo(body: unknown, key?: string): Promise<{ status: number; body: Record<string, any> }> {
  const answer = await http(`${server.url}/v1/store/undo`, key === undefined ? { headers: { 'x-stateflow-token': server.token }, body } : { key, body });
  return { status: answer.status, body: answer.body };
}

async function patch(session: string, lazy: Record<string, unknown>, key: string): Promise<void> {
  const answer = await http(`${server.url}/v1/store/publish`, { key, body: { changes: { [agent(session)]: { lazy } } } });
  expect(answer.status).toBe(200);
}

beforeAll(async () => {
  dirs = await makeDirs();
  server = await startServer({ dir: path.join(dirs.root, 'store'), ladders: dirs.ladders, port: 0, keys: { 'key-alice': 'alice', 'key-bob': 'bob' }, sweepIntervalMs: 0, onWarning: () => undefined });
  alice = (await http(`${server.url}/v1/alice/researcher/sessions`, { key: 'key-alice', body: {} })).body.id;
  bob = (await http(`${server.url}/v1/alice/researcher/sessions`, { key: 'key-bob', body: {} })).body.id;
});

afterAll(async () => {
  await server?.close();
  await dirs?.cleanup();
});

describe('POST /v1/store/undo', () => {
  it("a key user undoes her own writes on her session, and is refused another user's", async () => {
    const since = server.store.lastSeq();
    await patch(alice, { plan: 'mine', notes: { a: 1 } }, 'key-alice');
    await patch(bob, { plan: 'bob' }, 'key-bob');
    expect(await undo({ writer: { user: 'bob' }, since }, 'key-alice')).toMatchObject({ status: 403, body: { error: { code: 'FORBIDDEN', details: { user: 'bob', reason: 'others-writes' } } } });
    const preview = await undo({ writer: { surface: 'http' }, since, dryRun: true }, 'key-alice');
    expect(preview.status).toBe(200);
    expect(preview.body).toMatchObject({ status: 'preview', writer: { surface: 'http', user: 'alice' }, patches: { [agent(alice)]: { lazy: null } } });
    expect(Object.keys(preview.body.patches)).toEqual([agent(alice)]);
    const done = await undo({ writer: {}, since }, 'key-alice');
    expect(done.status).toBe(400);
    const accepted = await undo({ writer: { surface: 'http' }, since }, 'key-alice');
    expect(accepted.body).toMatchObject({ status: 'accepted', transition: { meta: { undo: { writer: { surface: 'http', user: 'alice' } }, writer: { user: 'alice' } } } });
    expect(await server.store.state(agent(alice))).toEqual({});
    expect(await server.store.state(agent(bob))).toEqual({ lazy: { plan: 'bob' } });
  });

  it("the owner undoes anyone's; a conflict is 409 UNDO_CONFLICT and publishes nothing", async () => {
    const since = server.store.lastSeq();
    await patch(bob, { plan: 'poisoned' }, 'key-bob');
    const remote = await openRemoteStore({ url: server.url, token: server.token });
    try {
      await remote.publish({ changes: { [agent(bob)]: { lazy: { plan: 'fixed by the owner' } } } });
      const before = server.store.lastSeq();
      const refused = await undo({ writer: { user: 'bob' }, since });
      expect(refused.status).toBe(409);
      expect(refused.body.error).toMatchObject({ code: 'UNDO_CONFLICT', details: { conflicts: [{ stream: agent(bob), path: '/lazy/plan', base: 'poisoned', ours: 'fixed by the owner', theirs: 'bob' }] } });
      expect(server.store.lastSeq()).toBe(before);
      const settled = await remote.undo({ writer: { user: 'bob' }, since, prefer: 'theirs' });
      expect(settled.status).toBe('accepted');
      expect(await server.store.state(agent(bob))).toEqual({ lazy: { plan: 'bob' } });
      // A read at a tag over HTTP: the stream's revision as of the tag's seq.
      await setTag(remote, 'before-poison', { seq: since });
      const tagged = await http(`${server.url}/v1/store/state?stream=${encodeURIComponent(agent(bob))}&tag=before-poison`, { key: 'key-bob' });
      expect(tagged.body).toEqual({ stream: agent(bob), rev: 1, state: { lazy: { plan: 'bob' } } });
      expect((await http(`${server.url}/v1/store/state?stream=${encodeURIComponent(agent(bob))}&tag=nope`, { key: 'key-bob' })).body.error.code).toBe('TAG_NOT_FOUND');
    } finally {
      await remote.close();
    }
  });
});
