/**
 * Retention (README "Retention") on the engine's test backend: policies as declarations, a run's
 * origins for each limit, the dry run that writes no byte, idle streams dropped, tags kept, and
 * the chain verifiable across the run. LevelDB and PostgreSQL run the same behaviour in the
 * conformance group `retention`.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { dump, failureOf, fakeClock } from '@stateflow/test-kit';
import type { FakeClock } from '@stateflow/test-kit';
import type { Harness } from './test-support/backends.js';
import { backends } from './test-support/backends.js';
import { listRetention, removeRetention, setRetention } from './retention.js';
import { retain } from './retain.js';
import { setTag } from './tags.js';
import { auditArchive, listArchives, openArchive } from './archive.js';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import canonicalize from 'canonicalize';

const DAY = 86_400_000;
const dayState = (d: number) => ({ day: d, text: String.fromCharCode(96 + d).repeat(100) });
/** The bytes of the net patches of days `from`…`to` (each replaces both members). */
const patchBytes = (from: number, to: number): number => {
  let bytes = 0;
  for (let d = from; d <= to; d++) bytes += Buffer.byteLength(JSON.stringify(dayState(d)));
  return bytes;
};

describe.each(backends)('retention on $name', (backend) => {
  let h: Harness;
  let time: FakeClock;
  beforeEach(async () => {
    time = fakeClock();
    h = await backend.create({ checkpointInterval: 4, clock: time.clock });
  });
  afterEach(async () => {
    await h.destroy();
  });

  /** One revision of `stream` a day for `days` days (the clock moves a day after each), each changing both members. */
  const daily = async (stream: string, days: number): Promise<void> => {
    for (let d = 1; d <= days; d++) {
      await h.store.publish({ changes: { [stream]: dayState(d) } });
      time.advance(DAY);
    }
  };

  it('declares policies on stateflow:retention: set, listed in precedence order, replaced, removed, time-travelled', async () => {
    await setRetention(h.store, 'session:*', { maxAgeMs: 7 * DAY, idleMs: 30 * DAY });
    await setRetention(h.store, 'session:agent-*', { maxRevisions: 10 });
    expect(await listRetention(h.store)).toEqual([
      { pattern: 'session:agent-*', maxRevisions: 10 },
      { pattern: 'session:*', maxAgeMs: 7 * DAY, idleMs: 30 * DAY },
    ]);
    await setRetention(h.store, 'session:*', { maxBytes: 1000 });
    expect((await listRetention(h.store))[1]).toEqual({ pattern: 'session:*', maxBytes: 1000 });
    expect((await setRetention(h.store, 'session:*', { maxBytes: 1000 })).status).toBe('noop');
    await removeRetention(h.store, 'session:agent-*');
    expect(await listRetention(h.store)).toEqual([{ pattern: 'session:*', maxBytes: 1000 }]);
    expect(await h.store.stateAt('stateflow:retention', 1)).toEqual({ 'session:*': { maxAgeMs: 7 * DAY, idleMs: 30 * DAY } });
    expect((await h.store.audit()).problems).toEqual([]);
  });

  it('refuses ill-formed policies, through publish too, writing nothing', async () => {
    const refused = async (p: Promise<unknown>) => (await failureOf(p)).details;
    expect(await refused(setRetention(h.store, 'a**', { maxRevisions: 1 }))).toEqual({ pattern: 'a**', reason: 'pattern' });
    expect(await refused(setRetention(h.store, 'stateflow:*', { maxRevisions: 1 }))).toEqual({ pattern: 'stateflow:*', reason: 'pattern' });
    expect(await refused(setRetention(h.store, 's:*', {}))).toEqual({ pattern: 's:*', reason: 'policy' });
    expect(await refused(setRetention(h.store, 's:*', { maxRevisions: 0 }))).toEqual({ pattern: 's:*', reason: 'policy' });
    expect(await refused(setRetention(h.store, 's:*', { maxAgeMs: 1.5 }))).toEqual({ pattern: 's:*', reason: 'policy' });
    expect(await refused(h.store.publish({ changes: { 'stateflow:retention': { 's:*': { keep: 3 } } } }))).toEqual({ pattern: 's:*', reason: 'policy' });
    expect((await failureOf(setRetention(h.store, 's:*', { maxRevisions: -1 }))).code).toBe('RETENTION_INVALID');
    expect(h.store.lastSeq()).toBe(0);
  });

  it('moves each governed origin to what its strictest limit keeps, and a dry run says the same and writes no byte', async () => {
    await daily('session:old', 20);
    await daily('session:big', 3);
    await daily('cwd:/r', 20);
    await setRetention(h.store, 'session:*', { maxAgeMs: 7 * DAY });
    await setRetention(h.store, 'session:big', { maxBytes: 250 });
    const before = await h.raw(dump);
    await h.reopen();
    const dry = await retain(h.store, { dryRun: true, now: time.now() });
    expect(await h.raw(dump)).toEqual(before);
    await h.reopen();
    const run = await retain(h.store, { now: time.now() });
    expect({ ...run, dryRun: true }).toEqual(dry);
    // session:old's revisions are 43…24 days old, all older than 7 days: only the head stays.
    // session:big's newest two patches fit 250 bytes: revision 1 is the origin.
    expect(run.streams).toEqual([
      { stream: 'session:big', family: 'session:big', rev: 3, fromOrigin: 0, origin: 1, revisions: 1, bytes: patchBytes(1, 1), expired: false },
      { stream: 'session:old', family: 'session:*', rev: 20, fromOrigin: 0, origin: 20, revisions: 20, bytes: patchBytes(1, 20), expired: false },
    ]);
    expect(run.families).toEqual([
      { pattern: 'session:big', streams: 1, revisions: 1, bytes: patchBytes(1, 1), kept: { streams: 1, revisions: 2, bytes: patchBytes(2, 3) } },
      { pattern: 'session:*', streams: 1, revisions: 20, bytes: patchBytes(1, 20), kept: { streams: 1, revisions: 0, bytes: 0 } },
    ]);
    expect(run.total).toEqual({ streams: 2, revisions: 21, bytes: patchBytes(1, 1) + patchBytes(1, 20) });
    expect((await h.store.head('session:old')).origin).toBe(20);
    expect(await h.store.stateAt('session:old', 20)).toEqual(dayState(20));
    expect((await failureOf(h.store.stateAt('session:old', 19))).code).toBe('HISTORY_NOT_RETAINED');
    expect((await h.store.head('cwd:/r')).origin).toBe(0);
    expect((await h.store.audit()).problems).toEqual([]);
    expect((await retain(h.store, { now: time.now() })).streams).toEqual([]);
  });

  it('keeps the revisions younger than maxAgeMs and the state as of the cutoff, at most maxRevisions, and tagged revisions', async () => {
    await daily('session:a', 10);
    await setRetention(h.store, 'session:a', { maxAgeMs: 4 * DAY });
    // Revision d was written 11 − d days ago: 6 is the last one older than 4 days.
    expect((await retain(h.store, { dryRun: true, now: time.now() })).streams[0]?.origin).toBe(6);
    await setTag(h.store, 'keep-five', { stream: 'session:a', rev: 5 });
    expect((await retain(h.store, { now: time.now() })).streams[0]).toMatchObject({ origin: 5, revisions: 5 });
    await setRetention(h.store, 'session:a', { maxRevisions: 2 });
    expect((await retain(h.store, { now: time.now() })).streams).toEqual([]);
    expect((await h.store.head('session:a')).origin).toBe(5);
    expect((await h.store.audit()).problems).toEqual([]);
  });

  it('drops a stream idle past idleMs in one transition, then keeps only that empty head; a stream written meanwhile is left alone', async () => {
    await daily('langgraph:t1', 3);
    time.advance(10 * DAY);
    await daily('langgraph:t2', 2);
    await setRetention(h.store, 'langgraph:*', { idleMs: 7 * DAY });
    const dry = await retain(h.store, { dryRun: true, now: time.now() });
    expect(dry.streams).toEqual([{ stream: 'langgraph:t1', family: 'langgraph:*', rev: 3, fromOrigin: 0, origin: 4, revisions: 4, bytes: dry.total.bytes, expired: true }]);
    const seq = h.store.lastSeq();
    const run = await retain(h.store, { now: time.now() });
    expect(run.streams).toEqual(dry.streams);
    expect(await h.store.state('langgraph:t1')).toEqual({});
    // One transition cleared it, and it too is compacted away (its stub keeps the chain).
    expect(h.store.lastSeq()).toBe(seq + 1);
    expect(await h.store.head('langgraph:t1')).toEqual({ stream: 'langgraph:t1', rev: 4, seq: seq + 1, origin: 4 });
    expect(await h.store.state('langgraph:t2')).toEqual(dayState(2));
    // Already empty and compacted: nothing more to do.
    time.advance(30 * DAY);
    const later = await retain(h.store, { now: time.now() });
    expect(later.streams.map((s) => s.stream)).toEqual(['langgraph:t2']);
    expect((await h.store.audit()).problems).toEqual([]);
  });

  it('archives what a run removes: recorded with its digest, audited against the chain, readable again byte for byte', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'retention-archive-'));
    try {
      await daily('session:a', 9);
      await daily('langgraph:t', 3);
      time.advance(10 * DAY);
      await daily('langgraph:live', 1);
      await setRetention(h.store, 'session:*', { maxRevisions: 3 });
      await setRetention(h.store, 'langgraph:*', { idleMs: 7 * DAY });
      const before = new Map<string, string>();
      for (const [stream, head] of [['session:a', 9], ['langgraph:t', 3]] as const) {
        for (let rev = 0; rev <= head; rev++) before.set(`${stream}@${rev}`, canonicalize(await h.store.stateAt(stream, rev)) as string);
      }
      const file = path.join(dir, 'run-1.jsonl');
      const run = await retain(h.store, { now: time.now(), archive: file });
      expect(run.streams.map((s) => [s.stream, s.origin])).toEqual([['langgraph:t', 4], ['session:a', 7]]);
      const records = await listArchives(h.store);
      expect(Object.keys(records)).toEqual(['run-1.jsonl']);
      expect(records['run-1.jsonl']).toMatchObject({ streams: { 'session:a': { from: 0, to: 7 }, 'langgraph:t': { from: 0, to: 3 } }, transitions: 10, bytes: (await readFile(file)).length });
      expect(run.archive).toEqual({ name: 'run-1.jsonl', ...records['run-1.jsonl'] });
      expect((await h.store.audit()).problems).toEqual([]);
      expect((await auditArchive(h.store, file)).problems).toEqual([]);
      const archive = await openArchive(file);
      for (const [key, state] of before) {
        const [stream, rev] = key.split('@') as [string, string];
        if (Number(rev) <= archive.streams[stream]!.to) expect(canonicalize(archive.stateAt(stream, Number(rev))), key).toBe(state);
      }
      expect((await failureOf(Promise.resolve().then(() => archive.stateAt('session:a', 8)))).code).toBe('REVISION_NOT_FOUND');
      // A second run may not reuse the name; a changed byte is found.
      const seq = h.store.lastSeq();
      await setRetention(h.store, 'session:*', { maxRevisions: 1 });
      expect((await failureOf(retain(h.store, { now: time.now(), archive: file }))).details).toEqual({ field: 'archive', reason: 'exists' });
      expect(h.store.lastSeq()).toBe(seq + 1);
      const text = await readFile(file, 'utf8');
      await writeFile(file, text.replace('"day":5', '"day":6'));
      expect((await auditArchive(h.store, file)).problems.map((p) => p.code)).toEqual(['DIGEST_MISMATCH', 'HASH_MISMATCH']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
