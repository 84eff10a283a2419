/**
 * Format 5 against format 4 (README "Transition records", "Format versions"): for random
 * histories — several streams, multi-stream transitions, ids, meta, key orders that are not
 * sorted, compaction — the store written now is turned, record by record, into the store format
 * 4 wrote (the oracle: each transition as its MessagePack map, each revision-index record with
 * its copy of the patch, format record 4; a random prefix only, as a format-4 store that went on
 * writing in format 5), and both read the same transitions (hashes included), patches, states
 * at every retained revision (key order included), path values and audit result.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JsonObject, JsonValue } from '@stateflow/core';
import { collect, fcParams, rawWrite } from '@stateflow/test-kit';
import { memoryBackend } from './test-support/backends.js';
import type { Harness } from './test-support/backends.js';
import { decodeValue, encodeValue } from './internal/codec.js';
import { Family, familyRange, formatKey, logKey, parseKey, revKey } from './internal/keys.js';
import { SEAL_BYTES, decodeLog, encodeSealed, isSealedTransition } from './internal/records.js';
import type { StorageOp } from './storage.js';
import type { Transition } from './types.js';

const valueArb: fc.Arbitrary<JsonValue> = fc.oneof(
  fc.integer({ min: -5, max: 9 }),
  fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 }),
  fc.string({ maxLength: 4, unit: 'grapheme' }),
  fc.array(fc.integer({ min: 0, max: 9 }), { maxLength: 3 }),
  fc.record({ z: fc.integer({ min: 0, max: 9 }), a: fc.boolean() }),
);
const keyArb = fc.constantFrom('b', 'a', 'ü', '__proto__', 'k10', 'k9');
const patchArb: fc.Arbitrary<JsonObject> = fc.dictionary(keyArb, fc.oneof(valueArb, fc.constant(null), fc.dictionary(fc.constantFrom('y', 'x'), fc.oneof(valueArb, fc.constant(null)), { minKeys: 1 })), {
  minKeys: 1,
  maxKeys: 3,
});
const stepArb = fc.record({
  changes: fc.dictionary(fc.constantFrom('global', 'session:s', 'cwd:/c'), patchArb, { minKeys: 1, maxKeys: 2 }),
  id: fc.option(fc.string({ minLength: 1, maxLength: 3 }), { nil: undefined }),
  meta: fc.option(fc.record({ by: fc.constantFrom('x', 'é') }), { nil: undefined }),
});
const historyArb = fc.array(stepArb, { minLength: 1, maxLength: 20 });

/** Everything a reader sees of the store: transitions, heads, every retained state and patch, one path value per state. */
async function reads(h: Harness): Promise<unknown> {
  const transitions = await collect(h.store.transitions());
  const streams = await h.store.streams();
  const states: Record<string, unknown[]> = {};
  for (const head of streams) {
    const list: unknown[] = [];
    for (let rev = head.origin; rev <= head.rev; rev++) {
      const state = await h.store.stateAt(head.stream, rev);
      // JSON text: key order counts.
      list.push(JSON.stringify(state), rev > head.origin ? JSON.stringify(await h.store.patchAt(head.stream, rev)) : null, await h.store.valueAt(head.stream, rev, [{ kind: 'key', key: 'a' }]));
    }
    states[head.stream] = list;
  }
  return { transitions: transitions.map((t) => JSON.stringify(t)), streams, states, audit: await h.store.audit() };
}

/** Rewrite the records of transitions with seq ≤ `upTo` as format 4 wrote them, and the format record as 4; the number of transitions rewritten. */
async function asFormatFour(h: Harness, upTo: number): Promise<number> {
  return h.raw(async (storage) => {
    const ops: StorageOp[] = [{ type: 'put', key: formatKey(), value: encodeValue({ format: 'stateflow-store', version: 4 }) }];
    const logged = new Map<number, Transition>();
    for await (const [key, value] of storage.iterate(familyRange(Family.log))) {
      const k = parseKey(key);
      if (k.family !== 'log' || k.seq > upTo || !isSealedTransition(value)) continue;
      const t = decodeLog(key, value, k.seq) as Transition;
      logged.set(k.seq, t);
      const old: Record<string, unknown> = { seq: t.seq, time: t.time, changes: t.changes };
      if (t.id !== undefined) old.id = t.id;
      if (t.meta !== undefined) old.meta = t.meta;
      ops.push({ type: 'put', key: logKey(t.seq), value: encodeValue({ ...old, prevHash: t.prevHash, hash: t.hash }) });
    }
    for await (const [key, value] of storage.iterate(familyRange(Family.rev))) {
      const k = parseKey(key);
      if (k.family !== 'rev') continue;
      const r = decodeValue(value.subarray(0, value.byteLength - SEAL_BYTES)) as { seq: number; base: number };
      const change = logged.get(r.seq)?.changes.find((c) => c.stream === k.stream && c.rev === k.n);
      if (change !== undefined) ops.push({ type: 'put', key: revKey(k.stream, k.n), value: encodeSealed(key, { seq: r.seq, base: r.base, patch: change.patch }) });
    }
    await rawWrite(storage, ops);
    return logged.size;
  });
}

describe('format 5 against format 4 (the oracle)', () => {
  const params = fcParams();

  it('reads, replays, hashes and audits the same, whole and with a format-4 prefix', () =>
    fc.assert(
      fc.asyncProperty(historyArb, fc.integer({ min: 1, max: 4 }), fc.nat(), fc.boolean(), async (steps, k, cut, compact) => {
        const h = await memoryBackend.create({ checkpointInterval: k, cacheSize: 0 });
        try {
          for (const step of steps) await h.store.publish(step);
          if (compact && (await h.store.head('global')).rev > 2) await h.store.compact('global', { keepRevisions: 2 });
          await h.reopen({ checkpointInterval: k, cacheSize: 0 });
          const current = await reads(h);
          expect((current as { audit: { problems: unknown[] } }).audit.problems).toEqual([]);
          const upTo = cut % (h.store.lastSeq() + 1);
          const transitions = await collect(h.store.transitions({ to: Math.max(upTo, 1) }));
          expect(await asFormatFour(h, upTo)).toBe(upTo === 0 ? 0 : transitions.length);
          await h.reopen({ checkpointInterval: k, cacheSize: 0 });
          expect(await reads(h)).toEqual(current);
        } finally {
          await h.destroy();
        }
      }),
      params,
    ));
});
