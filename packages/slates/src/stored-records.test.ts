/**
 * Stored session and slate records are decoded, not trusted (DESIGN.md "Fail closed": a record
 * that does not decode makes the affected stream's load fail with a typed error naming the
 * stream, nothing is rewritten, and streams whose records are intact stay usable). Each record
 * is corrupted by a write through the store, as a hand edit, an older build or damage would.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '@stateflow/store';
import { failureOf, storePerTest } from '@stateflow/test-kit';
import { backends, fixture, steppingClock } from '../test-fixtures/harness.js';
import { loadLadderFile } from './load-ladder.js';
import { runLadder } from './run-ladder.js';
import { scriptedModel } from './scripted-model.js';
import { SessionManager } from './sessions/session-manager.js';
import { sessionMetaStream, sessionSlateStream } from './sessions/session-record.js';
import { createSlateState } from './slate-state.js';

describe.each(backends)('stored records on $name', (backend) => {
  let store: Store;
  let sessions: SessionManager;
  storePerTest(backend, { beforeEach, afterEach }, (opened) => {
    store = opened.store;
    sessions = new SessionManager({ store, clock: steppingClock() });
    expect(store.lastSeq()).toBe(0);
  });

  /** Publish `patch` onto `stream` as a hand edit would, and the state and revision it leaves. */
  async function corrupt(stream: string, patch: Parameters<Store['publish']>[0]['changes'][string]) {
    await store.publish({ changes: { [stream]: patch } });
    const view = await store.view([stream]);
    return { state: view.streams[stream]?.state, rev: view.streams[stream]?.rev, lastSeq: store.lastSeq() };
  }

  it('a session record with an unknown status fails closed with STORE_CORRUPT naming its stream, the member and the value', async () => {
    const { id } = await sessions.create({ ladder: '@alice/researcher', owner: 'alice' });
    const meta = sessionMetaStream(id);
    const before = await corrupt(meta, { status: 'bogus' });
    for (const attempt of [sessions.get(id, 'alice'), sessions.call(id, 'alice', async () => 'ran'), sessions.pause(id, 'alice'), sessions.close(id, 'alice')]) {
      expect(await failureOf(attempt)).toEqual({
        code: 'STORE_CORRUPT',
        details: { stream: meta, detail: 'session record does not decode: /status: Expected union value (found "bogus")' },
      });
    }
    // Nothing was rewritten.
    const after = await store.view([meta]);
    expect({ state: after.streams[meta]?.state, rev: after.streams[meta]?.rev, lastSeq: store.lastSeq() }).toEqual(before);
  });

  it('a damaged record leaves every other session listable, counted and swept', async () => {
    const damaged = await sessions.create({ ladder: '@alice/researcher', owner: 'alice' });
    const intact = await sessions.create({ ladder: '@alice/researcher', owner: 'alice', name: 'intact' });
    await corrupt(sessionMetaStream(damaged.id), { lastUsedAt: 7 });
    expect((await sessions.list('alice')).map((r) => r.id)).toEqual([intact.id]);
    expect(await sessions.countByStatus()).toEqual({ created: 1 });
    expect(await sessions.sweep()).toEqual({ expired: [], purged: [] });
    expect((await failureOf(sessions.get(damaged.id, 'alice'))).code).toBe('STORE_CORRUPT');
    expect((await sessions.get(intact.id, 'alice')).name).toBe('intact');
  });

  it("a paused session's execution state that does not decode fails its resume, and nothing is rewritten", async () => {
    const { id } = await sessions.create({ ladder: '@alice/researcher', owner: 'alice' });
    await sessions.pause(id, 'alice');
    const meta = sessionMetaStream(id);
    const before = await corrupt(meta, { execution: { step: 's1', node: -1, round: 1, calls: [], call: {} } });
    expect(await failureOf(sessions.resume(id, 'alice'))).toEqual({
      code: 'STORE_CORRUPT',
      details: { stream: meta, detail: expect.stringMatching(/^session record does not decode: \/execution\/node: Expected integer to be greater or equal to 0 \(found -1\)$/) },
    });
    expect(store.lastSeq()).toBe(before.lastSeq);
  });

  it('a slate stream whose file entries are not a list fails the ladder call closed: STORE_CORRUPT naming the stream, nothing published', async () => {
    const ladder = await loadLadderFile(fixture('sessions-research-assistant.yaml'));
    const stream = sessionSlateStream('research', 'sess-1');
    await store.publish({ changes: { [stream]: createSlateState(ladder, new Date('2026-01-01T00:00:00.000Z')) } });
    const before = await corrupt(stream, { slates: { 'Conversation Memory': { folders: { history: { files: { 'messages.md': { entries: 'not a list' } } } } } } });
    const call = runLadder({ store, ladder, ladderId: 'research', session: 'sess-1', input: 'What did we learn?', model: scriptedModel(['Answer.']), clock: steppingClock() });
    expect(await failureOf(call)).toEqual({
      code: 'STORE_CORRUPT',
      details: { stream, detail: expect.stringMatching(/^slate stream state does not decode: \/slates\/Conversation Memory\/folders\/history\/files\/messages\.md\/entries: Expected array/) },
    });
    expect(store.lastSeq()).toBe(before.lastSeq);
  });

  it('a slate stream without its layout marker is not read as empty slates', async () => {
    const ladder = await loadLadderFile(fixture('sessions-research-assistant.yaml'));
    const stream = sessionSlateStream('research', 'sess-2');
    await store.publish({ changes: { [stream]: { notes: 'written by hand' } } });
    const call = runLadder({ store, ladder, ladderId: 'research', session: 'sess-2', input: 'q', model: scriptedModel(['Answer.']), clock: steppingClock() });
    expect(await failureOf(call)).toMatchObject({ code: 'STORE_CORRUPT', details: { stream, detail: expect.stringMatching(/^slate stream state does not decode: \/layout: /) } });
  });
});
