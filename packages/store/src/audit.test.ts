import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { JsonObject } from '@stateflow/core';
import type { Harness } from './test-support/backends.js';
import { backends } from './test-support/backends.js';
import { decodeValue, encodeValue } from './internal/codec.js';
import { transitionHash } from './internal/hash.js';
import { checkpointKey, headKey, logKey, revKey } from './internal/keys.js';
import { SEAL_BYTES, checkpointBody, decodeLog, encodeCheckpoint, encodeSealed, encodeTransition } from './internal/records.js';
import type { Storage } from './storage.js';
import type { Transition } from './types.js';
import { collect, dump, failureOf, rawWrite } from '@stateflow/test-kit';

const put = (s: Storage, key: Uint8Array, value: Uint8Array): Promise<void> => rawWrite(s, [{ type: 'put', key, value }]);

/** The transition stored at `seq`, as plain values (hash not checked). */
const readLog = async (s: Storage, seq: number): Promise<Transition> => {
  const bytes = await s.get(logKey(seq));
  if (bytes === undefined) throw new Error('missing key');
  return structuredClone(decodeLog(logKey(seq), bytes, seq, { verifyHash: false, frozen: false })) as Transition;
};
/** Store `t` as its log record, resealed (its hash as it is: recompute it to forge a consistent one). */
const putLog = (s: Storage, t: Transition): Promise<void> => put(s, logKey(t.seq), encodeTransition(logKey(t.seq), t));

/** The body of a sealed record (`R`, `C`), seal not checked. */
const readSealed = async (s: Storage, key: Uint8Array): Promise<JsonObject> => {
  const bytes = await s.get(key);
  if (bytes === undefined) throw new Error('missing key');
  return structuredClone(decodeValue(bytes.subarray(0, bytes.byteLength - SEAL_BYTES))) as JsonObject;
};
/** Put `record` under `key` as a sealed record: with a correct seal, or (`stale`) the seal `key` had before. */
const putSealed = async (s: Storage, key: Uint8Array, record: JsonObject, options: { stale?: boolean } = {}): Promise<void> => {
  const value = Buffer.from(encodeSealed(key, record));
  if (options.stale === true) {
    const old = (await s.get(key)) as Uint8Array;
    value.set(old.subarray(old.byteLength - SEAL_BYTES), value.byteLength - SEAL_BYTES);
  }
  await put(s, key, value);
};

/** Rewrite the state of the checkpoint at `key` by `edit`, resealed (or `stale`: with the seal `key` had before). */
const editCheckpointState = async (s: Storage, key: Uint8Array, edit: (state: JsonObject) => void, options: { stale?: boolean } = {}): Promise<void> => {
  const old = (await s.get(key)) as Uint8Array;
  const cp = checkpointBody(key, old.subarray(0, old.byteLength - SEAL_BYTES), 'global');
  const state = structuredClone(cp.state);
  edit(state);
  const value = Buffer.from(encodeCheckpoint(key, { ...cp, state }));
  if (options.stale === true) value.set(old.subarray(old.byteLength - SEAL_BYTES), value.byteLength - SEAL_BYTES);
  await put(s, key, value);
};

/** Layout built by `seed`: seq 1..8 change global (revs 1..8); session:ok changes at seqs 2, 5, 8 (last). */
const globalSeq = (rev: number): number => rev;

describe.each(backends)('audit and fail-closed on $name', (backend) => {
  let h: Harness;
  beforeEach(async () => {
    h = await backend.create({ checkpointInterval: 3 });
    for (let i = 1; i <= 8; i++) {
      const changes: Record<string, JsonObject> = { global: { n: i, lazy: { [`p${i}`]: i } } };
      if (i === 2 || i === 5 || i === 8) changes['session:ok'] = { m: i };
      await h.store.publish({ changes, id: `t${i}` });
    }
    expect(h.store.lastSeq()).toBe(8);
  });
  afterEach(async () => {
    await h.destroy();
  });

  /** Check intact streams still read, and the store's stored bytes stay as they were (on disk, the files too: store-leveldb's fail-closed-files.test.ts). */
  async function expectOtherStreamsFineAndNothingWritten(run: () => Promise<void>): Promise<void> {
    const before = await h.raw(dump);
    await h.reopen();
    await run();
    expect(await h.store.state('session:ok')).toEqual({ m: 8 });
    for (let rev = 0; rev <= 3; rev++) expect(Object.keys(await h.store.stateAt('session:ok', rev)).length).toBe(rev === 0 ? 0 : 1);
    expect(await h.raw(dump)).toEqual(before);
  }

  it('is clean on an intact store and reports progress', async () => {
    const progress: number[] = [];
    const report = await h.store.audit({ onProgress: (done, total) => progress.push(done * 100 + total) });
    expect(report).toEqual({ transitions: 8, streams: 2, checkpoints: 3, problems: [] });
    expect(progress).toEqual([108, 208, 308, 408, 508, 608, 708, 808]);
  });

  it('a tampered patch in the log, resealed (hash not fixed): HASH_MISMATCH; reads of the transition fail closed, replays take the patch its seal vouches for', async () => {
    await h.raw(async (s) => {
      const t = await readLog(s, globalSeq(7));
      (t.changes[0] as { patch: JsonObject }).patch = { n: 700, lazy: { p7: 7 } };
      await putLog(s, t);
    });
    await h.reopen();
    const report = await h.store.audit();
    expect(report.problems.map((p) => [p.code, p.key])).toContainEqual(['HASH_MISMATCH', 'L/7']);
    await expectOtherStreamsFineAndNothingWritten(async () => {
      expect(await failureOf(collect(h.store.transitions({ stream: 'global' })))).toEqual({ code: 'STORE_CORRUPT', details: expect.objectContaining({ stream: 'global', key: 'L/7' }) });
      expect(await h.store.patchAt('global', 7)).toEqual({ n: 700, lazy: { p7: 7 } });
    });
  });

  it('a log record whose bytes changed: SEAL_MISMATCH; reads and replays that use it fail closed, others read', async () => {
    await h.raw(async (s) => {
      const bytes = Buffer.from((await s.get(logKey(7))) as Uint8Array);
      bytes[bytes.indexOf('"n":7', 65) + 4] = 0x38; // "n":8, the seal left as it was
      await put(s, logKey(7), bytes);
    });
    await h.reopen();
    expect((await h.store.audit()).problems.map((p) => `${p.code} ${p.key}`)).toContain('SEAL_MISMATCH L/7');
    await expectOtherStreamsFineAndNothingWritten(async () => {
      const corrupt = { code: 'STORE_CORRUPT', details: expect.objectContaining({ stream: 'global', key: 'L/7' }) };
      expect(await failureOf(h.store.stateAt('global', 7))).toEqual(corrupt);
      expect(await failureOf(h.store.patchAt('global', 7))).toEqual(corrupt);
      expect(await h.store.stateAt('global', 6)).toEqual(expect.objectContaining({ n: 6 }));
    });
  });

  it('a revision-index record whose bytes changed: SEAL_MISMATCH; reads that use it fail closed, others read', async () => {
    await h.raw(async (s) => {
      const r = await readSealed(s, revKey('global', 7));
      r.patch = { n: 700, lazy: { p7: 7 } };
      await putSealed(s, revKey('global', 7), r, { stale: true });
    });
    await h.reopen();
    expect((await h.store.audit()).problems.map((p) => `${p.code} ${p.key}`)).toEqual(['SEAL_MISMATCH R/global/7']);
    await expectOtherStreamsFineAndNothingWritten(async () => {
      const corrupt = { code: 'STORE_CORRUPT', details: expect.objectContaining({ stream: 'global', key: 'R/global/7' }) };
      expect(await failureOf(h.store.state('global'))).toEqual(corrupt);
      expect(await failureOf(h.store.stateAt('global', 8))).toEqual(corrupt);
      expect(await failureOf(h.store.stateAt('global', 7))).toEqual(corrupt);
      expect(await failureOf(h.store.patchAt('global', 7))).toEqual(corrupt);
      expect((await failureOf(h.store.publish({ changes: { global: { x: 1 } } }))).code).toBe('STORE_CORRUPT');
      expect(await h.store.stateAt('global', 6)).toEqual(expect.objectContaining({ n: 6 }));
    });
  });

  it('a revision-index record resealed over another patch: INDEX_MISMATCH (the audit ties it to the chain)', async () => {
    await h.raw(async (s) => {
      const r = await readSealed(s, revKey('global', 7));
      r.patch = { n: 700 };
      await putSealed(s, revKey('global', 7), r);
    });
    await h.reopen();
    const codes = (await h.store.audit()).problems.map((p) => `${p.code} ${p.key}: ${p.detail}`);
    expect(codes).toEqual(['INDEX_MISMATCH R/global/7: its patch differs from the patch of revision 7 in transition 7']);
  });

  it('a tampered transition in the middle of the chain with its own hash recomputed: CHAIN_BROKEN', async () => {
    await h.raw(async (s) => {
      const t = await readLog(s, 4);
      (t.changes[0] as { patch: JsonObject }).patch = { n: 4, lazy: { p4: 4 }, extra: true };
      t.hash = transitionHash(t.prevHash, t);
      await putLog(s, t);
    });
    await h.reopen();
    const report = await h.store.audit();
    const codes = report.problems.map((p) => `${p.code} ${p.key}`);
    expect(codes).toContain('CHAIN_BROKEN L/5');
    expect(codes).toContain('CHECKPOINT_MISMATCH C/global/6');
    expect(codes).not.toContain('HASH_MISMATCH L/4');
    // The patch is stored once, in the log: a replay reads the forged one, which the audit's chain exposes.
    await expectOtherStreamsFineAndNothingWritten(async () => {
      expect(await h.store.stateAt('global', 4)).toEqual({ n: 4, lazy: { p1: 1, p2: 2, p3: 3, p4: 4 }, extra: true });
    });
  });

  it('flipped bytes that no longer decode: RECORD_UNDECODABLE; the stream fails closed', async () => {
    await h.raw(async (s) => {
      const bytes = Buffer.from((await s.get(logKey(7))) as Uint8Array);
      bytes[bytes.indexOf('{', 65)] = 0x7e; // the JSON text (after the tag and the two hashes) no longer parses; resealed
      const body = bytes.subarray(0, bytes.byteLength - SEAL_BYTES);
      await put(s, logKey(7), Buffer.concat([body, createHash('sha256').update(logKey(7)).update(body).digest()]));
    });
    await h.reopen();
    const report = await h.store.audit();
    expect(report.problems.map((p) => `${p.code} ${p.key}`)).toContain('RECORD_UNDECODABLE L/7');
    await expectOtherStreamsFineAndNothingWritten(async () => {
      expect(await failureOf(collect(h.store.transitions()))).toEqual({ code: 'STORE_CORRUPT', details: expect.objectContaining({ key: 'L/7' }) });
    });
  });

  it('flipped bytes in a revision-index record: SEAL_MISMATCH; the stream fails closed', async () => {
    await h.raw(async (s) => {
      const bytes = Buffer.from((await s.get(revKey('global', 7))) as Uint8Array);
      bytes[0] = 0xc1;
      await put(s, revKey('global', 7), bytes);
    });
    await h.reopen();
    expect((await h.store.audit()).problems.map((p) => `${p.code} ${p.key}`)).toEqual(['SEAL_MISMATCH R/global/7']);
    await expectOtherStreamsFineAndNothingWritten(async () => {
      expect(await failureOf(h.store.state('global'))).toEqual({ code: 'STORE_CORRUPT', details: expect.objectContaining({ stream: 'global', key: 'R/global/7' }) });
    });
  });

  it('a resealed checkpoint holding another state: CHECKPOINT_MISMATCH (the audit ties checkpoints to the replay)', async () => {
    await h.raw(async (s) => {
      await editCheckpointState(s, checkpointKey('global', 6), (state) => (state.n = 66));
    });
    await h.reopen();
    expect((await h.store.audit()).problems.map((p) => `${p.code} ${p.key}`)).toEqual(['CHECKPOINT_MISMATCH C/global/6']);
  });

  it('a checkpoint whose bytes changed: SEAL_MISMATCH; a resealed invalid state: STATE_INVALID', async () => {
    await h.raw(async (s) => {
      await editCheckpointState(s, checkpointKey('global', 6), (state) => (state.n = 66), { stale: true });
      await editCheckpointState(s, checkpointKey('global', 3), (state) => (state.lazy = 5));
    });
    await h.reopen();
    const codes = (await h.store.audit()).problems.map((p) => `${p.code} ${p.key}`);
    expect(codes).toContain('SEAL_MISMATCH C/global/6');
    expect(codes).toContain('STATE_INVALID C/global/3');
    await expectOtherStreamsFineAndNothingWritten(async () => {
      expect(await failureOf(h.store.state('global'))).toEqual({ code: 'STORE_CORRUPT', details: expect.objectContaining({ stream: 'global', key: 'C/global/6' }) });
      expect(await failureOf(h.store.stateAt('global', 4))).toEqual({ code: 'STORE_CORRUPT', details: expect.objectContaining({ key: 'C/global/3' }) });
      expect(await h.store.stateAt('global', 2)).toEqual({ n: 2, lazy: { p1: 1, p2: 2 } });
    });
  });

  it('a stored patch that makes the lazy plane a non-object fails the load with STORE_CORRUPT', async () => {
    await h.raw(async (s) => {
      const t = await readLog(s, 8);
      (t.changes[0] as { patch: JsonObject }).patch = { lazy: 'oops' };
      t.hash = transitionHash(t.prevHash, t);
      await putLog(s, t);
    });
    await h.reopen();
    const codes = (await h.store.audit()).problems.map((p) => `${p.code} ${p.key}`);
    expect(codes).toContain('STATE_INVALID L/8');
    expect((await failureOf(h.store.state('global'))).code).toBe('STORE_CORRUPT');
    expect(await h.store.state('session:ok')).toEqual({ m: 8 });
  });

  it('an undecodable head fails that stream only; audit reports it', async () => {
    await h.raw(async (s) => put(s, headKey('session:ok'), Buffer.from([0xc1, 0x00])));
    await h.reopen();
    expect((await h.store.audit()).problems.map((p) => `${p.code} ${p.key}`)).toContain('RECORD_UNDECODABLE H/session:ok');
    expect(await failureOf(h.store.head('session:ok'))).toEqual({ code: 'STORE_CORRUPT', details: expect.objectContaining({ stream: 'session:ok', key: 'H/session:ok' }) });
    expect((await h.store.state('global')).n).toBe(8);
  });

  it('a head that disagrees with the log: HEAD_MISMATCH; a missing index entry: INDEX_MISMATCH; a dangling id: ID_MISMATCH', async () => {
    const { idKey } = await import('./internal/keys.js');
    await h.raw(async (s) => {
      await put(s, headKey('session:ok'), encodeValue({ rev: 2, seq: 5, origin: 0 }));
      await rawWrite(s, [{ type: 'del', key: revKey('global', 2) }]);
      await put(s, idKey('t3'), encodeValue(4));
    });
    await h.reopen();
    const codes = (await h.store.audit()).problems.map((p) => `${p.code} ${p.key}`);
    expect(codes).toEqual(expect.arrayContaining(['HEAD_MISMATCH H/session:ok', 'INDEX_MISMATCH R/global/2', 'ID_MISMATCH I/t3']));
    expect((await failureOf(h.store.stateAt('global', 2))).code).toBe('STORE_CORRUPT');
  });

  it('an id record pointing at another request\'s transition: a retry with that id fails closed (STORE_CORRUPT I/<id>), never a duplicate of the other; nothing written', async () => {
    const { idKey } = await import('./internal/keys.js');
    await h.raw((s) => put(s, idKey('t3'), encodeValue(4)));
    await expectOtherStreamsFineAndNothingWritten(async () => {
      expect(await failureOf(h.store.publish({ changes: { global: { n: 3 } }, id: 't3' }))).toEqual({
        code: 'STORE_CORRUPT',
        details: { key: 'I/t3', detail: 'points at seq 4, which does not carry this id' },
      });
      expect(await h.store.publish({ changes: { global: { n: 4 } }, id: 't4' })).toMatchObject({ status: 'duplicate', transition: { seq: 4, id: 't4' } });
    });
  });

  it('keys no family owns — before, between and after the families, and malformed keys inside one — are UNKNOWN_RECORD once each, nothing else', async () => {
    const foreign = [[0x01, 0x61], [0x44, 0x61], [0x4a], [0x4e, 0x00], [0x5a, 0x7a, 0x7a], [0xff], [0x43, 0x67]].map((bytes) => Buffer.from(bytes));
    await h.raw((s) => rawWrite(s, foreign.map((key) => ({ type: 'put' as const, key, value: encodeValue(1) }))));
    await h.reopen();
    const problems = (await h.store.audit()).problems;
    expect(problems.map((p) => p.code)).toEqual(foreign.map(() => 'UNKNOWN_RECORD'));
    expect(new Set(problems.map((p) => p.key)).size).toBe(foreign.length);
  });

  it('a missing and an extra R and S entry in the middle of a stream: INDEX_MISMATCH each, nothing else', async () => {
    const { seqKey } = await import('./internal/keys.js');
    await h.raw(async (s) => {
      await rawWrite(s, [{ type: 'del', key: revKey('global', 4) }]);
      await rawWrite(s, [{ type: 'del', key: seqKey('global', 6) }]);
      await rawWrite(s, [{ type: 'del', key: seqKey('session:ok', 5) }]);
      await putSealed(s, revKey('session:ok', 2), { seq: 4, base: 0, patch: { m: 5 } });
      await putSealed(s, revKey('global', 9), { seq: 9, base: 6, patch: { n: 9 } });
      await put(s, seqKey('session:ok', 3), encodeValue(2));
      await put(s, seqKey('global', 5), encodeValue(4));
      await putSealed(s, revKey('other', 1), { seq: 3, base: 0, patch: { o: 1 } }); // a stream the log never names, between the two
      await put(s, seqKey('other', 3), encodeValue(1));
    });
    await h.reopen();
    const problems = (await h.store.audit()).problems.map((p) => `${p.code} ${p.key} ${p.stream ?? ''}: ${p.detail}`);
    expect(problems.sort()).toEqual(
      [
        'INDEX_MISMATCH R/global/4 global: revision-index entry is missing',
        'INDEX_MISMATCH R/global/9 global: points at seq 9; the log has this revision at seq undefined',
        'INDEX_MISMATCH R/other/1 other: points at seq 3; the log has this revision at seq undefined',
        'INDEX_MISMATCH S/other/3 other: says revision 1; the log has no change of this stream at this seq',
        'INDEX_MISMATCH R/session:ok/2 session:ok: points at seq 4; the log has this revision at seq 5',
        'INDEX_MISMATCH S/global/5 global: says revision 4; the log has revision 5 at this seq',
        'INDEX_MISMATCH S/global/6 global: seq-index entry is missing',
        'INDEX_MISMATCH S/session:ok/3 session:ok: says revision 2; the log has no change of this stream at this seq',
        'INDEX_MISMATCH S/session:ok/5 session:ok: seq-index entry is missing',
      ].sort(),
    );
  });
});

describe.each(backends)('a corrupt chain tip on $name', (backend) => {
  it('keeps reads working and refuses writes with STORE_CORRUPT', async () => {
    const h = await backend.create({ checkpointInterval: 3 });
    try {
      await h.store.publish({ changes: { global: { a: 1 } } });
      await h.store.publish({ changes: { 'session:t': { b: 2 } } });
      await h.raw(async (s) => put(s, logKey(2), Buffer.from([0xc1])));
      await h.reopen();
      expect(await h.store.state('global')).toEqual({ a: 1 });
      expect(await failureOf(h.store.publish({ changes: { global: { a: 2 } } }))).toEqual({
        code: 'STORE_CORRUPT',
        details: expect.objectContaining({ key: 'L/2' }),
      });
      expect((await failureOf(h.store.state('session:t'))).code).toBe('STORE_CORRUPT');
    } finally {
      await h.destroy();
    }
  });
});
