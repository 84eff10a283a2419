/**
 * Checkpoint policy (README "Checkpoint policy"): the replay budget — a checkpoint as soon as the
 * records since the stream's latest checkpoint (their encoded patches plus a fixed cost per
 * record) cost a quarter of reading that checkpoint (at least 512 bytes), and at the latest after K
 * revisions — decided the same across reopens, and re-based correctly by compaction.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Harness } from './test-support/backends.js';
import { backends } from './test-support/backends.js';
import { encodeValue } from './internal/codec.js';
import { parseKey } from './internal/keys.js';
import { MIN_REPLAY_BUDGET_BYTES, RECORD_COST_BYTES, REPLAY_BUDGET } from './internal/checkpoint-policy.js';
import type { JsonObject } from '@stateflow/core';

const text = (kib: number, seed: string): string => seed.repeat(Math.ceil((kib * 1024) / seed.length)).slice(0, kib * 1024);

describe.each(backends)('checkpoint policy on $name', (backend) => {
  let h: Harness;
  beforeEach(async () => {
    h = await backend.create({ checkpointInterval: 64 });
    expect([REPLAY_BUDGET, RECORD_COST_BYTES, MIN_REPLAY_BUDGET_BYTES]).toEqual([0.25, 64, 512]);
  });
  afterEach(async () => {
    await h.destroy();
  });

  /** Stored checkpoints of `doc` (rev → stored bytes) and the encoded patch size of each revision (read from its transition). */
  const layout = async (): Promise<{ checkpoints: Map<number, number>; patchBytes: Map<number, number> }> => {
    const revs: number[] = [];
    const checkpoints = await h.raw(async (s) => {
      const found = new Map<number, number>();
      for await (const [key, value] of s.iterate({})) {
        const k = parseKey(key);
        if (k.family === 'checkpoint' && k.stream === 'doc') found.set(k.n, value.byteLength);
        if (k.family === 'rev' && k.stream === 'doc') revs.push(k.n);
      }
      return found;
    });
    await h.reopen();
    const patchBytes = new Map<number, number>();
    for (const rev of revs) patchBytes.set(rev, encodeValue(await h.store.patchAt('doc', rev)).byteLength);
    return { checkpoints, patchBytes };
  };

  /** The checkpoint revisions the budget gives for `patchBytes`, with checkpoint sizes taken from the store. */
  const expectedCheckpoints = (patchBytes: Map<number, number>, stored: Map<number, number>, k: number): number[] => {
    const revs: number[] = [];
    let base = 0;
    let tail = 0;
    for (const [rev, bytes] of [...patchBytes].sort((a, b) => a[0] - b[0])) {
      tail += bytes + RECORD_COST_BYTES;
      const checkpointBytes = base === 0 ? 0 : (stored.get(base) as number);
      if (rev - base >= k || tail >= Math.max(REPLAY_BUDGET * (checkpointBytes + RECORD_COST_BYTES), MIN_REPLAY_BUDGET_BYTES)) {
        revs.push(rev);
        base = rev;
        tail = 0;
      }
    }
    return revs;
  };

  it('checkpoints when the tail costs a quarter of reading the checkpoint, the same across a reopen', async () => {
    const states: JsonObject[] = [];
    const publish = async (patch: JsonObject): Promise<void> => {
      await h.store.publish({ changes: { doc: patch } });
      states.push(await h.store.state('doc'));
    };
    await publish({ body: text(8, 'a'), n: 0 }); // rev 1: an 8 KiB patch, over the 512-byte floor → checkpoint
    for (let i = 1; i <= 30; i++) await publish({ n: i, note: `bump ${i}` });
    await h.reopen(); // the debt is recomputed from the stored checkpoint and tail
    for (let i = 31; i <= 70; i++) await publish({ n: i, note: `bump ${i}` });
    const { checkpoints, patchBytes } = await layout();
    const revs = [...checkpoints.keys()];
    expect(revs).toEqual(expectedCheckpoints(patchBytes, checkpoints, 64));
    expect(revs[0]).toBe(1);
    // An 8 KiB state with ~30-byte patches: a checkpoint every ~25 revisions, not every 64.
    const gaps = revs.slice(1).map((rev, i) => rev - (revs[i] as number));
    expect(gaps.length).toBeGreaterThanOrEqual(2);
    for (const gap of gaps) expect(gap).toBeGreaterThan(10), expect(gap).toBeLessThan(40);
    await h.reopen();
    for (let rev = 1; rev <= states.length; rev++) expect(await h.store.stateAt('doc', rev)).toEqual(states[rev - 1]);
    expect((await h.store.audit()).problems).toEqual([]);
  });

  it('a large state with small patches checkpoints every K revisions; a tiny one at the 512-byte floor', async () => {
    await h.store.publish({ changes: { doc: { body: text(64, 'b') } } });
    for (let i = 1; i <= 140; i++) await h.store.publish({ changes: { doc: { n: i } } });
    expect([...(await layout()).checkpoints.keys()]).toEqual([1, 65, 129]);
    await h.reopen();
    await h.store.publish({ changes: { other: { n: 0 } } });
    for (let i = 1; i <= 40; i++) await h.store.publish({ changes: { other: { n: i } } });
    const other = await h.raw(async (s) => {
      const revs: number[] = [];
      for await (const [key] of s.iterate({})) {
        const k = parseKey(key);
        if (k.family === 'checkpoint' && k.stream === 'other') revs.push(k.n);
      }
      return revs;
    });
    // { n: i } encodes in 3–4 bytes: ~67 bytes a record, so the 512-byte floor is reached every 8 records.
    expect(other).toEqual([8, 16, 24, 32, 40]);
  });

  it('compaction re-bases: revisions whose checkpoint it deleted read from the origin checkpoint', async () => {
    const states: JsonObject[] = [];
    await h.store.publish({ changes: { doc: { body: text(8, 'c'), n: 0 } } });
    states.push(await h.store.state('doc'));
    for (let i = 1; i <= 40; i++) {
      await h.store.publish({ changes: { doc: { n: i } } });
      states.push(await h.store.state('doc'));
    }
    const before = [...(await layout()).checkpoints.keys()];
    await h.reopen();
    const origin = (before[1] as number) + 3; // between two checkpoints
    expect((await h.store.compact('doc', { keepRevisions: states.length - origin + 1 })).origin).toBe(origin);
    await h.reopen();
    expect([...(await layout()).checkpoints.keys()]).toEqual([origin, ...before.filter((rev) => rev > origin)]);
    await h.reopen();
    for (let rev = origin; rev <= states.length; rev++) expect(await h.store.stateAt('doc', rev)).toEqual(states[rev - 1]);
    await h.store.publish({ changes: { doc: { n: 41 } } });
    expect(await h.store.state('doc')).toEqual({ ...states.at(-1), n: 41 });
    expect((await h.store.audit()).problems).toEqual([]);
  });
});
