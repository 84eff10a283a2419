import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { openMemoryStore } from '@stateflow/store';
import { histogram } from './histogram.js';
import { fakeClock, fcParams } from '@stateflow/test-kit';

describe('histogram', () => {
  it('puts every transition in the one bucket whose time range holds its time, for any spacing of times', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.nat({ max: 5000 }), { minLength: 1, maxLength: 60 }), fc.integer({ min: 1, max: 40 }), async (gaps, buckets) => {
        const time = fakeClock({ start: '2026-01-01T00:00:00Z' });
        const times: number[] = [];
        const store = await openMemoryStore({ clock: time.clock });
        for (const [i, gap] of gaps.entries()) {
          time.advance(gap);
          times.push(time.now());
          await store.publish({ changes: { 'cwd:/h': { lazy: { n: i + 1 } } } });
        }
        const h = await histogram(store, { buckets });
        expect(h.buckets).toHaveLength(buckets);
        expect(h.buckets.reduce((n, b) => n + b.count, 0)).toBe(gaps.length);
        h.buckets.forEach((b, i) => {
          expect(b.fromSeq).toBe(i === 0 ? 1 : (h.buckets[i - 1]!.toSeq + 1));
          for (let seq = b.fromSeq; seq <= b.toSeq; seq++) {
            const t = times[seq - 1]!;
            expect(t).toBeGreaterThanOrEqual(Date.parse(b.start) - 1);
            if (i < buckets - 1) expect(t).toBeLessThan(Date.parse(b.end) + 1);
          }
        });
        // Over the seq: the same cover of every transition once, in shares that differ by at most one.
        const bySeq = await histogram(store, { buckets, axis: 'seq' });
        expect(bySeq.axis).toBe('seq');
        expect(bySeq.buckets.reduce((n, b) => n + b.count, 0)).toBe(gaps.length);
        const counts = bySeq.buckets.map((b) => b.count);
        expect(Math.max(...counts) - Math.min(...counts)).toBeLessThanOrEqual(1);
        bySeq.buckets.forEach((b, i) => {
          expect(b.fromSeq).toBe(i === 0 ? 1 : bySeq.buckets[i - 1]!.toSeq + 1);
          if (b.count > 0) expect([Date.parse(b.start), Date.parse(b.end)]).toEqual([times[b.fromSeq - 1], times[b.toSeq - 1]]);
        });
        await store.close();
      }),
      // Each run fills a store with up to 60 transitions: a quarter of the ordinary runs.
      fcParams({ share: 0.25 }),
    );
  });

  it('counts a compacted stream from its first retained revision', async () => {
    const store = await openMemoryStore({ checkpointInterval: 2 });
    for (let i = 1; i <= 10; i++) await store.publish({ changes: { 'cwd:/c': { lazy: { n: i } } } });
    const { origin } = await store.compact('cwd:/c', { keepRevisions: 3 });
    const h = await histogram(store, { buckets: 3, stream: 'cwd:/c', axis: 'seq' });
    expect(h.buckets.reduce((n, b) => n + b.count, 0)).toBe(10 - origin);
    await store.close();
  });
});
