/**
 * A small seeded PRNG (mulberry32) for what a test or a benchmark picks at random (revisions to
 * read, bytes to damage), so that a run can be repeated exactly from its seed. Not for anything
 * that needs unpredictability.
 */

/** A function returning numbers in [0, 1), the same sequence for the same `seed` (an integer). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
