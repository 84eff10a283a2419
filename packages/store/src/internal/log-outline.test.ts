/**
 * A log record's outline (`log-outline.ts`): the same seq, time, id, chain hashes, streams,
 * revisions and patch bytes as decoding the record whole, for any transition; fail closed on a
 * record whose seal does not hold.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '@stateflow/core';
import { fcParams } from '@stateflow/test-kit';
import type { Transition } from '../types.js';
import { logKey } from './keys.js';
import { decodeLog, encodeRecord, encodeTransition } from './records.js';
import { outlineLog, patchBytes } from './log-outline.js';

const hex = fc.stringMatching(/^[0-9a-f]{64}$/);
const text = fc.string({ unit: 'binary' });
const patch = fc.dictionary(text, fc.jsonValue()) as fc.Arbitrary<JsonObject>;
const transition = fc.record({
  seq: fc.integer({ min: 1, max: 2 ** 40 }),
  time: fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
  id: fc.option(text, { nil: undefined }),
  meta: fc.option(fc.dictionary(text, fc.jsonValue()) as fc.Arbitrary<JsonObject>, { nil: undefined }),
  changes: fc.array(fc.record({ stream: text, rev: fc.integer({ min: 1, max: 2 ** 40 }), patch }), { minLength: 1, maxLength: 4 }),
  prevHash: hex,
  hash: hex,
});

const outlineOf = (t: Transition) => ({
  seq: t.seq,
  pruned: false,
  time: t.time,
  id: t.id,
  prevHash: t.prevHash,
  hash: t.hash,
  changes: t.changes.map((c) => ({ stream: c.stream, rev: c.rev, bytes: patchBytes(c.patch) })),
});

describe('outlineLog', () => {
  it('tells of a format-5 record what decoding it whole tells, patch bytes included', () => {
    fc.assert(
      fc.property(transition, (raw) => {
        const t = JSON.parse(JSON.stringify(raw)) as Transition;
        const key = logKey(t.seq);
        const bytes = encodeTransition(key, t);
        const decoded = decodeLog(key, bytes, t.seq, { verifyHash: false }) as Transition;
        expect(outlineLog(key, bytes, t.seq)).toEqual(outlineOf(decoded));
      }),
      fcParams(),
    );
  });

  it('outlines an older (MessagePack) record and a pruned stub by decoding them', () => {
    const stub = { pruned: true, seq: 3, changes: [{ stream: 's', rev: 2 }], prevHash: 'a'.repeat(64), hash: 'b'.repeat(64), id: 'x' };
    expect(outlineLog(logKey(3), encodeRecord(stub), 3)).toEqual({ ...stub, time: '', changes: [{ stream: 's', rev: 2, bytes: 0 }] });
  });

  it('fails closed when the seal or the seq does not hold', () => {
    const t: Transition = { seq: 7, time: '2026-01-01T00:00:00.000Z', changes: [{ stream: 's', rev: 1, patch: { a: 1 } }], prevHash: 'a'.repeat(64), hash: 'b'.repeat(64) };
    const bytes = Buffer.from(encodeTransition(logKey(7), t));
    expect(() => outlineLog(logKey(8), bytes, 8)).toThrow(expect.objectContaining({ code: 'STORE_CORRUPT' }));
    bytes[70] = (bytes[70] as number) ^ 1;
    expect(() => outlineLog(logKey(7), bytes, 7)).toThrow(expect.objectContaining({ code: 'STORE_CORRUPT' }));
  });
});
