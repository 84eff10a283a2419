/**
 * Merge properties through the store (README "Merge"), on random histories of a stream and a
 * fork of it: a merge publishes core's three-way merge of the fork point and the two heads;
 * merging again brings nothing new; merging back brings the two streams to one state; and
 * without conflicts, merging a into b or b into a gives the same state.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonEqual, threeWayMerge } from '@stateflow/core';
import type { JsonObject, JsonValue } from '@stateflow/core';
import type { Store } from './types.js';
import { memoryBackend } from './test-support/backends.js';
import { fcParams } from '@stateflow/test-kit';

// Each run opens a store and publishes a few dozen transitions.
const params = fcParams({ share: 0.3 });

const valueArb: fc.Arbitrary<JsonValue> = fc.oneof(
  fc.integer({ min: 0, max: 3 }),
  fc.array(fc.integer({ min: 0, max: 3 }), { maxLength: 2 }),
  fc.dictionary(fc.constantFrom('x', 'y'), fc.integer({ min: 0, max: 3 }), { maxKeys: 2 }),
);
const patchArb: fc.Arbitrary<JsonObject> = fc.dictionary(
  fc.constantFrom('a', 'b', 'c'),
  fc.oneof(valueArb, fc.constant(null), fc.dictionary(fc.constantFrom('x', 'y', 'z'), fc.oneof(valueArb, fc.constant(null)), { minKeys: 1, maxKeys: 2 })),
  { minKeys: 1, maxKeys: 3 },
);
const seriesArb = fc.array(patchArb, { maxLength: 4 });

const MAIN = 'doc:main';
const FORK = 'doc:fork';

/** A main stream with `before`, a fork of it, then `ours` on main and `theirs` on the fork. */
async function forked(store: Store, before: JsonObject[], ours: JsonObject[], theirs: JsonObject[]): Promise<{ forkRev: number }> {
  for (const patch of [{ seed: 1 }, ...before]) await store.publish({ changes: { [MAIN]: patch } });
  const forkRev = (await store.head(MAIN)).rev;
  await store.fork(MAIN, FORK);
  for (const patch of ours) await store.publish({ changes: { [MAIN]: patch } });
  for (const patch of theirs) await store.publish({ changes: { [FORK]: { ...patch, fork: 1 } } });
  return { forkRev };
}

describe('merge (properties, memory store)', () => {
  it('publishes the three-way merge of the fork point and both heads; merging again is a noop; merging back makes the streams equal', () =>
    fc.assert(
      fc.asyncProperty(seriesArb, seriesArb, seriesArb, fc.constantFrom('ours' as const, 'theirs' as const), async (before, ours, theirs, prefer) => {
        const h = await memoryBackend.create({ checkpointInterval: 2 });
        try {
          const { store } = h;
          const { forkRev } = await forked(store, before, ours, theirs);
          const expected = threeWayMerge(await store.stateAt(MAIN, forkRev), await store.state(MAIN), await store.state(FORK), { prefer });
          const first = await store.merge({ from: FORK, into: MAIN, prefer });
          expect(first.status === 'accepted' || first.status === 'noop').toBe(true);
          expect(jsonEqual(await store.state(MAIN), expected.merged)).toBe(true);
          if (first.status !== 'duplicate') expect(first.conflicts).toEqual(expected.conflicts);
          const again = await store.merge({ from: FORK, into: MAIN, prefer });
          expect(again.status).toBe('noop');
          if (first.status === 'accepted') {
            // Recorded: the next merge starts from the fork's merged revision, and nothing conflicts.
            expect((await store.merge({ from: FORK, into: MAIN, dryRun: true })).status === 'preview').toBe(true);
            const back = await store.merge({ from: MAIN, into: FORK });
            expect(back.status === 'duplicate' ? null : back.conflicts).toEqual([]);
            expect(jsonEqual(await store.state(FORK), await store.state(MAIN))).toBe(true);
            expect((await store.merge({ from: FORK, into: MAIN })).status).toBe('noop');
          }
          expect((await store.audit()).problems).toEqual([]);
        } finally {
          await h.destroy();
        }
      }),
      params,
    ));

  it('without conflicts, merging a into b and b into a give the same state', () =>
    fc.assert(
      fc.asyncProperty(seriesArb, seriesArb, seriesArb, async (before, ours, theirs) => {
        const h = await memoryBackend.create();
        try {
          const { store } = h;
          await forked(store, before, ours, theirs);
          const intoMain = await store.merge({ from: FORK, into: MAIN, dryRun: true });
          const intoFork = await store.merge({ from: MAIN, into: FORK, dryRun: true });
          if (intoMain.status !== 'preview' || intoFork.status !== 'preview') throw new Error('a dry run answers a preview');
          expect(intoFork.conflicts.length).toBe(intoMain.conflicts.length);
          fc.pre(intoMain.conflicts.length === 0);
          await store.merge({ from: FORK, into: MAIN });
          await store.merge({ from: MAIN, into: FORK, fromRev: intoFork.fromRev, expected: intoFork.intoRev });
          expect(jsonEqual(await store.state(MAIN), await store.state(FORK))).toBe(true);
        } finally {
          await h.destroy();
        }
      }),
      params,
    ));
});
