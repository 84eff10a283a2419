/**
 * The time cursor's histogram (issue "Time cursor over the global seq"): transitions over wall
 * time in at most {@link HISTOGRAM_BUCKETS}.max equal-width buckets, each with the seq range it
 * covers so the page can map a cursor position to a seq. The log is ordered by seq, and times
 * rise with seq (acceptance order), so each bucket boundary is found by a binary search of the
 * log: O(buckets × log lastSeq) record reads, whatever the history's length.
 */
import { isStateflowError } from '@stateflow/core';
import type { Store, StreamId } from '@stateflow/store';
import { revisionAsOf } from './stream-position.js';

/** Buckets by default, and at most. */
export const HISTOGRAM_BUCKETS = { default: 60, max: 240 } as const;

/** One bucket: `[start, end)` in wall time, seqs `fromSeq … toSeq` (inclusive; empty when toSeq < fromSeq). */
export interface HistogramBucket {
  start: string;
  end: string;
  fromSeq: number;
  toSeq: number;
  /** Transitions in the bucket (of the stream, when one was given). */
  count: number;
}

/** The histogram. */
export interface Histogram {
  lastSeq: number;
  /** First retained seq (1 unless compaction pruned the oldest transitions). */
  firstSeq: number;
  stream: StreamId | null;
  buckets: HistogramBucket[];
}

/**
 * The histogram of the whole log, or of the transitions changing `stream`.
 * @param buckets 1 … {@link HISTOGRAM_BUCKETS}.max.
 */
export async function histogram(store: Store, options: { buckets: number; stream?: StreamId }): Promise<Histogram> {
  const lastSeq = store.lastSeq();
  const stream = options.stream ?? null;
  const times = new Map<number, number>();
  const first = await firstRetained(store);
  if (first === null) return { lastSeq, firstSeq: lastSeq + 1, stream, buckets: [] };
  times.set(first.seq, first.time);
  const timeOf = async (seq: number): Promise<number> => {
    const known = times.get(seq);
    if (known !== undefined) return known;
    const time = await retainedTime(store, seq, lastSeq);
    times.set(seq, time);
    return time;
  };
  const t0 = first.time;
  const t1 = Math.max(t0, await timeOf(lastSeq));
  const width = (t1 - t0 + 1) / options.buckets;
  // seq boundary i: the first seq accepted at or after t0 + i × width (monotone by construction).
  const bounds: number[] = [first.seq];
  for (let i = 1; i < options.buckets; i++) {
    const at = t0 + i * width;
    let lo = bounds[i - 1] as number;
    let hi = lastSeq + 1;
    while (lo < hi) {
      const mid = Math.floor((lo + hi) / 2);
      if ((await timeOf(mid)) >= at) hi = mid;
      else lo = mid + 1;
    }
    bounds.push(lo);
  }
  bounds.push(lastSeq + 1);
  const head = stream === null ? null : await store.head(stream);
  const revs = head === null ? null : await Promise.all(bounds.map((b) => revisionAsOf(store, head, b - 1)));
  const buckets = bounds.slice(0, -1).map((fromSeq, i): HistogramBucket => {
    const next = bounds[i + 1] as number;
    return {
      start: new Date(t0 + i * width).toISOString(),
      end: new Date(t0 + (i + 1) * width).toISOString(),
      fromSeq,
      toSeq: next - 1,
      count: revs === null ? next - fromSeq : (revs[i + 1] as number) - (revs[i] as number),
    };
  });
  return { lastSeq, firstSeq: first.seq, stream, buckets };
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
