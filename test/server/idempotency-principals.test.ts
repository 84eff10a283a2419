/**
 * Idempotency ids belong to their principal (server README "Idempotency ids"), over HTTP on
 * loopback: bob's id never answers alice's request. Alice reusing bob's id — in publish,
 * publish-many, fork and merge, and naming bob as the principal herself — is her own write,
 * accepted; each retry is a `duplicate` of the retrier's own transition. An id the store
 * accepted before principals (unscoped: a store written by an older server or a library) is
 * still matched for the store's owner, and for no key user.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '@stateflow/store-leveldb';
import { startServer } from '@stateflow/server';
import type { ServerHandle } from '@stateflow/server';
import type { FakeUpstream } from './fake-upstream.js';
import { http, makeDirs, startCountingUpstream, upstreamEnv } from './fixtures.js';
import type { Dirs } from './fixtures.js';

const KEYS = { 'key-alice': 'alice', 'key-bob': 'bob' };

let dirs: Dirs;
let upstream: FakeUpstream;
let server: ServerHandle;
let alice: string;
let aliceOther: string;
let bob: string;
let bobOther: string;
let legacySeq: number;

const agent = (id: string) => `session:${id}`;

async function store(route: string, body: unknown, key: string): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = key === 'owner' ? { 'x-stateflow-token': server.token } : {};
  return http(`${server.url}/v1/store/${route}`, { key: key === 'owner' ? undefined : key, headers, body });
}

async function createSession(key: string): Promise<string> {
  return (await http(`${server.url}/v1/alice/researcher/sessions`, { key, body: {} })).body.id;
}

beforeAll(async () => {
  dirs = await makeDirs();
  const dir = path.join(dirs.root, 'store');
  // A store as an older server left it: an unscoped id, the owner's.
  const old = await openStore(dir);
  const accepted = await old.publish({ changes: { global: { legacy: true } }, id: 'legacy-1' });
  legacySeq = accepted.transition?.seq ?? -1;
  await old.close();
  upstream = await startCountingUpstream();
  server = await startServer({ dir, ladders: dirs.ladders, port: 0, keys: KEYS, env: upstreamEnv(upstream), sweepIntervalMs: 0, onWarning: () => undefined });
  alice = await createSession('key-alice');
  aliceOther = await createSession('key-alice');
  bob = await createSession('key-bob');
  bobOther = await createSession('key-bob');
});

afterAll(async () => {
  await server?.close();
  await upstream?.close();
  await dirs?.cleanup();
});

describe('idempotency ids per principal', () => {
  it("alice reusing bob's id publishes her own write; each retry answers its own transition", async () => {
    const bobs = await store('publish', { changes: { [agent(bob)]: { lazy: { secret: 'bob-plan' } } }, id: 'shared-idem-1' }, 'key-bob');
    expect([bobs.status, bobs.body.status]).toEqual([200, 'accepted']);
    const hers = await store('publish', { changes: { [agent(alice)]: { lazy: { mine: 1 } } }, id: 'shared-idem-1' }, 'key-alice');
    expect([hers.status, hers.body.status]).toEqual([200, 'accepted']);
    expect(hers.body.transition.changes.map((c: { stream: string }) => c.stream)).toEqual([agent(alice)]);
    expect(await server.store.state(agent(alice))).toEqual({ lazy: { mine: 1 } });
    const herRetry = await store('publish', { changes: { [agent(alice)]: { lazy: { mine: 2 } } }, id: 'shared-idem-1' }, 'key-alice');
    expect(herRetry.body).toEqual({ status: 'duplicate', transition: hers.body.transition });
    const bobRetry = await store('publish', { changes: { [agent(bob)]: { lazy: { secret: 'x' } } }, id: 'shared-idem-1' }, 'key-bob');
    expect(bobRetry.body).toEqual({ status: 'duplicate', transition: bobs.body.transition });
    expect(JSON.stringify(herRetry.body)).not.toContain('bob-plan');
  });

  it('a key user cannot name another principal: her principal is always her own', async () => {
    const bobs = await store('publish', { changes: { [agent(bob)]: { lazy: { n: 1 } } }, id: 'named-1' }, 'key-bob');
    expect(bobs.body.status).toBe('accepted');
    const forged = await store('publish', { changes: { [agent(alice)]: { lazy: { forged: true } } }, id: 'named-1', principal: 'user:bob' }, 'key-alice');
    expect([forged.status, forged.body.status]).toEqual([200, 'accepted']);
    expect(forged.body.transition.seq).not.toBe(bobs.body.transition.seq);
  });

  it('publish-many, fork and merge: the same id is a new write for another user', async () => {
    const many = await store('publish-many', { inputs: [{ changes: { [agent(bob)]: { lazy: { m: 1 } } }, id: 'many-1' }] }, 'key-bob');
    expect(many.body.results[0].status).toBe('accepted');
    const hers = await store('publish-many', { inputs: [{ changes: { [agent(alice)]: { lazy: { m: 1 } } }, id: 'many-1' }] }, 'key-alice');
    expect(hers.body.results.map((r: { status: string }) => r.status)).toEqual(['accepted']);

    expect((await store('fork', { from: agent(bob), to: agent(bobOther), id: 'fork-1' }, 'key-bob')).body.status).toBe('accepted');
    const fork = await store('fork', { from: agent(alice), to: agent(aliceOther), id: 'fork-1' }, 'key-alice');
    expect([fork.status, fork.body.status]).toEqual([200, 'accepted']);
    expect(await server.store.state(agent(aliceOther))).toEqual(await server.store.state(agent(alice)));

    await store('publish', { changes: { [agent(bobOther)]: { lazy: { more: 1 } } } }, 'key-bob');
    await store('publish', { changes: { [agent(aliceOther)]: { lazy: { more: 2 } } } }, 'key-alice');
    expect((await store('merge', { from: agent(bobOther), into: agent(bob), id: 'merge-1' }, 'key-bob')).body.status).toBe('accepted');
    const merge = await store('merge', { from: agent(aliceOther), into: agent(alice), id: 'merge-1' }, 'key-alice');
    expect([merge.status, merge.body.status]).toEqual([200, 'accepted']);
    expect((await server.store.state(agent(alice))).lazy).toMatchObject({ more: 2 });
  });

  it("an id accepted before principals stays the owner's: the owner's retry is a duplicate, a key user's a new write", async () => {
    const owner = await store('publish', { changes: { global: { legacy: 'again' } }, id: 'legacy-1' }, 'owner');
    expect([owner.body.status, owner.body.transition.seq]).toEqual(['duplicate', legacySeq]);
    const hers = await store('publish', { changes: { [agent(alice)]: { lazy: { legacy: 'hers' } } }, id: 'legacy-1' }, 'key-alice');
    expect([hers.status, hers.body.status]).toEqual([200, 'accepted']);
    expect(JSON.stringify(hers.body)).not.toContain('"global"');
    expect((await store('audit', {}, 'owner')).body.problems).toEqual([]);
  });

  it("a duplicate shows only the caller's streams: the owner writing into her principal cannot hand her a shared stream", async () => {
    const planted = await store('publish', { changes: { global: { planted: true }, [agent(alice)]: { lazy: { planted: true } } }, id: 'planted-1', principal: 'user:alice' }, 'owner');
    expect(planted.body.status).toBe('accepted');
    const retry = await store('publish', { changes: { [agent(alice)]: { lazy: { x: 1 } } }, id: 'planted-1' }, 'key-alice');
    expect(retry.body.status).toBe('duplicate');
    expect(retry.body.transition.changes.map((c: { stream: string }) => c.stream)).toEqual([agent(alice)]);
    expect(retry.body.transition).not.toHaveProperty('hash');
    expect(retry.body.transition).not.toHaveProperty('meta');
    expect(retry.body.transition.seq).toBe(planted.body.transition.seq);
  });
});
