/**
 * Checkpoint policy (README "Storage layout"): a checkpoint every K revisions, and (byte rule)
 * one as soon as the encoded net patches since the stream's latest checkpoint add up to at
 * least that checkpoint's size and at least 64 KiB — so a read of a large state never replays
 * much more than one state's worth of patches, and never more than K−1 patches.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Harness } from './test-support/backends.js';
import { backends } from './test-support/backends.js';
import { parseKey } from './internal/keys.js';
import { CHECKPOINT_MIN_PATCH_BYTES } from './internal/checkpoint-policy.js';

const text = (kib: number, seed: string): string => seed.repeat(Math.ceil((kib * 1024) / seed.length)).slice(0, kib * 1024);

describe.each(backends)('checkpoint policy on $name', (backend) => {
  let h: Harness;
  beforeEach(async () => {
    h = await backend.create({ checkpointInterval: 8 });
    expect(CHECKPOINT_MIN_PATCH_BYTES).toBe(64 * 1024);
  });
  afterEach(async () => {
    await h.destroy();
  });

  const checkpointRevs = (): Promise<number[]> =>
    h.raw(async (s) => {
      const revs: number[] = [];
      for await (const [key] of s.iterate({})) {
        const k = parseKey(key);
        if (k.family === 'checkpoint' && k.stream === 'doc') revs.push(k.n);
      }
      return revs;
    });

  it('writes a checkpoint early once the patches outweigh the latest checkpoint, also across a reopen', async () => {
    const docs: string[] = [];
    const publish = async (body: string): Promise<void> => {
      docs.push(body);
      await h.store.publish({ changes: { doc: { body } } });
    };
    await publish(text(100, 'a')); // rev 1: 100 KiB patch ≥ 64 KiB → checkpoint (≈100 KiB)
    await publish(text(40, 'b')); // rev 2: 40 KiB since the checkpoint
    await publish('small'); // rev 3
    await h.reopen(); // the debt is recomputed from the stored checkpoint and tail
    await publish(text(70, 'c')); // rev 4: 110 KiB ≥ 100 KiB → checkpoint (≈70 KiB)
    for (let i = 5; i <= 8; i++) await publish(`small ${i}`); // rev 8: every K = 8
    await publish(text(65, 'd')); // rev 9: the latest checkpoint (rev 8) is tiny, so the 64 KiB floor applies → checkpoint
    await publish(text(10, 'e')); // rev 10
    expect(await checkpointRevs()).toEqual([1, 4, 8, 9]);
    await h.reopen();
    for (let rev = 1; rev <= docs.length; rev++) expect(await h.store.stateAt('doc', rev)).toEqual({ body: docs[rev - 1] });
    expect((await h.store.audit()).problems).toEqual([]);
  });

  it('small patches only checkpoint every K revisions', async () => {
    for (let i = 1; i <= 17; i++) await h.store.publish({ changes: { doc: { n: i, pad: text(1, String(i % 10)) } } });
    expect(await checkpointRevs()).toEqual([8, 16]);
  });
});
