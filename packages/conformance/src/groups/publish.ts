/**
 * Conformance: `publish` (DESIGN.md "Store model": transitions, net patches, CAS, atomicity,
 * idempotency, hash chain; "Patches").
 */
import type { JsonObject } from '@stateflow/core';
import type { ConformanceOptions, StoreInitializer, TestApi } from '../initializer.js';
import { assert, assertJsonEqual, rejectsWithCode } from '../internal/assert.js';
import { defineGroup, type GroupBuilder } from '../internal/group.js';
import { accept } from '../internal/publish.js';
import { assertLockExcludes } from '../internal/locks.js';

const GENESIS = '0'.repeat(64);
const HEX64 = /^[0-9a-f]{64}$/;

/**
 * Register the `publish` group: seq numbering, the hash chain, multi-stream atomicity, net
 * patches, no-ops, invalid patches (`PATCH_INVALID`), expected revisions (`CONFLICT` with
 * `expected`/`actual`), idempotency ids, metadata, the injected clock, `__proto__` as data,
 * stream id validation (`STREAM_INVALID`), concurrency and `STORE_CLOSED`.
 */
export function publishGroup(init: StoreInitializer, api: TestApi, options: ConformanceOptions = {}): void {
  defineGroup('publish', 'publish', init, api, options, ({ test }) => {
    sequenceAndChain(test);
    netPatches(test);
    expectedRevisions(test);
    storedData(test);
    concurrentPublishes(test);
    batches(test);
    locksAndClose(test);
  });
}

/** Seqs, revisions and the hash chain; several streams in one transition. */
function sequenceAndChain(test: GroupBuilder['test']): void {
  test('the first publication is seq 1, rev 1, chained to the genesis hash', async ({ store }) => {
    assert.equal(store.lastSeq(), 0);
    const t = await accept(store, { global: { a: 1 } });
    assert.equal(t.seq, 1);
    assert.equal(t.prevHash, GENESIS);
    assert.match(t.hash, HEX64);
    assert.ok(!Number.isNaN(Date.parse(t.time)), `time ${t.time} is ISO 8601`);
    assertJsonEqual(t.changes, [{ stream: 'global', rev: 1, patch: { a: 1 } }], 'changes');
    assert.equal(store.lastSeq(), 1);
    assertJsonEqual(await store.head('global'), { stream: 'global', rev: 1, seq: 1, origin: 0 }, 'head');
  });

  test('seqs count 1, 2, 3 across streams and each prevHash is the previous hash', async ({ store }) => {
    const t1 = await accept(store, { global: { a: 1 } });
    const t2 = await accept(store, { 'session:s': { b: 1 } });
    const t3 = await accept(store, { global: { a: 2 } });
    assert.deepEqual([t1.seq, t2.seq, t3.seq], [1, 2, 3]);
    assert.equal(t2.prevHash, t1.hash);
    assert.equal(t3.prevHash, t2.hash);
    assert.equal(new Set([t1.hash, t2.hash, t3.hash]).size, 3);
    assert.equal(t3.changes[0]?.rev, 2);
    assert.equal((await store.head('session:s')).rev, 1);
  });

  test('one publication that changes two streams is one transition, changes in caller order', async ({ store }) => {
    await accept(store, { 'cwd:/w': { x: 1 } });
    const t = await accept(store, { 'session:s': { y: 1 }, 'cwd:/w': { x: 2 } });
    assert.equal(t.seq, 2);
    assertJsonEqual(
      t.changes,
      [
        { stream: 'session:s', rev: 1, patch: { y: 1 } },
        { stream: 'cwd:/w', rev: 2, patch: { x: 2 } },
      ],
      'changes',
    );
    assert.equal((await store.head('cwd:/w')).seq, 2);
    assert.equal((await store.head('session:s')).seq, 2);
  });
}

/** What a patch publishes: the net patch, no-ops, invalid patches, array elements. */
function netPatches(test: GroupBuilder['test']): void {
  test('the stored patch is the net patch: parts without effect are left out', async ({ store }) => {
    await accept(store, { global: { a: 1, b: { c: 2, d: [1, 2] } } });
    const t = await accept(store, { global: { a: 1, b: { c: 3, d: [1, 2] }, gone: null } });
    assertJsonEqual(t.changes, [{ stream: 'global', rev: 2, patch: { b: { c: 3 } } }], 'net patch');
    assertJsonEqual(await store.state('global'), { a: 1, b: { c: 3, d: [1, 2] } }, 'state');
  });

  test('a publication without net effect is a noop and publishes nothing', async ({ store }) => {
    const t = await accept(store, { global: { a: 1, list: [1, 2] } });
    const result = await store.publish({ changes: { global: { a: 1, list: [1, 2], missing: null } } });
    assert.equal(result.status, 'noop');
    assert.equal(result.transition, null);
    assert.equal(store.lastSeq(), t.seq);
    assert.equal((await store.head('global')).rev, 1);
  });

  test('a stream whose patch has no net effect is left out of a multi-stream transition', async ({ store }) => {
    await accept(store, { global: { a: 1 } });
    const t = await accept(store, { global: { a: 1 }, 'session:s': { b: 2 } });
    assertJsonEqual(t.changes, [{ stream: 'session:s', rev: 1, patch: { b: 2 } }], 'changes');
    assert.equal((await store.head('global')).rev, 1);
  });

  test('an empty patch is PATCH_INVALID and publishes nothing', async ({ store }) => {
    await accept(store, { global: { a: 1 } });
    await rejectsWithCode(store.publish({ changes: { global: {} } }), 'PATCH_INVALID', 'empty patch');
    assert.equal(store.lastSeq(), 1);
  });

  test('null inside a written value is PATCH_INVALID and publishes nothing', async ({ store }) => {
    await rejectsWithCode(store.publish({ changes: { global: { a: [1, null] } } }), 'PATCH_INVALID', 'null in array');
    assert.equal(store.lastSeq(), 0);
    assertJsonEqual(await store.state('global'), {}, 'state');
  });

  test('"[N]" keys replace or patch existing array elements', async ({ store }) => {
    await accept(store, { global: { list: [1, { n: 1, m: 0 }, 3] } });
    const t = await accept(store, { global: { list: { '[0]': 10, '[1]': { n: 2 } } } });
    assertJsonEqual(await store.state('global'), { list: [10, { n: 2, m: 0 }, 3] }, 'state');
    assert.equal(t.changes[0]?.rev, 2);
  });

  test('an out-of-range index fails the whole multi-stream publication', async ({ store }) => {
    await accept(store, { global: { list: [1, 2] }, 'session:s': { a: 1 } });
    const err = await rejectsWithCode(
      store.publish({ changes: { 'session:s': { a: 2 }, global: { list: { '[2]': 9 } } } }),
      'PATCH_INVALID',
      'index out of range',
    );
    assert.ok(err.message.length > 0);
    assert.equal(store.lastSeq(), 1);
    assertJsonEqual(await store.state('session:s'), { a: 1 }, 'other stream untouched');
    assertJsonEqual(await store.state('global'), { list: [1, 2] }, 'stream untouched');
  });

  test('an index key on a non-array is PATCH_INVALID', async ({ store }) => {
    await accept(store, { global: { obj: { a: 1 } } });
    await rejectsWithCode(store.publish({ changes: { global: { obj: { '[0]': 1 } } } }), 'PATCH_INVALID');
    assert.equal(store.lastSeq(), 1);
  });
}

/** Expected revisions (CAS) and idempotency ids. */
function expectedRevisions(test: GroupBuilder['test']): void {
  test('a matching expected revision publishes; a stale one is CONFLICT with expected and actual', async ({ store }) => {
    await accept(store, { global: { a: 1 } });
    await accept(store, { global: { a: 2 } }, { expected: { global: 1 } });
    const err = await rejectsWithCode(
      store.publish({ changes: { global: { a: 3 } }, expected: { global: 1 } }),
      'CONFLICT',
      'stale expected',
    );
    assert.equal(err.details.stream, 'global');
    assert.equal(err.details.expected, 1);
    assert.equal(err.details.actual, 2);
    assert.equal(store.lastSeq(), 2);
    assertJsonEqual(await store.state('global'), { a: 2 }, 'state');
  });

  test("expected 'none' accepts an empty stream and is CONFLICT on one with revisions", async ({ store }) => {
    await accept(store, { global: { a: 1 } }, { expected: { global: 'none' } });
    const err = await rejectsWithCode(
      store.publish({ changes: { global: { a: 2 } }, expected: { global: 'none' } }),
      'CONFLICT',
    );
    assert.equal(err.details.actual, 1);
    assert.equal(store.lastSeq(), 1);
  });

  test('a conflict on one stream publishes nothing on any stream', async ({ store }) => {
    await accept(store, { global: { a: 1 }, 'session:s': { b: 1 } });
    await rejectsWithCode(
      store.publish({ changes: { global: { a: 2 }, 'session:s': { b: 2 } }, expected: { global: 1, 'session:s': 0 } }),
      'CONFLICT',
    );
    assertJsonEqual(await store.state('global'), { a: 1 }, 'global');
    assertJsonEqual(await store.state('session:s'), { b: 1 }, 'session');
    assert.equal(store.lastSeq(), 1);
  });

  test('a retry with an accepted idempotency id returns the original transition as duplicate', async ({ store }) => {
    const first = await accept(store, { global: { a: 1 } }, { id: 'req-1' });
    await accept(store, { global: { a: 2 } });
    const retry = await store.publish({ changes: { global: { a: 1 } }, id: 'req-1' });
    assert.equal(retry.status, 'duplicate');
    assertJsonEqual(retry.transition as never, first as never, 'original transition');
    assert.equal(first.id, 'req-1');
    assert.equal(store.lastSeq(), 2);
    assertJsonEqual(await store.state('global'), { a: 2 }, 'state');
  });
}

/** What is stored as given: meta, the injected clock, `__proto__` as data, bad ids, later mutation, durability. */
function storedData(test: GroupBuilder['test']): void {
  test('meta is stored verbatim and read back with the transition', async ({ store, callerMeta }) => {
    const meta = { tool: 'patch_state', nested: { n: 1, list: ['x'] } };
    const t = await accept(store, { global: { a: 1 } }, { meta });
    assertJsonEqual(callerMeta(t.meta), meta, 'meta');
    assertJsonEqual(callerMeta((await store.transition(1)).meta), meta, 'stored meta');
  });

  test('transition time comes from the injected clock', async ({ store }) => {
    const t = await accept(store, { global: { a: 1 } });
    assert.equal(t.time, '2024-01-02T03:04:05.000Z');
  }, { options: { clock: () => new Date('2024-01-02T03:04:05.000Z') } });

  test('__proto__, constructor and prototype are ordinary data keys', async ({ store }) => {
    const patch = JSON.parse('{"__proto__": {"polluted": true}, "constructor": {"x": 1}, "prototype": 2}') as JsonObject;
    await accept(store, { global: patch });
    const state = await store.state('global');
    assert.deepEqual(Object.keys(state).sort(), ['__proto__', 'constructor', 'prototype']);
    assert.equal(({} as Record<string, unknown>).polluted, undefined, 'Object.prototype untouched');
    assertJsonEqual(Object.getOwnPropertyDescriptor(state, '__proto__')?.value, { polluted: true }, '__proto__ value');
    const again = await accept(store, { global: JSON.parse('{"__proto__": {"more": 1}}') as JsonObject });
    assert.equal(again.changes[0]?.rev, 2);
  });

  test('an invalid stream id is STREAM_INVALID and publishes nothing', async ({ store }) => {
    await rejectsWithCode(store.publish({ changes: { '': { a: 1 } } }), 'STREAM_INVALID', 'empty id');
    await rejectsWithCode(store.publish({ changes: { ['x'.repeat(1025)]: { a: 1 } } }), 'STREAM_INVALID', 'long id');
    assert.equal(store.lastSeq(), 0);
  });

  test('publishing no stream at all is rejected and publishes nothing', async ({ store }) => {
    await rejectsWithCode(store.publish({ changes: {} }), ['PATCH_INVALID', 'INPUT_INVALID'], 'no changes');
    assert.equal(store.lastSeq(), 0);
  });

  test('mutating a patch after publishing never changes history', async ({ store }) => {
    const patch = { a: { list: [1, 2] } } as { a: { list: number[] } };
    await accept(store, { global: patch });
    patch.a.list.push(3);
    assertJsonEqual(await store.state('global'), { a: { list: [1, 2] } }, 'state');
    assertJsonEqual(await store.patchAt('global', 1), { a: { list: [1, 2] } }, 'patch');
  });

  test("durability 'fsync' publishes like 'buffered'", async ({ store }) => {
    await accept(store, { global: { a: 1 } }, { durability: 'fsync' });
    await accept(store, { global: { a: 2 } }, { durability: 'buffered' });
    assertJsonEqual(await store.state('global'), { a: 2 }, 'state');
  });
}

/** Concurrent publications: CAS decides, seqs stay consecutive. */
function concurrentPublishes(test: GroupBuilder['test']): void {
  test('of concurrent publications expecting the same revision exactly one is accepted', async ({ store }) => {
    await accept(store, { global: { n: 0 } });
    const results = await Promise.allSettled(
      [1, 2, 3, 4, 5].map((n) => store.publish({ changes: { global: { n } }, expected: { global: 1 } })),
    );
    const accepted = results.filter((r) => r.status === 'fulfilled' && r.value.status === 'accepted');
    assert.equal(accepted.length, 1);
    for (const r of results) {
      if (r.status === 'rejected') await rejectsWithCode(Promise.reject(r.reason), 'CONFLICT');
    }
    assert.equal(store.lastSeq(), 2);
  });

  test('concurrent publications without expectations all land with consecutive seqs', async ({ store }) => {
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => store.publish({ changes: { [`session:${i % 3}`]: { [`k${i}`]: i } } })),
    );
    const seqs = results.map((r) => r.transition?.seq ?? 0).sort((a, b) => a - b);
    assert.deepEqual(seqs, Array.from({ length: 20 }, (_, i) => i + 1));
    assert.equal(store.lastSeq(), 20);
    const s0 = await store.state('session:0');
    assert.equal(Object.keys(s0).length, 7);
  });
}

/** publishMany: one batch of transitions, all or nothing. */
function batches(test: GroupBuilder['test']): void {
  test('publishMany: each input is its own transition, checked against the ones before it, results in order', async ({ store, callerMeta }) => {
    await accept(store, { global: { n: 0 } }, { id: 'before' });
    const results = await store.publishMany([
      { changes: { global: { n: 1 } }, expected: { global: 1 } },
      { changes: { global: { n: 2 } }, expected: { global: 2 }, id: 'batch-1' },
      { changes: { global: { n: 2 } } },
      { changes: { global: { n: 9 } }, id: 'before' },
      { changes: { global: { n: 9 } }, id: 'batch-1' },
      { changes: { 'session:s': { m: 1 } }, meta: { i: 6 } },
    ]);
    assert.deepEqual(
      results.map((r) => r.status),
      ['accepted', 'accepted', 'noop', 'duplicate', 'duplicate', 'accepted'],
    );
    assert.deepEqual(
      results.map((r) => r.transition?.seq ?? null),
      [2, 3, null, 1, 3, 4],
    );
    const [first, second] = results.map((r) => (r.status === 'accepted' ? r.transition : null));
    assert.equal(second?.prevHash, first?.hash);
    assert.equal(store.lastSeq(), 4);
    assertJsonEqual(await store.state('global'), { n: 2 }, 'global');
    assertJsonEqual(callerMeta((await store.transition(4)).meta), { i: 6 }, 'meta');
    assertJsonEqual(await store.stateAt('global', 2), { n: 1 }, 'global@2');
  });

  test('publishMany is all or nothing: a failing input publishes none, and says which input failed', async ({ store }) => {
    await accept(store, { global: { n: 0 } });
    const err = await rejectsWithCode(
      store.publishMany([{ changes: { global: { n: 1 } } }, { changes: { 'session:s': { m: 1 } }, id: 'x' }, { changes: { global: { n: 2 } }, expected: { global: 1 } }]),
      'CONFLICT',
    );
    assertJsonEqual(err.details, { stream: 'global', expected: 1, actual: 2 }, 'details');
    assert.match(err.message, /^Input 3 of 3: /);
    assert.equal(store.lastSeq(), 1);
    assertJsonEqual(await store.state('global'), { n: 0 }, 'global');
    assert.equal((await store.head('session:s')).rev, 0);
    // The id of the refused batch was not recorded.
    assert.equal((await store.publish({ changes: { 'session:s': { m: 2 } }, id: 'x' })).status, 'accepted');
    await rejectsWithCode(store.publishMany([]), 'INPUT_INVALID', 'empty batch');
    await rejectsWithCode(store.publishMany([{ changes: {} }]), ['INPUT_INVALID', 'PATCH_INVALID'], 'bad input');
    assert.equal(store.lastSeq(), 2);
  });

  test('a refused publishMany does not disturb publishes committed beside it', async ({ store }) => {
    const [single, batch, other] = await Promise.allSettled([
      store.publish({ changes: { global: { a: 1 } } }),
      store.publishMany([{ changes: { 'session:s': { b: 1 } } }, { changes: { global: { a: 2 } }, expected: { 'session:s': 7 } }]),
      store.publish({ changes: { 'session:t': { c: 1 } } }),
    ]);
    assert.equal(single.status === 'fulfilled' && single.value.status, 'accepted');
    assert.equal(other.status === 'fulfilled' && other.value.status, 'accepted');
    assert.equal(batch.status, 'rejected');
    await rejectsWithCode(Promise.reject(batch.status === 'rejected' ? batch.reason : null), 'CONFLICT');
    assert.equal(store.lastSeq(), 2);
    assert.equal((await store.head('session:s')).rev, 0);
    assertJsonEqual(await store.state('session:t'), { c: 1 }, 'session:t');
  });
}

/** Named locks and a closed store. */
function locksAndClose(test: GroupBuilder['test']): void {
  test('a named lock serialises its holders in arrival order; withLockIfFree declines while it is held', async ({ store }) => {
    await assertLockExcludes(store, store);
  });

  test('every method of a closed store rejects with STORE_CLOSED', async ({ store }) => {
    await accept(store, { global: { a: 1 } });
    await store.close();
    await rejectsWithCode(store.publish({ changes: { global: { a: 2 } } }), 'STORE_CLOSED', 'publish');
    await rejectsWithCode(store.state('global'), 'STORE_CLOSED', 'state');
    await rejectsWithCode(store.stateAt('global', 1), 'STORE_CLOSED', 'stateAt');
    await rejectsWithCode(store.audit(), 'STORE_CLOSED', 'audit');
  });
}
