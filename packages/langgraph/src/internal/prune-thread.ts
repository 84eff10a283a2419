/**
 * `prune` with `keep_latest` (README "Pruning threads"): each checkpoint stream of a thread is
 * compacted so its origin is the revision just before its most recent `put` — compaction prunes
 * the transition of the origin revision itself, and a checkpoint's metadata is its put's
 * transition, so the put stays above the origin. That checkpoint and every write after it stay
 * readable; older checkpoints leave the store (pruned stubs keep the hash chain). The head is not moved, so write fencing and the next put go on as before.
 */
import type { StreamId } from '@stateflow/store';
import type { SaverContext } from './saver-context.js';

/** The revision of the last `put` of `stream` at or below its head (its origin when none is retained). */
async function lastPutRevision(ctx: SaverContext, stream: StreamId): Promise<number> {
  const head = await ctx.store.head(stream);
  for (let rev = head.rev; rev > head.origin; rev--) {
    const t = await ctx.store.transition(await ctx.store.revisionSeq(stream, rev));
    const meta = t.meta?.langgraph;
    if (meta !== null && typeof meta === 'object' && !Array.isArray(meta) && meta.op === 'put') return rev;
  }
  return head.origin;
}

/** Keep only the latest checkpoint (and its writes) of each of `streams`; the revisions removed. */
export async function keepLatest(ctx: SaverContext, streams: StreamId[]): Promise<number> {
  let removed = 0;
  for (const stream of streams) {
    const rev = await lastPutRevision(ctx, stream);
    const head = await ctx.store.head(stream);
    if (rev - 1 > head.origin) removed += (await ctx.store.compact(stream, { keepRevisions: head.rev - rev + 2 })).deleted;
  }
  return removed;
}
