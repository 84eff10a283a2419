/**
 * Conformance: idempotency ids belong to their principal (store README "Idempotency ids"). Two
 * writers — two principals, e.g. two users of one server — that reuse one id never meet: each is
 * accepted, and a retry answers `duplicate` with its own principal's transition only. The
 * store's owner (no principal) keeps the unscoped ids of stores before principals. The ids stay
 * scoped through publishMany, fork, merge, a compaction and a reopen, and the audit holds.
 */
import type { PublishResult, Store } from '@stateflow/store';
import type { ConformanceOptions, StoreInitializer, TestApi } from '../initializer.js';
import { assert, assertJsonEqual, rejectsWithCode } from '../internal/assert.js';
import { defineGroup, type GroupBuilder } from '../internal/group.js';
import { accept } from '../internal/publish.js';

const ALICE = 'user:alice';
const BOB = 'user:bob';

/** Register the `principalIds` group. */
export function principalIdsGroup(init: StoreInitializer, api: TestApi, options: ConformanceOptions = {}): void {
  defineGroup('principalIds', 'idempotency ids per principal', init, api, options, ({ test }) => {
    twoWritersOneId(test);
    everyWriteScoped(test);
    durableScope(test);
    badPrincipals(test);
  });
}

/** `result` is a duplicate of `original` (its seq, id and hash). */
function assertDuplicateOf(result: PublishResult | { status: string; transition: unknown }, original: { seq: number; id?: string; hash: string }, label: string): void {
  assert.equal(result.status, 'duplicate', `${label}: status`);
  const t = result.transition as { seq: number; id?: string; hash: string };
  assertJsonEqual({ seq: t.seq, id: t.id ?? null, hash: t.hash }, { seq: original.seq, id: original.id ?? null, hash: original.hash }, `${label}: the original transition`);
}

function twoWritersOneId(test: GroupBuilder['test']): void {
  test("two principals reuse one id: each is accepted, each retry answers its own transition, the owner's ids apart", async ({ store }) => {
    const bob = await accept(store, { 'session:b': { who: 'bob' } }, { id: 'shared-1', principal: BOB });
    const alice = await accept(store, { 'session:a': { who: 'alice' } }, { id: 'shared-1', principal: ALICE });
    assert.equal(alice.id, 'shared-1');
    assertJsonEqual(await store.state('session:a'), { who: 'alice' }, "alice's write applied");
    assertDuplicateOf(await store.publish({ changes: { 'session:a': { who: 'again' } }, id: 'shared-1', principal: ALICE }), alice, 'alice retries');
    assertDuplicateOf(await store.publish({ changes: { 'session:b': { who: 'again' } }, id: 'shared-1', principal: BOB }), bob, 'bob retries');
    // The owner (no principal) has ids of its own: the same id is a third transition.
    const owner = await accept(store, { global: { who: 'owner' } }, { id: 'shared-1' });
    assertDuplicateOf(await store.publish({ changes: { global: { who: 'again' } }, id: 'shared-1' }), owner, 'the owner retries');
    assert.equal(store.lastSeq(), 3);
    assertJsonEqual(await store.state('session:b'), { who: 'bob' }, "bob's state");
    assert.equal((await store.audit()).problems.length, 0);
  });
}

function everyWriteScoped(test: GroupBuilder['test']): void {
  test('publishMany, fork and merge scope their ids the same way; in one batch too', async ({ store }) => {
    const [b1] = await store.publishMany([{ changes: { 'session:b': { n: 1 } }, id: 'm', principal: BOB }]);
    const [a1, a2, b2] = await store.publishMany([
      { changes: { 'session:a': { n: 1 } }, id: 'm', principal: ALICE },
      { changes: { 'session:a': { n: 2 } }, id: 'm', principal: ALICE },
      { changes: { 'session:b': { n: 2 } }, id: 'm', principal: BOB },
    ]);
    assert.equal(a1?.status, 'accepted');
    const first = a1?.transition as { seq: number; hash: string; id?: string };
    assertDuplicateOf(a2 as PublishResult, first, 'the same principal later in the batch');
    assertDuplicateOf(b2 as PublishResult, b1?.transition as { seq: number; hash: string }, "bob's id in alice's batch");
    assertJsonEqual(await store.state('session:a'), { n: 1 }, 'session:a');
    const forkB = await store.fork('session:b', 'session:b2', { id: 'f', principal: BOB });
    assert.equal(forkB.status, 'accepted');
    const forkA = await store.fork('session:a', 'session:a2', { id: 'f', principal: ALICE });
    assert.equal(forkA.status, 'accepted');
    assertDuplicateOf(await store.fork('session:a', 'session:a2', { id: 'f', principal: ALICE }), forkA.transition as { seq: number; hash: string }, 'a fork retried');
    await accept(store, { 'session:a2': { extra: true } });
    await accept(store, { 'session:b2': { extra: true } });
    const mergeB = await store.merge({ from: 'session:b2', into: 'session:b', id: 'g', principal: BOB });
    assert.equal(mergeB.status, 'accepted');
    const mergeA = await store.merge({ from: 'session:a2', into: 'session:a', id: 'g', principal: ALICE });
    assert.equal(mergeA.status, 'accepted');
    assertJsonEqual(await store.state('session:a'), { n: 1, extra: true }, 'alice merged her own');
    assertDuplicateOf(await store.merge({ from: 'session:b2', into: 'session:b', id: 'g', principal: BOB }), mergeB.transition as { seq: number; hash: string }, 'a merge retried');
    assert.equal((await store.audit()).problems.length, 0);
  });
}

function durableScope(test: GroupBuilder['test']): void {
  test("the ids stay their principal's after a compaction pruned them and a reopen", async ({ store, reopen }) => {
    const bob = await accept(store, { 'session:b': { n: 1 } }, { id: 'old', principal: BOB });
    const owner = await accept(store, { 'session:b': { n: 2 } }, { id: 'old' });
    await accept(store, { 'session:b': { n: 3 } });
    await store.compact('session:b', { keepRevisions: 1 });
    const reopened: Store = await reopen();
    assertDuplicateOf(await reopened.publish({ changes: { 'session:b': { n: 9 } }, id: 'old', principal: BOB }), bob, 'bob after compaction and reopen');
    assertDuplicateOf(await reopened.publish({ changes: { 'session:b': { n: 9 } }, id: 'old' }), owner, 'the owner after compaction and reopen');
    assert.equal((await reopened.publish({ changes: { 'session:a': { n: 1 } }, id: 'old', principal: ALICE })).status, 'accepted');
    assert.equal((await reopened.audit()).problems.length, 0);
  }, { needsReopen: true });
}

function badPrincipals(test: GroupBuilder['test']): void {
  test('a principal that is empty, not a string or holds a control character is refused; nothing is written', async ({ store }) => {
    for (const principal of ['', 'a\u0000b', 'tab\there', 7]) {
      await rejectsWithCode(store.publish({ changes: { global: { a: 1 } }, id: 'x', principal } as never), 'INPUT_INVALID', `principal ${JSON.stringify(principal)}`);
      await rejectsWithCode(store.fork('global', 'session:f', { id: 'x', principal } as never), 'INPUT_INVALID', `fork principal ${JSON.stringify(principal)}`);
    }
    assert.equal(store.lastSeq(), 0);
  });
}
