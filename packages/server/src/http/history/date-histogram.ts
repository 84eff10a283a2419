/**
 * The time cursor's histogram over meta dates (contract `historyHistogramRoute`, `axis: 'date'`):
 * the time the transitions' meta says (`meta.date`, or `meta.import.date` of an imported history:
 * the commit's date, not the import's), instead of when the store accepted them — an import of
 * 13 years of commits is accepted in a second. Meta dates are not indexed, so the stream's
 * transitions are read (at most {@link DATE_AXIS_SCAN}); buckets span equal date ranges, each
 * with the lowest and highest seq it holds (dates that go backwards make ranges overlap).
 */
import { StateflowError } from '@stateflow/core';
import { DATE_AXIS_SCAN } from '@stateflow/http-contract';
import type { Histogram, HistogramBucket } from '@stateflow/http-contract';
import type { Store, StreamId } from '@stateflow/store';
import { metaDate } from '../insight/transition-ref.js';

/**
 * The histogram of `stream`'s transitions over their meta dates.
 * @throws INPUT_INVALID `{ field: 'stream' }` without a stream
 */
export async function dateHistogram(store: Store, options: { buckets: number; stream?: StreamId }): Promise<Histogram> {
  const { stream } = options;
  if (stream === undefined) throw new StateflowError('INPUT_INVALID', 'The meta-date axis counts one stream: pass ?stream=<stream id> with axis=date.', { field: 'stream' });
  const lastSeq = store.lastSeq();
  const dated: Array<{ seq: number; at: number }> = [];
  let undated = 0;
  let read = 0;
  let truncated = false;
  let firstSeq = lastSeq + 1;
  for await (const transition of store.transitions({ stream })) {
    if (++read > DATE_AXIS_SCAN) {
      truncated = true;
      break;
    }
    firstSeq = Math.min(firstSeq, transition.seq);
    const date = metaDate(transition.meta);
    if (date === undefined) undated++;
    else dated.push({ seq: transition.seq, at: Date.parse(date) });
  }
  return { lastSeq, firstSeq, stream, axis: 'date', buckets: bucketsOf(dated, options.buckets), undated, truncated };
}

function bucketsOf(dated: Array<{ seq: number; at: number }>, count: number): HistogramBucket[] {
  if (dated.length === 0) return [];
  const t0 = Math.min(...dated.map((d) => d.at));
  const t1 = Math.max(...dated.map((d) => d.at));
  const width = (t1 - t0 + 1) / count;
  const buckets = Array.from({ length: count }, (_, i) => ({ start: t0 + i * width, end: t0 + (i + 1) * width, fromSeq: Infinity, toSeq: -Infinity, count: 0 }));
  for (const { seq, at } of dated) {
    const bucket = buckets[Math.min(count - 1, Math.floor((at - t0) / width))];
    if (bucket === undefined) continue;
    bucket.count++;
    bucket.fromSeq = Math.min(bucket.fromSeq, seq);
    bucket.toSeq = Math.max(bucket.toSeq, seq);
  }
  // An empty bucket takes the seq after the previous one's range, with an empty range (toSeq < fromSeq), as the time axis does.
  let after = Math.min(...dated.map((d) => d.seq)) - 1;
  return buckets.map((b) => {
    const fromSeq = b.count === 0 ? after + 1 : b.fromSeq;
    const toSeq = b.count === 0 ? after : b.toSeq;
    after = Math.max(after, toSeq);
    return { start: new Date(b.start).toISOString(), end: new Date(b.end).toISOString(), fromSeq, toSeq, count: b.count };
  });
}
