/**
 * Heads are cross-checked against the log when a stream is first loaded: a tampered head
 * record fails closed with STORE_CORRUPT instead of serving a wrong current state.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Harness } from './test-support/backends.js';
import { backends } from './test-support/backends.js';
import { encodeValue } from './internal/codec.js';
import { headKey, seqKey } from './internal/keys.js';
import type { Storage } from './storage.js';
import { dump, failureOf, rawWrite } from '@stateflow/test-kit';

const putHead = (s: Storage, stream: string, head: object): Promise<void> =>
  rawWrite(s, [{ type: 'put', key: headKey(stream), value: encodeValue(head) }]);

describe.each(backends)('head cross-check on $name', (backend) => {
  let h: Harness;
  beforeEach(async () => {
    h = await backend.create({ checkpointInterval: 3 });
    // global: revs 1..8 at seqs 1..8; session:ok: rev 1 at seq 9.
    for (let i = 1; i <= 8; i++) await h.store.publish({ changes: { global: { n: i } } });
    await h.store.publish({ changes: { 'session:ok': { m: 1 } } });
    expect(h.store.lastSeq()).toBe(9);
  });
  afterEach(async () => {
    await h.destroy();
  });

  /** Tamper, reopen, and expect global to fail closed while session:ok reads and nothing is written. */
  async function expectFailsClosed(tamper: (s: Storage) => Promise<void>, detail: RegExp): Promise<void> {
    await h.raw(tamper);
    const before = await h.raw(dump);
    await h.reopen();
    expect(await failureOf(h.store.state('global'))).toEqual({
      code: 'STORE_CORRUPT',
      details: { stream: 'global', key: 'H/global', detail: expect.stringMatching(detail) },
    });
    // Once found, every use of the stream fails closed, writes included.
    expect((await failureOf(h.store.head('global'))).code).toBe('STORE_CORRUPT');
    expect((await failureOf(h.store.publish({ changes: { global: { n: 100 } } }))).code).toBe('STORE_CORRUPT');
    expect(await h.store.state('session:ok')).toEqual({ m: 1 });
    expect(await h.raw(dump)).toEqual(before);
  }

  it('a head behind the log (rev 5 of 8) fails closed instead of serving revision 5 as current', async () => {
    await expectFailsClosed((s) => putHead(s, 'global', { rev: 5, seq: 5, origin: 0 }), /seq index ends at revision 8 at seq 8/);
  });

  it('a head ahead of the log fails closed', async () => {
    await expectFailsClosed((s) => putHead(s, 'global', { rev: 9, seq: 9, origin: 0 }), /seq index ends at revision 8 at seq 8/);
  });

  it('a head with the right revision but the wrong seq fails closed', async () => {
    await expectFailsClosed((s) => putHead(s, 'global', { rev: 8, seq: 7, origin: 0 }), /head says revision 8 at seq 7/);
  });

  it('a deleted head while the log holds the stream fails closed instead of serving {}', async () => {
    await expectFailsClosed((s) => rawWrite(s, [{ type: 'del', key: headKey('global') }]), /revision 0 at seq 0/);
  });

  it('a head and seq index tampered together are caught by the transition at that seq', async () => {
    await expectFailsClosed(async (s) => {
      await putHead(s, 'global', { rev: 8, seq: 9, origin: 0 });
      await rawWrite(s, [{ type: 'put', key: seqKey('global', 9), value: encodeValue(8) }]);
    }, /transition 9 does not hold that revision/);
  });

  it('an intact store loads every stream (including after compaction)', async () => {
    await h.store.compact('global', { keepRevisions: 1 });
    await h.reopen();
    expect(await h.store.state('global')).toEqual({ n: 8 });
    expect(await h.store.state('session:ok')).toEqual({ m: 1 });
    expect(await h.store.state('never-written')).toEqual({});
    expect((await h.store.audit()).problems).toEqual([]);
  });
});
