import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { JsonObject } from '@stateflow/core';
import type { Store } from '@stateflow/store';
import { SessionManager } from './session-manager.js';
import { DAY_MS } from './session-retention.js';
import { SESSION_ID_PATTERN, sessionMetaStream, sessionSlateStream } from './session-record.js';
import { pausableModel } from './session-execution.js';
import type { Model } from '../model.js';
import { failureOf, fakeClock } from '@stateflow/test-kit';
import { backends } from '../../test-fixtures/harness.js';
import type { FakeClock, TestStore } from '@stateflow/test-kit';

const LADDER = '@alice/researcher';
const SLATE = { 'Research Memory': { notes: { 'a.md': { contents: '' } } } } as unknown as JsonObject;

/** Append `entry` to the slate inside a call: read, then publish against the revision read. */
async function appendInCall(store: Store, id: string, entry: string): Promise<void> {
  const stream = sessionSlateStream(LADDER, id);
  const view = await store.view([stream]);
  const rev = view.streams[stream]?.rev ?? 0;
  const log = (view.streams[stream]?.state.log as string[] | undefined) ?? [];
  await new Promise((resolve) => setImmediate(resolve));
  await store.publish({ changes: { [stream]: { log: [...log, entry] } }, expected: { [stream]: rev } });
}

/**
 * Until `manager` holds a pause request waiting on the call in flight: releasing the call's model
 * before that lets the call run past the step where the pause meets it.
 */
const untilPauseHeld = (manager: SessionManager): Promise<void> => vi.waitFor(() => expect(manager.waiting().pause).toBe(1));

/** A model for steps s1, s2 whose s1 answer waits for `releaseFirst()`. */
function twoStepModel(prefix: string) {
  const asked: string[] = [];
  let release!: () => void;
  let askedFirst!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const firstAsked = new Promise<void>((resolve) => (askedFirst = resolve));
  const model: Model = {
    async complete(request) {
      asked.push(request.step);
      if (request.step === 's1') {
        askedFirst();
        await gate;
      }
      return `${prefix}-${request.step}`;
    },
  };
  return { model, asked, firstAsked, releaseFirst: () => release() };
}

/** Two sequential model calls, as a two-step ladder makes them. */
async function runTwoSteps(model: Model): Promise<string[]> {
  const a = await model.complete({ messages: [], step: 's1', node: 0, round: 1 });
  const b = await model.complete({ messages: [], step: 's2', node: 0, round: 1 });
  return [a, b];
}

describe.each(backends)('SessionManager on $name', (backend) => {
  let opened: TestStore<Store>;
  let store: Store;
  let time: FakeClock;
  let sessions: SessionManager;

  beforeEach(async () => {
    opened = await backend.open();
    store = opened.store;
    time = fakeClock();
    sessions = new SessionManager({ store, clock: time.clock, idleMs: 30 * DAY_MS, retentionMs: 7 * DAY_MS });
    expect(store.lastSeq()).toBe(0);
  });
  afterEach(() => opened.destroy());

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
    const foreign = await failureOf(sessions.get(record.id, 'bob'));
    const unknown = await failureOf(sessions.get('sess_00000000000000000000000000000000', 'bob'));
    expect(foreign).toEqual({ code: 'SESSION_NOT_FOUND', details: { session: record.id } });
    expect(unknown.code).toBe('SESSION_NOT_FOUND');
    expect((await failureOf(sessions.get('not a session id\u0000', 'bob'))).code).toBe('SESSION_NOT_FOUND');
    for (const op of [
      sessions.call(record.id, 'bob', async () => 1),
      sessions.close(record.id, 'bob'),
      sessions.pause(record.id, 'bob'),
      sessions.resume(record.id, 'bob'),
    ]) {
      expect((await failureOf(op)).code).toBe('SESSION_NOT_FOUND');
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
    expect(await failureOf(sessions.call(id, 'alice', async () => 1))).toEqual({
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
    expect((await failureOf(store.stateAt(stream, 1))).code).toBe('HISTORY_NOT_RETAINED');
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
    expect(await failureOf(sessions.call(a.id, 'alice', async () => 1))).toEqual({
      code: 'SESSION_CLOSED',
      details: { session: a.id, status: 'expired' },
    });
    expect(await sessions.sweep()).toEqual({ expired: [b.id], purged: [] });
    const transitions: string[] = [];
    for await (const t of store.transitions({ stream: sessionMetaStream(a.id) })) transitions.push(String(t.meta?.event));
    expect(transitions).toEqual(['created', 'expired']);
  });

  it('the sweep leaves a session whose lock is held (a call, the sweep of another server) to the next sweep', async () => {
    const a = await sessions.create({ ladder: LADDER, owner: 'alice' });
    time.advance(30 * DAY_MS);
    let release!: () => void;
    const held = store.withLock(sessionMetaStream(a.id), () => new Promise<void>((resolve) => (release = resolve)));
    expect(await sessions.sweep()).toEqual({ expired: [], purged: [] });
    release();
    await held;
    expect(await sessions.sweep()).toEqual({ expired: [a.id], purged: [] });
  });

  it('pauses and resumes between calls', async () => {
    const { id } = await sessions.create({ ladder: LADDER, owner: 'alice' });
    expect((await sessions.pause(id, 'alice')).status).toBe('paused');
    expect(await failureOf(sessions.call(id, 'alice', async () => 1))).toEqual({ code: 'SESSION_PAUSED', details: { session: id } });
    const resumed = await sessions.resume(id, 'alice');
    expect(resumed).toEqual({ record: { ...resumed.record, status: 'active' }, execution: undefined });
    expect(await sessions.call(id, 'alice', async () => 'ran')).toBe('ran');
  });

  it('pauses a call in flight after its current step, records the execution state, and continues it on resume', async () => {
    const { id } = await sessions.create({ ladder: LADDER, owner: 'alice' });
    const steps = twoStepModel('live');
    const running = sessions.call(id, 'alice', (_record, control) => runTwoSteps(pausableModel(steps.model, control, { context: 'q' })));
    await steps.firstAsked;
    expect(sessions.waiting()).toEqual({ pause: 0, resume: 0, close: 0 });
    const pausing = sessions.pause(id, 'alice');
    // The pause waits on the call (which meets it at its next model call): visible as waiting.
    await vi.waitFor(() => expect(sessions.waiting()).toEqual({ pause: 1, resume: 0, close: 0 }));
    steps.releaseFirst();
    const paused = await pausing;
    expect(sessions.waiting()).toEqual({ pause: 0, resume: 0, close: 0 });
    expect(paused.status).toBe('paused');
    expect(paused.execution).toEqual({ step: 's2', node: 0, round: 1, calls: [{ step: 's1', node: 0, round: 1, output: 'live-s1' }], call: { context: 'q' } });
    expect((await sessions.get(id, 'alice')).execution).toEqual(paused.execution);
    expect(await failureOf(sessions.call(id, 'alice', async () => 1))).toEqual({ code: 'SESSION_PAUSED', details: { session: id } });
    expect(steps.asked).toEqual(['s1']);
    const resumed = await sessions.resume(id, 'alice');
    expect(resumed.record.status).toBe('active');
    expect(resumed.execution).toBeUndefined();
    expect(await running).toEqual(['live-s1', 'live-s2']);
    expect(steps.asked).toEqual(['s1', 's2']);
    expect((await sessions.get(id, 'alice')).execution).toBeUndefined();
  });

  it('after a restart, resume runs the paused call again, replaying recorded outputs from the store', async () => {
    const { id } = await sessions.create({ ladder: LADDER, owner: 'alice' });
    const first = twoStepModel('before');
    const running = sessions.call(id, 'alice', (_r, control) => runTwoSteps(pausableModel(first.model, control, { context: 'q' })));
    await first.firstAsked;
    const pausing = sessions.pause(id, 'alice');
    await untilPauseHeld(sessions);
    first.releaseFirst();
    await pausing;
    const outcome = failureOf(running);
    sessions.shutdown();
    expect((await outcome).code).toBe('SESSION_PAUSED');

    const restarted = new SessionManager({ store, clock: time.clock });
    const second = twoStepModel('after');
    const resumed = await restarted.resume(id, 'alice', (_r, execution, control) =>
      runTwoSteps(pausableModel(second.model, control, execution.call, execution.calls)),
    );
    expect(resumed.continued).toEqual(['before-s1', 'after-s2']);
    expect(second.asked).toEqual(['s2']);
    expect(resumed.record.status).toBe('active');
  });

  it('fails a paused call with SESSION_CLOSED when the session is closed', async () => {
    const { id } = await sessions.create({ ladder: LADDER, owner: 'alice' });
    const steps = twoStepModel('x');
    const running = sessions.call(id, 'alice', (_r, control) => runTwoSteps(pausableModel(steps.model, control, {})));
    await steps.firstAsked;
    const pausing = sessions.pause(id, 'alice');
    await untilPauseHeld(sessions);
    steps.releaseFirst();
    await pausing;
    const outcome = failureOf(running);
    expect((await sessions.close(id, 'alice')).status).toBe('closed');
    expect((await outcome).code).toBe('SESSION_CLOSED');
  });

  it('pauses between calls when the call in flight ends before its next model call', async () => {
    const { id } = await sessions.create({ ladder: LADDER, owner: 'alice' });
    let release!: () => void;
    const started = new Promise<void>((resolveStarted) => {
      void sessions.call(id, 'alice', () => {
        resolveStarted();
        return new Promise<void>((resolve) => (release = resolve));
      });
    });
    await started;
    const pausing = sessions.pause(id, 'alice');
    release();
    const paused = await pausing;
    expect(paused.status).toBe('paused');
    expect(paused.execution).toBeUndefined();
  });

  it('a resume that arrives while a pause is pending cancels it: no request hangs', async () => {
    const { id } = await sessions.create({ ladder: LADDER, owner: 'alice' });
    const steps = twoStepModel('r');
    const running = sessions.call(id, 'alice', (_r, control) => runTwoSteps(pausableModel(steps.model, control, {})));
    await steps.firstAsked;
    const pausing = sessions.pause(id, 'alice');
    const resumed = await sessions.resume(id, 'alice');
    expect(resumed.record.status).toBe('active');
    expect((await pausing).status).toBe('active');
    steps.releaseFirst();
    expect(await running).toEqual(['r-s1', 'r-s2']);
    expect((await sessions.get(id, 'alice')).status).toBe('active');
    expect(await sessions.call(id, 'alice', async () => 'next')).toBe('next');
  });

  it('a resume that arrives while the call is parking unparks it once parked', async () => {
    const { id } = await sessions.create({ ladder: LADDER, owner: 'alice' });
    // Hold the publication of the "paused" record: the call is then parking, not yet parked.
    let releasePaused!: () => void;
    let pausedPublishing!: () => void;
    const heldPaused = new Promise<void>((resolve) => (releasePaused = resolve));
    const publishingPaused = new Promise<void>((resolve) => (pausedPublishing = resolve));
    const held = new Proxy(store, {
      get(target, key) {
        const value: unknown = Reflect.get(target, key);
        if (key !== 'publish') return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
        return async (input: Parameters<Store['publish']>[0]) => {
          if ((input.meta as { event?: string } | undefined)?.event === 'paused') {
            pausedPublishing();
            await heldPaused;
          }
          return target.publish(input);
        };
      },
    });
    const manager = new SessionManager({ store: held, clock: time.clock });
    const steps = twoStepModel('p');
    const running = manager.call(id, 'alice', (_r, control) => runTwoSteps(pausableModel(steps.model, control, {})));
    await steps.firstAsked;
    const pausing = manager.pause(id, 'alice');
    await untilPauseHeld(manager);
    steps.releaseFirst();
    await publishingPaused;
    const resuming = manager.resume(id, 'alice');
    releasePaused();
    expect((await pausing).status).toBe('paused');
    expect((await resuming).record.status).toBe('active');
    expect(await running).toEqual(['p-s1', 'p-s2']);
    expect((await manager.get(id, 'alice')).status).toBe('active');
  });

  it('a close while a pause is pending fails the call with SESSION_CLOSED instead of parking it', async () => {
    const { id } = await sessions.create({ ladder: LADDER, owner: 'alice' });
    const steps = twoStepModel('c');
    const running = failureOf(sessions.call(id, 'alice', (_r, control) => runTwoSteps(pausableModel(steps.model, control, {}))));
    await steps.firstAsked;
    const pausing = failureOf(sessions.pause(id, 'alice'));
    await untilPauseHeld(sessions);
    const closing = sessions.close(id, 'alice');
    // The close interrupts the call (the pending pause ends with it) before the call goes on.
    await vi.waitFor(() => expect(sessions.waiting().pause).toBe(0));
    steps.releaseFirst();
    expect((await running).code).toBe('SESSION_CLOSED');
    expect((await pausing).code).toBe('SESSION_CLOSED');
    expect((await closing).status).toBe('closed');
    expect(steps.asked).toEqual(['s1']);
  });

  it('rejects bad options with USAGE', () => {
    expect(() => new SessionManager({ store, idleMs: 0 })).toThrowError(/idle period/);
    expect(() => new SessionManager({ store, retentionMs: -1 })).toThrowError(/retention/);
  });
});
