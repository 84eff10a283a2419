import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isStateflowError } from '@stateflow/core';
import type { JsonObject } from '@stateflow/core';
import { openMemoryStore, openStore } from '@stateflow/store';
import type { Store } from '@stateflow/store';
import { DAY_MS, SessionManager } from './session-manager.js';
import { SESSION_ID_PATTERN, sessionMetaStream, sessionSlateStream } from './session-record.js';

const LADDER = '@alice/researcher';
const SLATE = { 'Research Memory': { notes: { 'a.md': { contents: '' } } } } as unknown as JsonObject;

/** A clock tests move by hand. */
function manualClock(start = '2026-07-21T10:00:00.000Z') {
  let now = Date.parse(start);
  return { clock: () => new Date(now), advance: (ms: number) => (now += ms) };
}

async function codeOf(promise: Promise<unknown>): Promise<{ code: string; details: unknown }> {
  try {
    await promise;
  } catch (err) {
    if (isStateflowError(err)) return { code: err.code, details: err.details };
    throw err;
  }
  throw new Error('expected a StateflowError');
}

/** Append `entry` to the slate inside a call: read, then publish against the revision read. */
async function appendInCall(store: Store, id: string, entry: string): Promise<void> {
  const stream = sessionSlateStream(LADDER, id);
  const view = await store.view([stream]);
  const rev = view.streams[stream]?.rev ?? 0;
  const log = (view.streams[stream]?.state.log as string[] | undefined) ?? [];
  await new Promise((resolve) => setImmediate(resolve));
  await store.publish({ changes: { [stream]: { log: [...log, entry] } }, expected: { [stream]: rev } });
}

describe.each([
  ['memory-level', async () => ({ store: await openMemoryStore(), dir: null as string | null })],
  [
    'classic-level',
    async () => {
      const dir = await mkdtemp(path.join(tmpdir(), 'stateflow-sessions-'));
      return { store: await openStore(dir), dir };
    },
  ],
])('SessionManager on %s', (_name, open) => {
  let store: Store;
  let dir: string | null;
  let time: ReturnType<typeof manualClock>;
  let sessions: SessionManager;

  beforeEach(async () => {
    ({ store, dir } = await open());
    time = manualClock();
    sessions = new SessionManager({ store, clock: time.clock, idleMs: 30 * DAY_MS, retentionMs: 7 * DAY_MS });
    expect(store.lastSeq()).toBe(0);
  });
  afterEach(async () => {
    await store.close();
    if (dir !== null) await rm(dir, { recursive: true, force: true });
  });

  it('creates a session and its initial slate in one transition', async () => {
    const record = await sessions.create({ ladder: LADDER, owner: 'alice', name: 'Deep dive', initialSlate: SLATE });
    expect(record).toEqual({
      id: record.id,
      ladder: LADDER,
      owner: 'alice',
      name: 'Deep dive',
      status: 'created',
      createdAt: '2026-07-21T10:00:00.000Z',
      lastUsedAt: '2026-07-21T10:00:00.000Z',
    });
    expect(record.id).toMatch(SESSION_ID_PATTERN);
    const transition = await store.transition(1);
    expect(transition.meta).toEqual({ kind: 'session', event: 'created', user: 'alice' });
    expect(transition.changes.map((c) => c.stream)).toEqual([sessionMetaStream(record.id), sessionSlateStream(LADDER, record.id)]);
    expect(await store.state(sessionSlateStream(LADDER, record.id))).toEqual(SLATE);
  });

  it('reports a foreign session exactly like an unknown one', async () => {
    const record = await sessions.create({ ladder: LADDER, owner: 'alice' });
    const foreign = await codeOf(sessions.get(record.id, 'bob'));
    const unknown = await codeOf(sessions.get('sess_00000000000000000000000000000000', 'bob'));
    expect(foreign).toEqual({ code: 'SESSION_NOT_FOUND', details: { session: record.id } });
    expect(unknown.code).toBe('SESSION_NOT_FOUND');
    for (const op of [
      sessions.call(record.id, 'bob', async () => 1),
      sessions.close(record.id, 'bob'),
      sessions.pause(record.id, 'bob'),
      sessions.resume(record.id, 'bob'),
    ]) {
      expect((await codeOf(op)).code).toBe('SESSION_NOT_FOUND');
    }
    expect(await sessions.list('bob')).toEqual([]);
    expect((await sessions.list('alice')).map((s) => s.id)).toEqual([record.id]);
    expect((await sessions.get(record.id, 'alice')).status).toBe('created');
  });

  it('marks a session active and records lastUsedAt on each call', async () => {
    const { id } = await sessions.create({ ladder: LADDER, owner: 'alice' });
    time.advance(60_000);
    const seen = await sessions.call(id, 'alice', async (record) => record);
    expect(seen.status).toBe('active');
    expect(seen.lastUsedAt).toBe('2026-07-21T10:01:00.000Z');
    expect(await sessions.get(id, 'alice')).toEqual(seen);
  });

  it('serialises concurrent calls so every acknowledged write lands', async () => {
    const { id } = await sessions.create({ ladder: LADDER, owner: 'alice' });
    const entries = Array.from({ length: 20 }, (_, i) => `entry ${i}`);
    await Promise.all(entries.map((e) => sessions.call(id, 'alice', () => appendInCall(store, id, e))));
    const state = await store.state(sessionSlateStream(LADDER, id));
    expect(state.log).toEqual(entries);
  });

  it('rejects calls after close with SESSION_CLOSED and keeps state readable during retention', async () => {
    const { id } = await sessions.create({ ladder: LADDER, owner: 'alice', initialSlate: SLATE });
    await sessions.call(id, 'alice', () => appendInCall(store, id, 'kept'));
    const closed = await sessions.close(id, 'alice');
    expect(closed.status).toBe('closed');
    expect(closed.closedAt).toBe('2026-07-21T10:00:00.000Z');
    expect(await codeOf(sessions.call(id, 'alice', async () => 1))).toEqual({
      code: 'SESSION_CLOSED',
      details: { session: id, status: 'closed' },
    });
    time.advance(7 * DAY_MS - 1);
    expect((await sessions.get(id, 'alice')).purgedAt).toBeUndefined();
    expect((await store.state(sessionSlateStream(LADDER, id))).log).toEqual(['kept']);
  });

  it('deletes state when retention ends (sweep), keeping the record for audit', async () => {
    const { id } = await sessions.create({ ladder: LADDER, owner: 'alice', initialSlate: SLATE });
    await sessions.call(id, 'alice', () => appendInCall(store, id, 'gone'));
    await sessions.close(id, 'alice');
    time.advance(7 * DAY_MS);
    expect(await sessions.sweep()).toEqual({ expired: [], purged: [id] });
    const stream = sessionSlateStream(LADDER, id);
    expect(await store.state(stream)).toEqual({});
    expect((await codeOf(store.stateAt(stream, 1))).code).toBe('HISTORY_NOT_RETAINED');
    const record = await sessions.get(id, 'alice');
    expect(record.status).toBe('closed');
    expect(record.purgedAt).toBe('2026-07-28T10:00:00.000Z');
    expect((await store.audit()).problems).toEqual([]);
  });

  it('with retention 0 deletes state at close', async () => {
    const now = new SessionManager({ store, clock: time.clock, retentionMs: 0 });
    const { id } = await now.create({ ladder: LADDER, owner: 'alice', initialSlate: SLATE });
    const closed = await now.close(id, 'alice');
    expect(closed.purgedAt).toBe('2026-07-21T10:00:00.000Z');
    expect(await store.state(sessionSlateStream(LADDER, id))).toEqual({});
  });

  it('expires after the idle period, on access and by sweep', async () => {
    const a = await sessions.create({ ladder: LADDER, owner: 'alice' });
    const b = await sessions.create({ ladder: LADDER, owner: 'alice' });
    time.advance(30 * DAY_MS - 1);
    expect((await sessions.get(a.id, 'alice')).status).toBe('created');
    time.advance(1);
    const expired = await sessions.get(a.id, 'alice');
    expect(expired.status).toBe('expired');
    expect(expired.expiredAt).toBe('2026-08-20T10:00:00.000Z');
    expect(await codeOf(sessions.call(a.id, 'alice', async () => 1))).toEqual({
      code: 'SESSION_CLOSED',
      details: { session: a.id, status: 'expired' },
    });
    expect(await sessions.sweep()).toEqual({ expired: [b.id], purged: [] });
    const transitions: string[] = [];
    for await (const t of store.transitions({ stream: sessionMetaStream(a.id) })) transitions.push(String(t.meta?.event));
    expect(transitions).toEqual(['created', 'expired']);
  });

  it('pauses and resumes, handing back the recorded execution state', async () => {
    const { id } = await sessions.create({ ladder: LADDER, owner: 'alice' });
    const execution = { step: 'draft', outputs: { plan: ['a', 'b'] } } as unknown as JsonObject;
    expect((await sessions.pause(id, 'alice', execution)).status).toBe('paused');
    expect(await codeOf(sessions.call(id, 'alice', async () => 1))).toEqual({ code: 'SESSION_PAUSED', details: { session: id } });
    const resumed = await sessions.resume(id, 'alice');
    expect(resumed.execution).toEqual(execution);
    expect(resumed.record.status).toBe('active');
    expect(resumed.record.execution).toBeUndefined();
    expect((await sessions.get(id, 'alice')).execution).toBeUndefined();
    expect(await sessions.call(id, 'alice', async () => 'ran')).toBe('ran');
  });

  it('rejects bad options with USAGE', () => {
    expect(() => new SessionManager({ store, idleMs: 0 })).toThrowError(/idle period/);
    expect(() => new SessionManager({ store, retentionMs: -1 })).toThrowError(/retention/);
  });
});
