/**
 * Conformance: current reads — `state`, `head`, `streams`, `view` (DESIGN.md "Store model":
 * revisions start at 0, states are frozen and never mutated by a read).
 */
import type { ConformanceOptions, StoreInitializer, TestApi } from '../initializer.js';
import { assert, assertJsonEqual, rejectsWithCode } from '../internal/assert.js';
import { defineGroup, type GroupBuilder } from '../internal/group.js';
import { KEY_ORDERS, KEY_ORDER_WRITES } from '../internal/key-order.js';
import { accept } from '../internal/publish.js';

function isDeepFrozen(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return true;
  if (!Object.isFrozen(value)) return false;
  return Object.values(value).every(isDeepFrozen);
}

/**
 * Register the `read` group: empty streams read as `{}` at rev 0, heads, the stream list,
 * consistent multi-stream views, deep-frozen states, reads that publish nothing, and
 * `STREAM_INVALID` for bad ids.
 */
export function readGroup(init: StoreInitializer, api: TestApi, options: ConformanceOptions = {}): void {
  defineGroup('read', 'read', init, api, options, ({ test }) => {
    currentReads(test);
    keyOrder(test);
    viewsAndImmutability(test);
  });
}

/** Current state, heads and the stream list. */
function currentReads(test: GroupBuilder['test']): void {
  test('a stream without revisions reads as {} at rev 0, seq 0, origin 0', async ({ store }) => {
    assertJsonEqual(await store.state('session:none'), {}, 'state');
    assertJsonEqual(await store.head('session:none'), { stream: 'session:none', rev: 0, seq: 0, origin: 0 }, 'head');
    assertJsonEqual(await store.stateAt('session:none', 0), {}, 'stateAt 0');
  });

  test('state and head follow each accepted transition', async ({ store }) => {
    await accept(store, { global: { a: 1, b: { c: [1, 2] } } });
    await accept(store, { 'session:s': { z: true } });
    await accept(store, { global: { b: { d: 'x' }, a: null } });
    assertJsonEqual(await store.state('global'), { b: { c: [1, 2], d: 'x' } }, 'state');
    assertJsonEqual(await store.head('global'), { stream: 'global', rev: 2, seq: 3, origin: 0 }, 'head');
  });

  test('a key deleted down to an empty state leaves {} at a new revision', async ({ store }) => {
    await accept(store, { global: { a: 1 } });
    const t = await accept(store, { global: { a: null } });
    assert.equal(t.changes[0]?.rev, 2);
    assertJsonEqual(await store.state('global'), {}, 'state');
  });

  test('streams() lists every stream with at least one revision', async ({ store }) => {
    assertJsonEqual(await store.streams(), [], 'empty store');
    await accept(store, { global: { a: 1 }, 'cwd:/w': { b: 1 } });
    await accept(store, { 'session:s': { c: 1 } });
    const heads = (await store.streams()).sort((x, y) => x.stream.localeCompare(y.stream));
    assertJsonEqual(
      heads,
      [
        { stream: 'cwd:/w', rev: 1, seq: 1, origin: 0 },
        { stream: 'global', rev: 1, seq: 1, origin: 0 },
        { stream: 'session:s', rev: 1, seq: 2, origin: 0 },
      ],
      'heads',
    );
  });
}

function keyOrder(test: GroupBuilder['test']): void {
  test('U2 key order: integer-like keys come back first (2, 10, b, a, z), then write order; the same in state, stateAt across checkpoints and views', async ({ store }) => {
    for (const write of KEY_ORDER_WRITES) await accept(store, { global: write });
    for (let rev = 1; rev <= KEY_ORDERS.length; rev++) {
      assert.deepEqual(Object.keys(await store.stateAt('global', rev)), KEY_ORDERS[rev - 1], `stateAt ${rev}`);
    }
    assert.deepEqual(Object.keys(await store.state('global')), KEY_ORDERS[KEY_ORDERS.length - 1], 'state');
    const view = await store.view(['global']);
    assert.deepEqual(Object.keys(view.streams.global?.state ?? {}), KEY_ORDERS[KEY_ORDERS.length - 1], 'view');
    const t = await store.transition(1);
    assert.deepEqual(Object.keys(t.changes[0]?.patch ?? {}), ['2', '10', 'b', '4294967295', 'a', 'z'], 'stored patch');
  }, { options: { checkpointInterval: 2 } });
}

/** Views at one seq, frozen states, bad ids. */
function viewsAndImmutability(test: GroupBuilder['test']): void {
  test('view captures several streams at one seq', async ({ store }) => {
    await accept(store, { global: { a: 1 } });
    await accept(store, { 'session:s': { b: 2 } });
    const view = await store.view(['global', 'session:s', 'session:none']);
    assert.equal(view.seq, 2);
    assertJsonEqual(
      view.streams,
      { global: { rev: 1, state: { a: 1 } }, 'session:s': { rev: 1, state: { b: 2 } }, 'session:none': { rev: 0, state: {} } },
      'view',
    );
  });

  test('a view taken while publications run matches one seq exactly', async ({ store }) => {
    await accept(store, { global: { n: 0 }, 'session:s': { n: 0 } });
    const writes = Array.from({ length: 10 }, (_, i) =>
      store.publish({ changes: { global: { n: i + 1 }, 'session:s': { n: i + 1 } } }),
    );
    const views = await Promise.all([store.view(['global', 'session:s']), store.view(['global', 'session:s'])]);
    await Promise.all(writes);
    for (const view of views) {
      assert.equal(view.streams.global?.state.n, view.streams['session:s']?.state.n, 'both streams at one seq');
    }
  });

  test('returned states are deeply frozen and reads publish nothing', async ({ store }) => {
    await accept(store, { global: { a: { list: [1, { b: 2 }] } } });
    const state = await store.state('global');
    assert.ok(isDeepFrozen(state), 'state is deeply frozen');
    assert.ok(isDeepFrozen(await store.stateAt('global', 1)), 'stateAt is deeply frozen');
    assert.throws(() => {
      (state as Record<string, unknown>).x = 1;
    }, TypeError);
    await store.view(['global']);
    await store.head('global');
    await store.streams();
    assert.equal(store.lastSeq(), 1);
    assertJsonEqual(await store.state('global'), { a: { list: [1, { b: 2 }] } }, 'state unchanged');
  });

  test('an invalid stream id is STREAM_INVALID on reads', async ({ store }) => {
    await rejectsWithCode(store.state(''), 'STREAM_INVALID', 'state');
    await rejectsWithCode(store.head(''), 'STREAM_INVALID', 'head');
    await rejectsWithCode(store.stateAt('', 0), 'STREAM_INVALID', 'stateAt');
  });
}
