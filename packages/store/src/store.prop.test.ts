/**
 * Store properties (CONVENTIONS.md "Tests": the invariants): replay of the whole log equals the current state;
 * checkpoint + replay equals full replay for every revision (small K); a historical read is the
 * same before and after later writes; a failed publish leaves every stored byte unchanged.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyPatch, isStateflowError } from '@stateflow/core';
import type { JsonObject, JsonValue } from '@stateflow/core';
import { backends, memoryBackend } from './test-support/backends.js';
import type { Harness } from './test-support/backends.js';
import { collect, dump, fcParams } from '@stateflow/test-kit';

const valueArb: fc.Arbitrary<JsonValue> = fc.oneof(
  fc.integer({ min: 0, max: 9 }),
  fc.string({ maxLength: 3 }),
  fc.array(fc.integer({ min: 0, max: 9 }), { maxLength: 3 }),
  fc.record({ x: fc.integer({ min: 0, max: 9 }) }),
);
const patchArb: fc.Arbitrary<JsonObject> = fc.dictionary(
  fc.constantFrom('a', 'b', 'c', 'd'),
  fc.oneof(valueArb, fc.constant(null), fc.dictionary(fc.constantFrom('x', 'y'), fc.oneof(valueArb, fc.constant(null)), { minKeys: 1 })),
  { minKeys: 1, maxKeys: 3 },
);
const stepArb = fc.dictionary(fc.constantFrom('global', 'session:s', 'cwd:/c'), patchArb, { minKeys: 1, maxKeys: 2 });
const historyArb = fc.array(stepArb, { minLength: 1, maxLength: 25 });

async function publishAll(h: Harness, steps: Record<string, JsonObject>[]): Promise<void> {
  for (const changes of steps) await h.store.publish({ changes });
}

/** Fold every stored patch of every stream from `{}` (the whole log, no checkpoints). */
async function fullReplay(h: Harness): Promise<Map<string, JsonObject[]>> {
  const states = new Map<string, JsonObject[]>();
  for (const t of await collect(h.store.transitions())) {
    for (const c of t.changes) {
      const revs = states.get(c.stream) ?? [{}];
      expect(c.rev).toBe(revs.length);
      revs.push(applyPatch(revs[revs.length - 1] as JsonObject, c.patch));
      states.set(c.stream, revs);
    }
  }
  return states;
}

describe.each(backends)('store properties on $name', (backend) => {
  const params = fcParams();

  it('full replay equals the current state; checkpoint + replay equals full replay at every revision', () =>
    fc.assert(
      fc.asyncProperty(historyArb, fc.integer({ min: 1, max: 4 }), async (steps, k) => {
        const h = await backend.create({ checkpointInterval: k, cacheSize: 0 });
        try {
          await publishAll(h, steps);
          await h.reopen();
          const replayed = await fullReplay(h);
          for (const [stream, revs] of replayed) {
            expect(await h.store.state(stream)).toEqual(revs[revs.length - 1]);
            for (let rev = 0; rev < revs.length; rev++) expect(await h.store.stateAt(stream, rev)).toEqual(revs[rev]);
          }
        } finally {
          await h.destroy();
        }
      }),
      params,
    ));

  it('a historical read is the same before and after later writes', () =>
    fc.assert(
      fc.asyncProperty(historyArb, historyArb, async (first, later) => {
        const h = await backend.create({ checkpointInterval: 3 });
        try {
          await publishAll(h, first);
          const seq = h.store.lastSeq();
          const streams = ['global', 'session:s', 'cwd:/c'];
          const before = await h.store.statesAt(streams, seq);
          const heads = await Promise.all(streams.map((s) => h.store.head(s)));
          const at = await Promise.all(heads.map((hd) => h.store.stateAt(hd.stream, Math.max(0, hd.rev - 1))));
          await publishAll(h, later);
          expect(await h.store.statesAt(streams, seq)).toEqual(before);
          expect(await Promise.all(heads.map((hd) => h.store.stateAt(hd.stream, Math.max(0, hd.rev - 1))))).toEqual(at);
        } finally {
          await h.destroy();
        }
      }),
      params,
    ));
});

describe('failed publishes', () => {
  it('leave every stored byte unchanged (memory-level; classic-level in store.test.ts)', () =>
    fc.assert(
      fc.asyncProperty(historyArb, stepArb, fc.constantFrom('patch', 'conflict', 'lazy'), async (steps, bad, kind) => {
        const h = await memoryBackend.create({ checkpointInterval: 2 });
        try {
          await publishAll(h, steps);
          const before = await h.raw(dump);
          await h.reopen();
          const stream = Object.keys(bad)[0] as string;
          const input =
            kind === 'patch'
              ? { changes: { ...bad, [stream]: { ...(bad[stream] as JsonObject), zz: { '[9]': 1 } } } }
              : kind === 'conflict'
                ? { changes: bad, expected: { [stream]: (await h.store.head(stream)).rev + 1 } }
                : { changes: { ...bad, global: { lazy: 1 } } };
          try {
            await h.store.publish(input);
            throw new Error('publish should have failed');
          } catch (err) {
            expect(isStateflowError(err, 'PATCH_INVALID', 'CONFLICT')).toBe(true);
          }
          expect(await h.raw(dump)).toEqual(before);
        } finally {
          await h.destroy();
        }
      }),
      fcParams(),
    ));
});
