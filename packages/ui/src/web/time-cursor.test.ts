import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { fractionOfSeq, seqAtFraction } from './cursor-scale.js';
import type { Histogram } from './types.js';

/** A histogram of `counts` per bucket over seqs 1…sum. */
function histogramOf(counts: number[]): Histogram {
  let from = 1;
  const buckets = counts.map((count, i) => {
    const b = { start: new Date(i * 1000).toISOString(), end: new Date((i + 1) * 1000).toISOString(), fromSeq: from, toSeq: from + count - 1, count };
    from += count;
    return b;
  });
  return { lastSeq: from - 1, firstSeq: 1, stream: null, buckets };
}

describe('the cursor ↔ seq mapping', () => {
  it('maps each seq to a position that maps back to it', () => {
    fc.assert(
      fc.property(fc.array(fc.nat({ max: 30 }), { minLength: 1, maxLength: 40 }).filter((c) => c.some((n) => n > 0)), (counts) => {
        const h = histogramOf(counts);
        for (let seq = 1; seq <= h.lastSeq; seq++) expect(seqAtFraction(h, fractionOfSeq(h, seq))).toBe(seq);
      }),
    );
  });

  it('puts an empty bucket at the last seq before it, and the ends at the first and last seq', () => {
    const h = histogramOf([3, 0, 2]);
    expect(seqAtFraction(h, 0.5)).toBe(3);
    expect(seqAtFraction(h, 0)).toBe(1);
    expect(seqAtFraction(h, 1)).toBe(5);
  });
});
