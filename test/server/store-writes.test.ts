/**
 * Writes through the store API authorised per stream (server README "Users and keys"): with API
 * keys a key user writes only the agent state `session:<id>` of its own open sessions; session
 * records (`ladder-session:`) and slates (`slate:`) are written by the ladder runtime alone, so a
 * record's owner, status and a paused call's recorded outputs cannot be forged. The store's
 * owner (the token) keeps full access.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '@stateflow/server';
import type { ServerHandle } from '@stateflow/server';
import type { FakeUpstream } from './fake-upstream.js';
import { ask, http, makeDirs, startCountingUpstream, upstreamEnv } from './fixtures.js';
import type { Dirs } from './fixtures.js';

const KEYS = { 'key-alice': 'alice', 'key-bob': 'bob' };

let dirs: Dirs;
let upstream: FakeUpstream;
let server: ServerHandle;
let alice: string;
let aliceOther: string;
let bob: string;

const record = (id: string) => `ladder-session:${id}`;
const slate = (id: string) => `slate:@alice/researcher:${id}`;
const agent = (id: string) => `session:${id}`;

async function store(route: string, body: unknown, key = 'key-alice'): Promise<{ status: number; code: string | undefined; details: unknown }> {
  const answer = await http(`${server.url}/v1/store/${route}`, { key, body });
  return { status: answer.status, code: answer.body?.error?.code, details: answer.body?.error?.details };
}

async function createSession(key: string): Promise<string> {
  return (await http(`${server.url}/v1/alice/researcher/sessions`, { key, body: {} })).body.id;
}

beforeAll(async () => {
  dirs = await makeDirs();
  upstream = await startCountingUpstream();
  server = await startServer({ dir: path.join(dirs.root, 'store'), ladders: dirs.ladders, port: 0, keys: KEYS, env: upstreamEnv(upstream), sweepIntervalMs: 0, onWarning: () => undefined });
  alice = await createSession('key-alice');
  aliceOther = await createSession('key-alice');
  bob = await createSession('key-bob');
  expect((await http(`${server.url}/v1/alice/researcher/chat/completions`, { key: 'key-alice', body: ask('hello'), headers: { 'x-session-id': alice } })).status).toBe(200);
});

afterAll(async () => {
  await server?.close();
  await upstream?.close();
  await dirs?.cleanup();
});

describe('store API writes with an API key', () => {
  it('refuse a session record: 403 FORBIDDEN naming it, nothing published, and bob never lists her session', async () => {
    const before = server.store.lastSeq();
    expect(await store('publish', { changes: { [record(alice)]: { owner: 'bob' } } })).toEqual({ status: 403, code: 'FORBIDDEN', details: { stream: record(alice), reason: 'runtime-stream' } });
    // A writable stream beside it does not help: the whole publication is refused.
    const mixed = await store('publish', { changes: { [agent(alice)]: { lazy: { a: 1 } }, [slate(alice)]: { tick: 99 } } });
    expect([mixed.status, mixed.code, mixed.details]).toEqual([403, 'FORBIDDEN', { stream: slate(alice), reason: 'runtime-stream' }]);
    // publishMany is all or nothing, and each of its inputs is authorised like one publish.
    const many = await store('publish-many', { inputs: [{ changes: { [agent(alice)]: { lazy: { b: 1 } } } }, { changes: { [record(alice)]: { status: 'active' } } }] });
    expect([many.status, many.code, many.details]).toEqual([403, 'FORBIDDEN', { stream: record(alice), reason: 'runtime-stream' }]);
    expect(server.store.lastSeq()).toBe(before);
    const listed = await http(`${server.url}/v1/alice/researcher/sessions`, { key: 'key-bob' });
    expect(listed.body.data.map((s: { id: string }) => s.id)).toEqual([bob]);
    expect((await server.store.state(record(alice))).owner).toBe('alice');
  });

  it('refuse the runtime streams in fork and merge (source and target), revert and compact', async () => {
    const before = server.store.lastSeq();
    expect(await store('fork', { from: agent(alice), to: record(aliceOther) })).toMatchObject({ status: 403, details: { stream: record(aliceOther) } });
    expect(await store('fork', { from: slate(alice), to: agent(aliceOther) })).toMatchObject({ status: 403, details: { stream: slate(alice) } });
    expect(await store('merge', { from: agent(alice), into: record(aliceOther) })).toMatchObject({ status: 403, details: { stream: record(aliceOther) } });
    expect(await store('merge', { from: slate(alice), into: agent(aliceOther) })).toMatchObject({ status: 403, details: { stream: slate(alice) } });
    expect(await store('revert', { stream: record(alice), rev: 1 })).toMatchObject({ status: 403, details: { stream: record(alice) } });
    expect(await store('revert', { stream: slate(alice), rev: 1 })).toMatchObject({ status: 403, details: { stream: slate(alice) } });
    expect(await store('compact', { stream: slate(alice), keepRevisions: 1 })).toMatchObject({ status: 403, details: { stream: slate(alice) } });
    expect(await store('compact', { stream: record(alice), keepRevisions: 1 })).toMatchObject({ status: 403, details: { stream: record(alice) } });
    expect(server.store.lastSeq()).toBe(before);
    expect((await server.store.head(slate(alice))).origin).toBe(0);
  });

  it("allow her own sessions' agent state, and answer 404 for another user's or a shared stream", async () => {
    expect((await store('publish', { changes: { [agent(alice)]: { lazy: { plan: 'mine' } } } })).status).toBe(200);
    expect((await store('fork', { from: agent(alice), to: agent(aliceOther) })).status).toBe(200);
    expect((await store('revert', { stream: agent(aliceOther), rev: 0 })).status).toBe(200);
    expect((await store('compact', { stream: agent(alice), keepRevisions: 1 })).status).toBe(200);
    expect((await store('publish-many', { inputs: [{ changes: { [agent(alice)]: { lazy: { n: 1 } } } }, { changes: { [agent(aliceOther)]: { lazy: { n: 2 } } } }] })).status).toBe(200);
    for (const stream of [agent(bob), record(bob), 'global', 'cwd:/p', 'session:agent-1']) {
      expect(await store('publish', { changes: { [stream]: { lazy: { x: 1 } } } }), stream).toMatchObject({ status: 404, code: 'NOT_FOUND', details: { stream } });
    }
    expect(await store('fork', { from: agent(bob), to: agent(alice), expected: 'any' })).toMatchObject({ status: 404, details: { stream: agent(bob) } });
  });

  it('refuse append and audit: the owner-only routes answer 403 to a key', async () => {
    expect(await store('audit', {})).toEqual({ status: 403, code: 'FORBIDDEN', details: { route: 'POST /v1/store/audit', access: 'owner' } });
    expect(await store('append', { transition: {} })).toMatchObject({ status: 403, details: { route: 'POST /v1/store/append', access: 'owner' } });
    expect(await store('append-many', { transitions: [] })).toMatchObject({ status: 403, details: { route: 'POST /v1/store/append-many', access: 'owner' } });
  });

  it('cannot reopen a closed session: the record rewrite is refused, calls stay 410, and its agent state is closed too', async () => {
    const closed = await createSession('key-alice');
    expect((await http(`${server.url}/v1/alice/researcher/sessions/${closed}/close`, { key: 'key-alice', method: 'POST' })).status).toBe(200);
    expect(await store('publish', { changes: { [record(closed)]: { status: 'active', closedAt: null } } })).toMatchObject({ status: 403, code: 'FORBIDDEN' });
    const call = await http(`${server.url}/v1/alice/researcher/chat/completions`, { key: 'key-alice', body: ask('again'), headers: { 'x-session-id': closed } });
    expect([call.status, call.body.error.code]).toEqual([410, 'SESSION_CLOSED']);
    expect(await store('publish', { changes: { [agent(closed)]: { lazy: { late: true } } } })).toMatchObject({ status: 410, code: 'SESSION_CLOSED' });
  });

  it("a publish to her agent state carries the record's guard: one computed before a close conflicts", async () => {
    const guarded = await createSession('key-alice');
    const head = await server.store.head(record(guarded));
    // The caller's own expectation on the record (here: stale) wins over the guard and is checked.
    const stale = await store('publish', { changes: { [agent(guarded)]: { lazy: { x: 1 } } }, expected: { [record(guarded)]: head.rev - 1 } });
    expect([stale.status, stale.code]).toEqual([409, 'CONFLICT']);
    expect((await store('publish', { changes: { [agent(guarded)]: { lazy: { x: 1 } } } })).status).toBe(200);
  });

  it("the store's owner (the token) keeps full access", async () => {
    const answer = await http(`${server.url}/v1/store/publish`, { headers: { 'x-stateflow-token': server.token }, body: { changes: { [record(aliceOther)]: { name: 'renamed by the owner' } } } });
    expect(answer.status).toBe(200);
    expect((await server.store.state(record(aliceOther))).name).toBe('renamed by the owner');
  });
});
