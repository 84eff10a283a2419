/**
 * Conformance: `retention` (store README "Retention"): policies are declarations on
 * `stateflow:retention`; a run moves each governed stream's origin to what its strictest limit
 * keeps (by age, count and bytes, never past a tag), clears streams idle past their TTL, leaves
 * the chain verifiable; a dry run reports the same and changes nothing a reader can see. Time is
 * a clock the test moves by hand: nothing waits.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { auditArchive, listArchives, listRetention, openArchive, retain, setRetention, setTag } from '@stateflow/store';
import type { Store, StreamHead, Transition } from '@stateflow/store';
import type { ConformanceOptions, StoreInitializer, TestApi } from '../initializer.js';
import { assert, assertJsonEqual, rejectsWithCode } from '../internal/assert.js';
import { defineGroup, type GroupBuilder } from '../internal/group.js';
import { accept } from '../internal/publish.js';

const DAY = 86_400_000;
const START = Date.parse('2026-07-01T00:00:00.000Z');

/** The group's clock: each test starts it at {@link START} and moves it by hand. */
let now = START;
const clock = (): Date => new Date(now);

/** Register the `retention` group. */
export function retentionGroup(init: StoreInitializer, api: TestApi, options: ConformanceOptions = {}): void {
  defineGroup('retention', 'retention', init, api, options, ({ test }) => {
    policies(test);
    runs(test);
    archives(test);
  });
}

/** One revision of `stream` a day for `days` days, the clock a day later after each. */
async function daily(store: Store, stream: string, days: number): Promise<void> {
  for (let d = 1; d <= days; d++) {
    await accept(store, { [stream]: { day: d, text: String.fromCharCode(96 + d).repeat(64) } });
    now += DAY;
  }
}

/** What a reader can see of a store: every head, every retained transition, and each stream's state at its origin. */
async function readable(store: Store): Promise<{ heads: StreamHead[]; transitions: Transition[]; origins: unknown[] }> {
  const heads = await store.streams();
  const transitions: Transition[] = [];
  for await (const t of store.transitions()) transitions.push(t);
  const origins = await Promise.all(heads.map((h) => store.stateAt(h.stream, h.origin)));
  return { heads, transitions, origins };
}

function policies(test: GroupBuilder['test']): void {
  test('policies are transitions on stateflow:retention; ill-formed ones are refused, writing nothing', async ({ store }) => {
    now = START;
    await setRetention(store, 'langgraph:*', { idleMs: 7 * DAY });
    await setRetention(store, 'langgraph:keep', { maxRevisions: 100 });
    assertJsonEqual(await listRetention(store), [{ pattern: 'langgraph:keep', maxRevisions: 100 }, { pattern: 'langgraph:*', idleMs: 7 * DAY }], 'policies in precedence order');
    await rejectsWithCode(setRetention(store, 'a**', { maxRevisions: 1 }), 'RETENTION_INVALID', 'a bad pattern');
    await rejectsWithCode(store.publish({ changes: { 'stateflow:retention': { 's:*': { maxRevisions: 0 } } } }), 'RETENTION_INVALID', 'a bad policy through publish');
    assert.equal(store.lastSeq(), 2, 'nothing more published');
    assertJsonEqual((await store.audit()).problems, [], 'audit');
  }, { options: { clock } });
}

function runs(test: GroupBuilder['test']): void {
  test('a run moves origins by age, count and bytes and keeps tags; its dry run reports the same and changes nothing', async ({ store }) => {
    now = START;
    await daily(store, 'session:a', 10);
    await daily(store, 'session:b', 6);
    await daily(store, 'cwd:/r', 5);
    await setRetention(store, 'session:*', { maxAgeMs: 3 * DAY });
    await setRetention(store, 'session:b', { maxRevisions: 2 });
    await setTag(store, 'keep-a4', { stream: 'session:a', rev: 4 });
    const before = await readable(store);
    const dry = await retain(store, { dryRun: true, now });
    assert.deepStrictEqual(await readable(store), before, 'a dry run changes nothing a reader sees');
    // session:a's revisions are 21…12 days old, all older than 3 days, but the tag holds revision 4.
    assertJsonEqual(dry.streams.map((s) => [s.stream, s.origin, s.revisions]), [['session:a', 4, 4], ['session:b', 5, 5]], 'planned origins');
    assertJsonEqual(dry.total.revisions, 9, 'total revisions');
    const run = await retain(store, { now });
    assert.deepStrictEqual({ ...run, dryRun: true }, dry, 'the run does what its dry run said');
    assertJsonEqual(await store.stateAt('session:a', 4), { day: 4, text: 'd'.repeat(64) }, 'the tagged revision');
    await rejectsWithCode(store.stateAt('session:b', 4), 'HISTORY_NOT_RETAINED', 'below the new origin');
    assert.equal((await store.head('cwd:/r')).origin, 0, 'an ungoverned stream keeps everything');
    assertJsonEqual((await store.audit()).problems, [], 'the chain verifies across the run');
  }, { options: { clock, checkpointInterval: 4 } });

  test('a stream idle past idleMs is cleared and compacted to that empty head; an active one is left', async ({ store }) => {
    now = START;
    await daily(store, 'langgraph:old', 3);
    now += 10 * DAY;
    await daily(store, 'langgraph:new', 2);
    await setRetention(store, 'langgraph:*', { idleMs: 7 * DAY });
    const run = await retain(store, { now });
    assertJsonEqual(run.streams.map((s) => [s.stream, s.origin, s.expired]), [['langgraph:old', 4, true]], 'expired streams');
    assertJsonEqual(await store.state('langgraph:old'), {}, 'cleared');
    assertJsonEqual(await store.state('langgraph:new'), { day: 2, text: 'b'.repeat(64) }, 'the active thread');
    assertJsonEqual((await store.audit()).problems, [], 'audit');
  }, { options: { clock } });
}

function archives(test: GroupBuilder['test']): void {
  test('a run with an archive records it; the archive audits clean and serves the removed revisions as they were', async ({ store }) => {
    now = START;
    const dir = await mkdtemp(path.join(tmpdir(), 'conformance-archive-'));
    try {
      await daily(store, 'session:a', 8);
      const before = await Promise.all([0, 1, 2, 3, 4, 5, 6].map((rev) => store.stateAt('session:a', rev)));
      await setRetention(store, 'session:*', { maxRevisions: 2 });
      const file = path.join(dir, 'archive-1.jsonl');
      const run = await retain(store, { now, archive: file });
      assertJsonEqual(run.streams.map((s) => s.origin), [7], 'new origin');
      assertJsonEqual((await listArchives(store))['archive-1.jsonl']?.streams ?? null, { 'session:a': { from: 0, to: 7 } }, 'the recorded range');
      assertJsonEqual((await auditArchive(store, file)).problems, [], 'archive audit');
      assertJsonEqual((await store.audit()).problems, [], 'store audit');
      const archive = await openArchive(file);
      assertJsonEqual(before.map((_, rev) => archive.stateAt('session:a', rev)), before, 'the removed revisions, readable from the archive');
      await rejectsWithCode(store.stateAt('session:a', 6), 'HISTORY_NOT_RETAINED', 'gone from the store');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, { options: { clock, checkpointInterval: 4 } });
}
