import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Harness } from './test-support/backends.js';
import { backends } from './test-support/backends.js';
import type { Transition } from './types.js';
import type { Storage } from './storage.js';
import { openMemoryStorage } from './memory-storage.js';
import { openStoreOver } from './open-store.js';
import { collect, dump, failureOf, fakeClock, rejectionOf } from '@stateflow/test-kit';

/** The code of the Stateflow error `p` rejects with. */
const code = async (p: Promise<unknown>): Promise<string> => (await rejectionOf(p)).code;
/** Its code and details in one flat object. */
const details = async (p: Promise<unknown>): Promise<unknown> => {
  const { code: c, details: d } = await failureOf(p);
  return { code: c, ...d };
};

/** A clock whose every reading is one second after the one before, from 2025-01-01T00:00:01Z. */
const fixedClock = (): (() => Date) => fakeClock({ start: Date.UTC(2025, 0, 1, 0, 0, 1), tick: 1000 }).clock;

describe.each(backends)('store on $name', (backend) => {
  let h: Harness;
  beforeEach(async () => {
    h = await backend.create({ checkpointInterval: 3, clock: fixedClock() });
    expect(h.store.lastSeq()).toBe(0);
  });
  afterEach(async () => {
    await h.destroy();
  });

  describe('publish', () => {
    it('assigns seq and per-stream revs, stores net patches, updates heads and state', async () => {
      const r1 = await h.store.publish({ changes: { global: { a: 1, b: { c: 2 } }, 'session:x': { s: 'v' } }, meta: { by: 'test' } });
      expect(r1.status).toBe('accepted');
      const t1 = r1.transition as Transition;
      expect(t1.seq).toBe(1);
      expect(t1.time).toBe('2025-01-01T00:00:01.000Z');
      expect(t1.meta).toEqual({ by: 'test' });
      expect(t1.prevHash).toBe('0'.repeat(64));
      expect(t1.hash).toMatch(/^[0-9a-f]{64}$/);
      expect(t1.changes).toEqual([
        { stream: 'global', rev: 1, patch: { a: 1, b: { c: 2 } } },
        { stream: 'session:x', rev: 1, patch: { s: 'v' } },
      ]);
      const r2 = await h.store.publish({ changes: { global: { a: 1, b: { c: 3, d: null } } } });
      expect(r2.transition?.changes).toEqual([{ stream: 'global', rev: 2, patch: { b: { c: 3 } } }]);
      expect(r2.transition?.prevHash).toBe(t1.hash);
      expect(await h.store.head('global')).toEqual({ stream: 'global', rev: 2, seq: 2, origin: 0 });
      expect(await h.store.head('session:x')).toEqual({ stream: 'session:x', rev: 1, seq: 1, origin: 0 });
      expect(await h.store.head('cwd:/none')).toEqual({ stream: 'cwd:/none', rev: 0, seq: 0, origin: 0 });
      expect(await h.store.state('global')).toEqual({ a: 1, b: { c: 3 } });
      expect(Object.isFrozen(await h.store.state('global'))).toBe(true);
      expect((await h.store.streams()).map((s) => s.stream)).toEqual(['global', 'session:x']);
      expect(h.store.lastSeq()).toBe(2);
    });

    it('skips unchanged streams and reports a call with no net change as noop, writing nothing', async () => {
      await h.store.publish({ changes: { global: { a: 1 } } });
      const r = await h.store.publish({ changes: { global: { a: 2 }, 'session:x': { q: null } } });
      expect(r.transition?.changes.map((c) => c.stream)).toEqual(['global']);
      const before = h.store.lastSeq();
      const noop = await h.store.publish({ changes: { global: { a: 2 } }, id: 'n1' });
      expect(noop).toEqual({ status: 'noop', transition: null });
      expect(h.store.lastSeq()).toBe(before);
    });

    it('fails the whole call on one invalid patch, writing nothing (byte-for-byte)', async () => {
      await h.store.publish({ changes: { global: { list: [1, 2] } } });
      const before = await h.raw(dump);
      await h.reopen();
      expect(await code(h.store.publish({ changes: { global: { ok: 1 }, 'session:x': { list: { '[5]': 1 } } } }))).toBe('PATCH_INVALID');
      expect(await code(h.store.publish({ changes: { global: {} } }))).toBe('PATCH_INVALID');
      expect(await code(h.store.publish({ changes: { global: { a: [null] } } }))).toBe('PATCH_INVALID');
      expect(await code(h.store.publish({ changes: { global: { list: { '[2]': 9 } } } }))).toBe('PATCH_INVALID');
      expect(await code(h.store.publish({ changes: { global: { lazy: 5 } } }))).toBe('PATCH_INVALID');
      expect(await code(h.store.publish({ changes: {} }))).toBe('INPUT_INVALID');
      expect(await code(h.store.publish({ changes: { '': { a: 1 } } }))).toBe('STREAM_INVALID');
      expect(await code(h.store.publish({ changes: { 'a\nb': { a: 1 } } }))).toBe('STREAM_INVALID');
      expect(await code(h.store.publish({ changes: { global: { a: 1 } }, expected: { global: 7 } }))).toBe('CONFLICT');
      expect(await h.raw(dump)).toEqual(before);
    });

    it('enforces expected revisions with CONFLICT carrying expected and actual', async () => {
      await h.store.publish({ changes: { global: { a: 1 } }, expected: { global: 'none' } });
      expect(await details(h.store.publish({ changes: { global: { a: 2 } }, expected: { global: 'none' } }))).toEqual({
        code: 'CONFLICT',
        stream: 'global',
        expected: 'none',
        actual: 1,
      });
      expect(await details(h.store.publish({ changes: { global: { a: 2 } }, expected: { global: 0 } }))).toEqual({
        code: 'CONFLICT',
        stream: 'global',
        expected: 0,
        actual: 1,
      });
      expect((await h.store.publish({ changes: { global: { a: 2 } }, expected: { global: 1 } })).status).toBe('accepted');
      expect((await h.store.publish({ changes: { global: { a: 3 } }, expected: { global: 'any' } })).status).toBe('accepted');
      // A guard on a stream that is not written.
      expect(await code(h.store.publish({ changes: { global: { a: 4 } }, expected: { 'session:s': 2 } }))).toBe('CONFLICT');
    });

    it('serialises concurrent publishers: with the same basis one wins, the other conflicts', async () => {
      await h.store.publish({ changes: { global: { n: 0 } } });
      const results = await Promise.allSettled([
        h.store.publish({ changes: { global: { n: 1 } }, expected: { global: 1 } }),
        h.store.publish({ changes: { global: { n: 2 } }, expected: { global: 1 } }),
      ]);
      expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
      const rejected = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
      expect(rejected.reason.code).toBe('CONFLICT');
      expect((await h.store.head('global')).rev).toBe(2);
    });

    it('returns the original transition for a repeated idempotency id and writes nothing', async () => {
      const first = await h.store.publish({ changes: { global: { a: 1 } }, id: 'req-1' });
      const again = await h.store.publish({ changes: { global: { a: 99 } }, id: 'req-1', expected: { global: 'none' } });
      expect(again).toEqual({ status: 'duplicate', transition: first.transition });
      expect(h.store.lastSeq()).toBe(1);
      await h.reopen();
      expect((await h.store.publish({ changes: { global: { a: 5 } }, id: 'req-1' })).status).toBe('duplicate');
      expect(await h.store.state('global')).toEqual({ a: 1 });
    });

    it('accepts fsync durability per call and per store', async () => {
      expect((await h.store.publish({ changes: { global: { a: 1 } }, durability: 'fsync' })).status).toBe('accepted');
      await h.reopen({ checkpointInterval: 3, durability: 'fsync' });
      expect((await h.store.publish({ changes: { global: { a: 2 } } })).status).toBe('accepted');
      expect(await code(h.store.publish({ changes: { global: { a: 3 } }, durability: 'always' as never }))).toBe('INPUT_INVALID');
    });

    it('keeps __proto__ and friends as data through storage', async () => {
      const patch = JSON.parse('{"__proto__": {"x": 1}, "constructor": "c", "prototype": [1]}');
      await h.store.publish({ changes: { global: patch } });
      await h.reopen();
      const s = await h.store.state('global');
      expect(Object.keys(s)).toEqual(['__proto__', 'constructor', 'prototype']);
      expect(Object.getPrototypeOf(s)).toBe(Object.prototype);
      expect(JSON.stringify(s)).toBe('{"__proto__":{"x":1},"constructor":"c","prototype":[1]}');
    });
  });

  describe('reads', () => {
    beforeEach(async () => {
      // global: revs 1..7 of {n: i}, session:a changes at seqs 2 and 5.
      for (let i = 1; i <= 7; i++) {
        const changes: Record<string, Record<string, number>> = { global: { n: i, [`k${i}`]: i } };
        if (i === 2 || i === 5) changes['session:a'] = { m: i };
        await h.store.publish({ changes });
      }
      expect(h.store.lastSeq()).toBe(7);
    });

    const globalAt = (rev: number): Record<string, number> => {
      const s: Record<string, number> = {};
      if (rev > 0) s.n = rev;
      for (let i = 1; i <= rev; i++) s[`k${i}`] = i;
      return s;
    };

    it('stateAt returns every revision, before and after a reopen (checkpoint + replay)', async () => {
      for (const reopen of [false, true]) {
        if (reopen) await h.reopen();
        for (let rev = 0; rev <= 7; rev++) expect(await h.store.stateAt('global', rev)).toEqual(globalAt(rev));
        expect(await h.store.state('global')).toEqual(globalAt(7));
      }
    });

    it('patchAt is the net patch; applying it to rev-1 gives rev', async () => {
      expect(await h.store.patchAt('global', 3)).toEqual({ n: 3, k3: 3 });
      expect(await h.store.patchAt('session:a', 2)).toEqual({ m: 5 });
      expect(await details(h.store.patchAt('global', 0))).toEqual({ code: 'REVISION_NOT_FOUND', stream: 'global', rev: 0, head: 7 });
    });

    it('rejects revisions past the head with REVISION_NOT_FOUND', async () => {
      expect(await details(h.store.stateAt('global', 8))).toEqual({ code: 'REVISION_NOT_FOUND', stream: 'global', rev: 8, head: 7 });
      expect(await code(h.store.stateAt('global', -1))).toBe('INPUT_INVALID');
      expect(await code(h.store.stateAt('global', 1.5))).toBe('INPUT_INVALID');
      expect(await code(h.store.patchAt('nope', 1))).toBe('REVISION_NOT_FOUND');
    });

    it('statesAt and effectiveAt read every stream as of a global seq', async () => {
      expect(await h.store.statesAt(['global', 'session:a', 'cwd:/x'], 1)).toEqual({ global: globalAt(1), 'session:a': {}, 'cwd:/x': {} });
      expect(await h.store.statesAt(['session:a'], 4)).toEqual({ 'session:a': { m: 2 } });
      expect(await h.store.effectiveAt(['global', 'session:a'], 5)).toEqual({ ...globalAt(5), m: 5 });
      expect(await h.store.effectiveAt(['session:a', 'global'], 0)).toEqual({});
      expect(await details(h.store.effectiveAt(['global'], 8))).toEqual({ code: 'TRANSITION_NOT_FOUND', seq: 8, lastSeq: 7 });
    });

    it('view captures several streams at one seq', async () => {
      expect(await h.store.view(['global', 'session:a'])).toEqual({
        seq: 7,
        streams: { global: { rev: 7, state: globalAt(7) }, 'session:a': { rev: 2, state: { m: 5 } } },
      });
    });

    it('transition and transitions iterate the log (inclusive bounds, per stream)', async () => {
      expect((await h.store.transition(3)).changes[0]?.rev).toBe(3);
      expect(await code(h.store.transition(0))).toBe('TRANSITION_NOT_FOUND');
      expect(await code(h.store.transition(8))).toBe('TRANSITION_NOT_FOUND');
      expect((await collect(h.store.transitions())).map((t) => t.seq)).toEqual([1, 2, 3, 4, 5, 6, 7]);
      expect((await collect(h.store.transitions({ from: 3, to: 5 }))).map((t) => t.seq)).toEqual([3, 4, 5]);
      expect((await collect(h.store.transitions({ stream: 'session:a' }))).map((t) => t.seq)).toEqual([2, 5]);
      expect((await collect(h.store.transitions({ stream: 'session:a', from: 3 }))).map((t) => t.seq)).toEqual([5]);
    });

    it('diff gives the patch between two revisions', async () => {
      expect(await h.store.diff('global', 5, 7)).toEqual({ n: 7, k6: 6, k7: 7 });
      expect(await h.store.diff('global', 7, 6)).toEqual({ n: 6, k7: null });
    });

    it('historical reads do not change after later writes', async () => {
      const before = await Promise.all([0, 1, 2, 3, 4, 5, 6].map((r) => h.store.stateAt('global', r)));
      await h.store.publish({ changes: { global: { n: null, k1: null, extra: [1] } } });
      const after = await Promise.all([0, 1, 2, 3, 4, 5, 6].map((r) => h.store.stateAt('global', r)));
      expect(after).toEqual(before);
    });
  });

  describe('store lifecycle', () => {
    it('throws STORE_CLOSED after close', async () => {
      await h.store.close();
      expect(await code(h.store.state('global'))).toBe('STORE_CLOSED');
      expect(await code(h.store.publish({ changes: { global: { a: 1 } } }))).toBe('STORE_CLOSED');
    });
  });
});

describe('a historical read racing a publish', () => {
  /** memory-level storage whose iterations start a few event-loop turns late (a slow index seek). */
  const slowSeeks = async (): Promise<Storage> => {
    const storage = await openMemoryStorage();
    const iterate = storage.iterate.bind(storage);
    storage.iterate = async function* (options) {
      for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setImmediate(resolve));
      yield* iterate(options);
    };
    return storage;
  };

  it('stateAt of the revision that is the head when it is called answers that revision, not the one a publish lands meanwhile', async () => {
    // Each round: a stream at revision 0 whose current state is not loaded yet; a publish to it
    // starts, and `turns` event-loop turns later stateAt(…, 0), which loads the current state
    // (its head check seeks the seq index) while the publish lands.
    const store = await openStoreOver(await slowSeeks());
    try {
      for (let turns = 0; turns < 12; turns++) {
        const stream = `session:${turns}`;
        const publish = store.publish({ changes: { [stream]: { m: turns } } });
        for (let turn = 0; turn < turns; turn++) await new Promise((resolve) => setImmediate(resolve));
        const read = store.stateAt(stream, 0);
        await publish;
        expect(await read).toEqual({});
        expect(await store.stateAt(stream, 1)).toEqual({ m: turns });
      }
    } finally {
      await store.close();
    }
  });
});
