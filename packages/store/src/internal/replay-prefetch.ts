/**
 * A historical read in one round trip (README "Historical reads"), on a reader that has
 * `readRanges`: the key ranges a replay of `rev` reads — the newest checkpoint at or below it,
 * the revision-index records after it, the pages written at it or after — are fetched
 * together, and the replay then reads through a {@link PrefetchedReader}. The checkpoint is
 * looked for among the `checkpointInterval` revisions ending at `rev` (a replay starts at most
 * that far back); whatever a replay needs outside what came back (a checkpoint named further
 * back, a page kept from an older checkpoint) is read as before, so the ranges decide only how
 * many round trips a read takes, never what it reads.
 */
import type { PatchPathStep } from '@stateflow/core';
import type { StreamId } from '../types.js';
import { checkpointKey, pageRange, revKey } from './keys.js';
import { PrefetchedReader } from './prefetched-reader.js';
import type { HeadRecord } from './records.js';
import type { StoreContext } from './store-context.js';
import type { RangeRead, StorageReader } from '../storage.js';

/** Most pages fetched ahead: the rest of a larger paged state is read as before. */
const PAGE_LIMIT = 1024;

/**
 * The ranges a replay of `stream` at `rev` reads: the newest checkpoint in the window, then the
 * revision records after it and (for a whole state, `whole`: a path read reads one page) the
 * pages written at it or after — both starting at the checkpoint found (`from`: the same stream
 * and number behind another family byte), so what comes back is what the replay reads. Above
 * `after` only (a revision whose state the history LRU holds): a replay starting there reads
 * no checkpoint, so none at or below it is fetched.
 */
export function replayRanges(stream: StreamId, rev: number, window: { origin: number; k: number; after: number | null }, whole: boolean): RangeRead[] {
  const from = window.after === null ? Math.max(window.origin, rev - window.k + 1) : window.after + 1;
  const found = { range: 0, prefix: 1 };
  const ranges: RangeRead[] = [
    { gte: checkpointKey(stream, from), lt: checkpointKey(stream, rev + 1), reverse: true, limit: 1 },
    { gte: revKey(stream, Math.max(from, 1)), lt: revKey(stream, rev + 1), limit: Math.max(rev - Math.max(from, 1) + 1, 0), from: found },
  ];
  if (whole) ranges.push({ ...pageRange(stream, from, rev), limit: PAGE_LIMIT, from: { ...found, inclusive: true } });
  return ranges;
}

/** The newest revision in `[from, rev]` whose state the history LRU holds, or `null`. */
function newestCached(ctx: StoreContext, stream: StreamId, from: number, rev: number): number | null {
  for (let r = rev; r >= from; r--) if (ctx.history.has(`${stream}\u0000${r}`)) return r;
  return null;
}

/** `reader`, or — when it reads ranges in one round trip — a reader that holds the replay's ranges. */
export async function replayReader(ctx: StoreContext, stream: StreamId, rev: number, h: HeadRecord, reader: StorageReader, options: { path?: readonly PatchPathStep[] }): Promise<StorageReader> {
  if (reader.readRanges === undefined || rev === 0) return reader;
  const k = ctx.settings.checkpointInterval;
  const after = newestCached(ctx, stream, Math.max(h.origin, rev - k + 1), rev);
  const ranges = replayRanges(stream, rev, { origin: h.origin, k, after }, options.path === undefined);
  return new PrefetchedReader(reader, ranges, await reader.readRanges(ranges));
}
