/**
 * The time cursor's scale: seqs ↔ horizontal positions over the histogram's buckets (each bucket
 * one equal slice of the width, its seqs spread evenly inside it), and the keys that move the
 * cursor. Pure.
 */
import type { Histogram } from './types.js';

/** The seq under horizontal fraction `x` (0…1) of the histogram. */
export function seqAtFraction(h: Histogram, x: number): number {
  const n = h.buckets.length;
  if (n === 0) return h.lastSeq;
  const f = Math.max(0, Math.min(0.999999, x)) * n;
  const bucket = h.buckets[Math.floor(f)];
  if (bucket === undefined) return h.lastSeq;
  if (bucket.toSeq < bucket.fromSeq) return Math.max(h.firstSeq, bucket.fromSeq - 1);
  const within = f - Math.floor(f);
  return Math.min(bucket.toSeq, bucket.fromSeq + Math.floor(within * (bucket.toSeq - bucket.fromSeq + 1)));
}

/** Horizontal fraction (0…1) of `seq`. */
export function fractionOfSeq(h: Histogram, seq: number): number {
  const n = h.buckets.length;
  for (let i = 0; i < n; i++) {
    const b = h.buckets[i];
    if (b !== undefined && seq >= b.fromSeq && seq <= b.toSeq) return (i + (seq - b.fromSeq + 0.5) / (b.toSeq - b.fromSeq + 1)) / n;
  }
  return seq < h.firstSeq ? 0 : 1;
}

/**
 * The seq key `key` moves the cursor to from `seq` (arrows one transition, PageUp/PageDown about
 * one bucket, Home/End the ends; kept within the retained seqs), or `null` for another key.
 */
export function seqAfterKey(h: Histogram, seq: number, key: string): number | null {
  const step = Math.max(1, Math.round(h.lastSeq / Math.max(1, h.buckets.length)));
  const moves: Record<string, number> = {
    ArrowLeft: seq - 1,
    ArrowDown: seq - 1,
    ArrowRight: seq + 1,
    ArrowUp: seq + 1,
    PageDown: seq - step,
    PageUp: seq + step,
    Home: h.firstSeq,
    End: h.lastSeq,
  };
  const to = moves[key];
  if (to === undefined) return null;
  return Math.max(Math.min(h.firstSeq, h.lastSeq), Math.min(h.lastSeq, to));
}
