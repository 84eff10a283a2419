/**
 * The time cursor's histogram (ui README "Views", "Time cursor over the global seq"): transitions over wall
 * time in at most `HISTOGRAM_BUCKETS.max` (`@stateflow/http-contract`) equal-width buckets, each with the seq range it
 * covers so the page can map a cursor position to a seq. The log is ordered by seq, and times
 * rise with seq (acceptance order), so each bucket boundary is found by searching the log:
 * interpolation steps (times are close to linear in seq) alternating with bisection steps (so a
 * burst of transitions cannot make it linear), O(buckets × log lastSeq) record reads at worst,
 * whatever the history's length. A transition's time never changes, so the times read are kept
 * per store (at most {@link TIME_CACHE_ENTRIES}) for the next request.
 */
import { isStateflowError } from '@stateflow/core';
import type { Store, StreamId } from '@stateflow/store';
import type { Histogram, HistogramBucket } from '@stateflow/http-contract';
import { retainedRevisionAsOf } from './stream-position.js';

/** Transition times kept per store between requests (seq → ms), at most; then the cache starts over. */
export const TIME_CACHE_ENTRIES = 200_000;

const timeCaches = new WeakMap<Store, Map<number, number>>();


/**
 * The histogram of the whole log, or of the transitions changing `stream`. Over wall time
 * (`axis: 'time'`, equal time per bucket), or over the seq (`'seq'`, equal seq ranges: a burst,
 * such as an import, spreads over the whole width instead of filling one bar).
 * @param buckets 1 … `HISTOGRAM_BUCKETS.max` (`@stateflow/http-contract`).
 */
export async function histogram(store: Store, options: { buckets: number; stream?: StreamId; axis?: 'time' | 'seq' }): Promise<Histogram> {
  const axis = options.axis ?? 'time';
  const lastSeq = store.lastSeq();
  const stream = options.stream ?? null;
  let times = timeCaches.get(store);
  if (times === undefined || times.size > TIME_CACHE_ENTRIES) timeCaches.set(store, (times = new Map()));
  const cache = times;
  const first = await firstRetained(store);
  if (first === null) return { lastSeq, firstSeq: lastSeq + 1, stream, axis, buckets: [] };
  cache.set(first.seq, first.time);
  const timeOf = async (seq: number): Promise<number> => {
    const known = cache.get(seq);
    if (known !== undefined) return known;
    const time = await retainedTime(store, seq, lastSeq);
    cache.set(seq, time);
    return time;
  };
  const t0 = first.time;
  const t1 = Math.max(t0, await timeOf(lastSeq));
  const width = (t1 - t0 + 1) / options.buckets;
  const span = lastSeq - first.seq + 1;
  // seq boundary i: over time, the first seq accepted at or after t0 + i × width (monotone by
  // construction); over the seq, an equal share of the retained seqs.
  const bounds: number[] = [first.seq];
  for (let i = 1; i < options.buckets; i++) {
    bounds.push(axis === 'seq' ? first.seq + Math.floor((i * span) / options.buckets) : await firstAtOrAfter(timeOf, t0 + i * width, bounds[i - 1] as number, lastSeq + 1));
  }
  bounds.push(lastSeq + 1);
  const head = stream === null ? null : await store.head(stream);
  const revs = head === null ? null : await Promise.all(bounds.map((b) => retainedRevisionAsOf(store, head, b - 1)));
  const buckets: HistogramBucket[] = [];
  for (const [i, fromSeq] of bounds.slice(0, -1).entries()) {
    const next = bounds[i + 1] as number;
    const time = axis === 'time' ? { start: t0 + i * width, end: t0 + (i + 1) * width } : { start: await timeOf(Math.min(fromSeq, lastSeq)), end: await timeOf(Math.max(fromSeq, next - 1)) };
    buckets.push({
      start: new Date(time.start).toISOString(),
      end: new Date(time.end).toISOString(),
      fromSeq,
      toSeq: next - 1,
      count: revs === null ? next - fromSeq : (revs[i + 1] as number) - (revs[i] as number),
    });
  }
  return { lastSeq, firstSeq: first.seq, stream, axis, buckets };
}

/** The smallest seq in `lo … hi − 1` accepted at or after `at` (ms), or `hi` when none is. */
async function firstAtOrAfter(timeOf: (seq: number) => Promise<number>, at: number, lo: number, hi: number): Promise<number> {
  for (let step = 0; lo < hi; step++) {
    let mid = Math.floor((lo + hi) / 2);
    if (step % 2 === 0 && hi - 1 > lo) {
      const [tLo, tHi] = [await timeOf(lo), await timeOf(hi - 1)];
      if (tHi > tLo) mid = Math.min(hi - 1, Math.max(lo, lo + Math.floor(((at - tLo) / (tHi - tLo)) * (hi - 1 - lo))));
    }
    if ((await timeOf(mid)) >= at) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

async function firstRetained(store: Store): Promise<{ seq: number; time: number } | null> {
  for await (const t of store.transitions({ from: 1 })) return { seq: t.seq, time: Date.parse(t.time) };
  return null;
}

/** Acceptance time of `seq` in ms; a pruned transition takes the time of the next retained one. */
async function retainedTime(store: Store, seq: number, lastSeq: number): Promise<number> {
  try {
    return Date.parse((await store.transition(seq)).time);
  } catch (err) {
    if (!isStateflowError(err) || err.code !== 'HISTORY_NOT_RETAINED') throw err;
    for await (const t of store.transitions({ from: seq, to: lastSeq })) return Date.parse(t.time);
    throw err;
  }
}
