/**
 * Per-user isolation, lifecycle with an injected clock (expiry, close, retention keep vs delete),
 * restart on the same directory, and the start-up rules (keys, model, host) of the HTTP server.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { APIError } from 'openai';
import { isStateflowError } from '@stateflow/core';
import { startServer } from '@stateflow/server';
import type { ServerHandle } from '@stateflow/server';
import type { FakeUpstream } from './fake-upstream.js';
import { ask, http, ladderClient, makeDirs, startCountingUpstream, upstreamEnv } from './fixtures.js';
import { fakeClock } from '@stateflow/test-kit';
import type { FakeClock } from '@stateflow/test-kit';
import type { Dirs } from './fixtures.js';

const DAY = 86_400_000;
const KEYS = { 'key-alice': 'alice', 'key-bob': 'bob' };

let dirs: Dirs;
let upstream: FakeUpstream;
beforeAll(async () => {
  dirs = await makeDirs();
  upstream = await startCountingUpstream();
});
afterAll(async () => {
  await upstream?.close();
  await dirs?.cleanup();
});

describe('isolation between users', () => {
  let server: ServerHandle;
  beforeAll(async () => {
    server = await startServer({ dir: path.join(dirs.root, 'iso'), ladders: dirs.ladders, port: 0, keys: KEYS, env: upstreamEnv(upstream), sweepIntervalMs: 0 });
  });
  afterAll(() => server?.close());

  it('rejects requests without a known key with 401', async () => {
    const none = await http(`${server.url}/v1/alice/researcher/sessions`);
    expect(none.status).toBe(401);
    expect(none.body.error.code).toBe('UNAUTHORIZED');
    expect((await http(`${server.url}/v1/alice/researcher/sessions`, { key: 'nope' })).status).toBe(401);
  });

  it('user B cannot read, call, close, pause, list or state-read user A’s session', async () => {
    const created = await http(`${server.url}/v1/alice/researcher/sessions`, { body: { name: 'mine' }, key: 'key-alice' });
    const id: string = created.body.id;
    const base = `${server.url}/v1/alice/researcher/sessions/${id}`;
    await ladderClient(server.url, 'alice/researcher', 'key-alice').chat.completions.create(ask('a secret'), { headers: { 'X-Session-Id': id } });
    const patchA = await http(`${server.url}/v1/state/patch`, {
      key: 'key-alice',
      body: { selection: { session: id, mode: 'active' }, patch: { tactics: { next: 'alice only' } } },
    });
    expect(patchA.status).toBe(200);

    const asBob = async (url: string, init: { method?: string; body?: unknown } = {}) => {
      const r = await http(url, { ...init, key: 'key-bob' });
      return [r.status, r.body?.error?.code];
    };
    expect(await asBob(base)).toEqual([404, 'SESSION_NOT_FOUND']);
    expect(await asBob(`${base}/slates`)).toEqual([404, 'SESSION_NOT_FOUND']);
    expect(await asBob(`${base}/close`, { method: 'POST' })).toEqual([404, 'SESSION_NOT_FOUND']);
    expect(await asBob(`${base}/pause`, { method: 'POST' })).toEqual([404, 'SESSION_NOT_FOUND']);
    expect(await asBob(`${base}/resume`, { method: 'POST' })).toEqual([404, 'SESSION_NOT_FOUND']);
    const call = await ladderClient(server.url, 'alice/researcher', 'key-bob')
      .chat.completions.create(ask('let me in'), { headers: { 'X-Session-Id': id } })
      .catch((e: unknown) => e);
    expect([(call as APIError).status, (call as APIError).code]).toEqual([404, 'SESSION_NOT_FOUND']);
    const list = await http(`${server.url}/v1/alice/researcher/sessions`, { key: 'key-bob' });
    expect(list.body.data).toEqual([]);
    const read = { selection: { session: id, mode: 'active' }, path: 'tactics.next' };
    expect(await asBob(`${server.url}/v1/state/read`, { body: read })).toEqual([404, 'SESSION_NOT_FOUND']);
    expect(await asBob(`${server.url}/v1/state/patch`, { body: { ...read, path: undefined, patch: { tactics: { x: 'y' } } } })).toEqual([
      404,
      'SESSION_NOT_FOUND',
    ]);
    expect(await asBob(`${server.url}/v1/state/read`, { body: { selection: { global: true, mode: 'active' }, path: 'tactics' } })).toEqual([
      400,
      'INPUT_INVALID',
    ]);

    // A local/ ladder has one slate stream for the whole store: with keys it would be shared
    // across users, so every local/ route refuses with 403 before the model is asked.
    const before = upstream.requests.length;
    const local = await http(`${server.url}/v1/local/notes/chat/completions`, { body: ask('alice writes a secret'), key: 'key-alice' });
    expect(local.status).toBe(403);
    expect(local.body.error.code).toBe('FORBIDDEN');
    expect(local.body.error.details).toEqual({ ladder: '@local/notes', reason: 'local-ladder' });
    expect(local.body.error.message).toContain('@alice/researcher');
    const viaClient = await ladderClient(server.url, 'local/notes', 'key-bob').chat.completions.create(ask('bob asks')).catch((e: unknown) => e);
    expect([(viaClient as APIError).status, (viaClient as APIError).code]).toEqual([403, 'FORBIDDEN']);
    expect((await http(`${server.url}/v1/local/notes/sessions`, { key: 'key-bob' })).status).toBe(403);
    expect(upstream.requests.length).toBe(before);
    expect((await server.store.head('slate:@local/notes:local')).rev).toBe(0);

    // Alice still sees everything, unchanged.
    const mine = await http(`${server.url}/v1/alice/researcher/sessions`, { key: 'key-alice' });
    expect(mine.body.data.map((s: { id: string }) => s.id)).toEqual([id]);
    expect((await http(`${server.url}/v1/state/read`, { key: 'key-alice', body: read })).body).toEqual({ value: 'alice only' });
    expect((await http(base, { key: 'key-alice' })).body.status).toBe('active');
  });
});

describe('lifecycle with an injected clock', () => {
  let server: ServerHandle | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  const start = async (name: string, retentionDays: number, time: FakeClock) => {
    server = await startServer({
      dir: path.join(dirs.root, name),
      ladders: dirs.ladders,
      port: 0,
      env: upstreamEnv(upstream),
      clock: time.clock,
      sessionIdleMs: 30 * DAY,
      sessionRetentionMs: retentionDays * DAY,
      sweepIntervalMs: 0,
    });
    return server;
  };
  const create = async (s: ServerHandle) => (await http(`${s.url}/v1/alice/researcher/sessions`, { body: {} })).body.id as string;
  const call = (s: ServerHandle, id: string) =>
    http(`${s.url}/v1/alice/researcher/chat/completions`, { body: ask('hello'), headers: { 'x-session-id': id } });

  it('expires at the configured idle period: readable, calls → 410', async () => {
    const time = fakeClock();
    const s = await start('expiry', 7, time);
    const id = await create(s);
    expect((await call(s, id)).status).toBe(200);
    time.advance(30 * DAY - 1);
    expect((await http(`${s.url}/v1/alice/researcher/sessions/${id}`)).body.status).toBe('active');
    time.advance(1);
    const expired = await http(`${s.url}/v1/alice/researcher/sessions/${id}`);
    expect(expired.body).toMatchObject({ status: 'expired', expiredAt: '2026-08-20T10:00:00.000Z' });
    const gone = await call(s, id);
    expect(gone.status).toBe(410);
    expect(gone.body.error).toMatchObject({ code: 'SESSION_CLOSED', details: { session: id, status: 'expired' } });
    expect((await http(`${s.url}/v1/alice/researcher/sessions/${id}/slates`)).status).toBe(200);
  });

  it('retention keep: closed state stays readable for N days, then the sweep deletes it', async () => {
    const time = fakeClock();
    const s = await start('keep', 7, time);
    const id = await create(s);
    await call(s, id);
    expect((await http(`${s.url}/v1/alice/researcher/sessions/${id}/close`, { method: 'POST' })).body.status).toBe('closed');
    expect((await call(s, id)).status).toBe(410);
    time.advance(7 * DAY - 1);
    const kept = await http(`${s.url}/v1/alice/researcher/sessions/${id}/slates`);
    expect(kept.status).toBe(200);
    expect(JSON.stringify(kept.body.slates)).toContain('answer #');
    expect((await http(`${s.url}/v1/alice/researcher/sessions/${id}/slates?at=1`)).status).toBe(200);
    time.advance(1);
    expect(await s.sessions.sweep()).toEqual({ expired: [], purged: [id] });
    const deleted = await http(`${s.url}/v1/alice/researcher/sessions/${id}/slates`);
    expect(deleted.status).toBe(410);
    expect(deleted.body.error.code).toBe('SESSION_CLOSED');
    expect((await http(`${s.url}/v1/alice/researcher/sessions/${id}`)).body).toMatchObject({ status: 'closed', purgedAt: '2026-07-28T10:00:00.000Z' });
    expect((await s.store.audit()).problems).toEqual([]);
  });

  it('state patches racing a close never land after it; with retention 0 nothing of the session remains', async () => {
    const time = fakeClock();
    const s = await start('race', 0, time);
    const id = await create(s);
    const patch = (i: number) =>
      http(`${s.url}/v1/state/patch`, { body: { selection: { session: id, mode: 'active' }, patch: { tactics: { [`k${i}`]: i } } } });
    const early = Array.from({ length: 20 }, (_, i) => patch(i));
    const closing = http(`${s.url}/v1/alice/researcher/sessions/${id}/close`, { method: 'POST' });
    const late = Array.from({ length: 20 }, (_, i) => patch(20 + i));
    const closed = await closing;
    const answers = await Promise.all([...early, ...late]);
    expect(closed.status, JSON.stringify(closed.body)).toBe(200);
    expect(closed.body).toMatchObject({ status: 'closed', purgedAt: '2026-07-21T10:00:00.000Z' });
    for (const answer of answers) {
      expect([200, 410], JSON.stringify(answer.body)).toContain(answer.status);
      if (answer.status === 410) expect(answer.body.error.code).toBe('SESSION_CLOSED');
    }
    // Whatever landed before the close was purged with it; nothing landed after it.
    expect(await s.store.state(`session:${id}`)).toEqual({});
    const after = await patch(99);
    expect([after.status, after.body.error.code]).toEqual([410, 'SESSION_CLOSED']);
    const read = await http(`${s.url}/v1/state/read`, { body: { selection: { session: id, mode: 'active' }, path: 'session', projection: 'keys' } });
    expect([read.status, read.body.error.code]).toEqual([410, 'SESSION_CLOSED']);
    expect(await s.sessions.sweep()).toEqual({ expired: [], purged: [] });
    expect(await s.store.state(`session:${id}`)).toEqual({});
    expect((await s.store.audit()).problems).toEqual([]);
  });

  it('retention delete (0 days): closing deletes the slates at once', async () => {
    const time = fakeClock();
    const s = await start('delete', 0, time);
    const id = await create(s);
    await call(s, id);
    const closed = await http(`${s.url}/v1/alice/researcher/sessions/${id}/close`, { method: 'POST' });
    expect(closed.body).toMatchObject({ status: 'closed', purgedAt: '2026-07-21T10:00:00.000Z' });
    expect((await http(`${s.url}/v1/alice/researcher/sessions/${id}/slates`)).status).toBe(410);
  });
});

describe('restart on the same directory', () => {
  it('keeps sessions and slates, and the audit is clean', async () => {
    const dir = path.join(dirs.root, 'restart');
    const options = { dir, ladders: dirs.ladders, port: 0, keys: KEYS, env: upstreamEnv(upstream), sweepIntervalMs: 0 };
    const first = await startServer(options);
    const id = (await http(`${first.url}/v1/alice/researcher/sessions`, { body: { name: 'survives' }, key: 'key-alice' })).body.id as string;
    const client = ladderClient(first.url, 'alice/researcher', 'key-alice');
    await client.chat.completions.create(ask('day 1'), { headers: { 'X-Session-Id': id } });
    const before = await http(`${first.url}/v1/alice/researcher/sessions/${id}/slates`, { key: 'key-alice' });
    const sessionBefore = await http(`${first.url}/v1/alice/researcher/sessions/${id}`, { key: 'key-alice' });
    await first.close();

    const second = await startServer(options);
    try {
      expect((await second.store.audit()).problems).toEqual([]);
      expect((await http(`${second.url}/v1/alice/researcher/sessions/${id}`, { key: 'key-alice' })).body).toEqual(sessionBefore.body);
      expect((await http(`${second.url}/v1/alice/researcher/sessions/${id}/slates`, { key: 'key-alice' })).body).toEqual(before.body);
      const n = upstream.requests.length;
      await ladderClient(second.url, 'alice/researcher', 'key-alice').chat.completions.create(ask('day 2'), { headers: { 'X-Session-Id': id } });
      expect(JSON.stringify(upstream.requests[n]?.messages)).toContain(JSON.stringify(before.body.slates).match(/answer #\d+/)?.[0]);
    } finally {
      await second.close();
    }
  });
});

describe('start-up rules', () => {
  it('answers 503 with how to configure when no model upstream is set', async () => {
    const s = await startServer({ dir: path.join(dirs.root, 'nomodel'), ladders: dirs.ladders, port: 0, env: {}, sweepIntervalMs: 0 });
    try {
      const r = await http(`${s.url}/v1/alice/researcher/chat/completions`, { body: ask('hi') });
      expect(r.status).toBe(503);
      expect(r.body.error.code).toBe('MODEL_NOT_CONFIGURED');
      expect(r.body.error.details).toMatchObject({ missing: 'upstream' });
      expect(r.headers.get('x-should-retry')).toBe('false');
      expect(r.body.error.message).toContain('OPENAI_BASE_URL');
    } finally {
      await s.close();
    }
  });

  it('refuses a non-loopback host without keys, and bad keys', async () => {
    const err = await startServer({ dir: path.join(dirs.root, 'host'), host: '0.0.0.0', port: 0, env: {} }).catch((e: unknown) => e);
    expect(isStateflowError(err, 'USAGE')).toBe(true);
    const file = path.join(dirs.root, 'keys.json');
    await writeFile(file, '["not", "an", "object"]');
    const bad = await startServer({ dir: path.join(dirs.root, 'host'), keysFile: file, port: 0, env: {} }).catch((e: unknown) => e);
    expect(isStateflowError(bad, 'USAGE')).toBe(true);
  });

  it('reads keys from STATEFLOW_API_KEYS', async () => {
    const s = await startServer({
      dir: path.join(dirs.root, 'envkeys'),
      ladders: dirs.ladders,
      port: 0,
      env: { STATEFLOW_API_KEYS: JSON.stringify({ 'env-key': 'carol' }) },
      sweepIntervalMs: 0,
    });
    try {
      expect((await http(`${s.url}/v1/alice/researcher/sessions`)).status).toBe(401);
      expect((await http(`${s.url}/v1/alice/researcher/sessions`, { key: 'env-key' })).status).toBe(200);
    } finally {
      await s.close();
    }
  });
});
