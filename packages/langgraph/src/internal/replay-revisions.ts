/**
 * `copyThread` and `deleteForRuns` (README "Copying a thread, deleting runs"): both publish a
 * namespace's retained revisions again, in order, through the saver's one publish path — each
 * revision's state, its meta (the thread id rewritten) and its index entry — on another stream
 * (a copy) or on the same stream after clearing it (a rewrite without some checkpoints, then
 * compacted, so what was left out leaves the store). The log stays append-only and its chain
 * verifiable: nothing already written changes; compaction prunes as it always does.
 */
import { StateflowError, isJsonObject } from '@stateflow/core';
import type { JsonObject } from '@stateflow/core';
import { retryOnConflict } from '@stateflow/store';
import type { StreamId } from '@stateflow/store';
import { deleteAttempt, threadStreams } from './delete-thread.js';
import { stateCheckpointId } from './revision-state.js';
import { publishRevision } from './saver-context.js';
import type { PointsTo, SaverContext } from './saver-context.js';
import { indexStreamOf } from './stream-names.js';
import { loadMetadata, revisionMeta } from './transition-meta.js';
import type { RevisionMeta } from './transition-meta.js';

/** One retained revision of a namespace stream: where it is and what its transition said. */
interface RetainedRevision {
  rev: number;
  meta: JsonObject | undefined;
  /** `meta.langgraph` decoded (`null`: a revision another tool wrote). */
  lg: RevisionMeta | null;
}

/**
 * The revisions of `stream` above its origin and at most `upTo` (default: its head), oldest
 * first — after its last deletion when one is retained (what came before it is no longer the
 * thread's). Revisions another tool wrote (no `meta.langgraph`) are kept: their state is the
 * stream's. Reads transitions only, no state.
 */
async function retainedRevisions(ctx: SaverContext, stream: StreamId, upTo?: number): Promise<RetainedRevision[]> {
  const head = await ctx.store.head(stream);
  const out: RetainedRevision[] = [];
  for (let rev = head.origin + 1; rev <= (upTo ?? head.rev); rev++) {
    const transition = await ctx.store.transition(await ctx.store.revisionSeq(stream, rev));
    const lg = revisionMeta(transition);
    if (lg?.op === 'delete') out.length = 0;
    else out.push({ rev, meta: transition.meta, lg });
  }
  return out;
}

/** `meta` with its `langgraph.thread_id` set to `threadId` (other metas as they are). */
function retargeted(meta: JsonObject | undefined, threadId: string): JsonObject {
  const lg = meta?.['langgraph'];
  if (meta === undefined) return {};
  return isJsonObject(lg) ? { ...meta, langgraph: { ...lg, thread_id: threadId } } : meta;
}

/**
 * Publish `revisions` of `source` on `target` (a namespace stream of `threadId`), in order,
 * each as one revision whose state is the source revision's state, with its meta and its index
 * entry — a put points the index at its checkpoint; a revision whose state is another
 * checkpoint than the one before switches back to it — skipping revisions whose state is a
 * checkpoint `skip` names. A revision that would change nothing is not published.
 * @throws CONFLICT when another writer published on `target` meanwhile (the rest is not published).
 */
async function republish(ctx: SaverContext, source: StreamId, target: StreamId, threadId: string, revisions: readonly RetainedRevision[], skip: ReadonlySet<string>): Promise<void> {
  for (const revision of revisions) {
    const state = await ctx.store.stateAt(source, revision.rev);
    const id = stateCheckpointId(state);
    if (id !== undefined && skip.has(id)) continue;
    const snapshot = await ctx.snapshots.take(target);
    const put = revision.lg?.op === 'put';
    let pointsTo: PointsTo = null;
    if (id !== undefined && (put || id !== stateCheckpointId(await snapshot.current()))) pointsTo = { id, put };
    await publishRevision(ctx, snapshot, state, retargeted(revision.meta, threadId), pointsTo);
  }
}

/**
 * Copy every retained revision of each namespace stream in `sources` to the stream `targets`
 * names for it (same order), as revisions of thread `toThreadId`: every checkpoint the source
 * lists, with its writes and metadata, listed and found by id on the target.
 * @throws StateflowError `INPUT_INVALID` `{ field: 'to_thread_id', reason: 'not-empty' }` when a
 *   stream of `toThreadId` holds a checkpoint (nothing is written); `CONFLICT` when another writer
 *   published on a target meanwhile.
 */
export async function copyStreams(ctx: SaverContext, sources: readonly StreamId[], targets: readonly StreamId[], toThreadId: string): Promise<void> {
  for (const stream of await threadStreams(ctx, toThreadId)) {
    if (Object.keys(await (await ctx.snapshots.take(stream)).current()).length > 0) {
      throw new StateflowError('INPUT_INVALID', `copyThread: thread ${JSON.stringify(toThreadId)} already has checkpoints (${stream}); copy to a new thread, or delete it first`, { field: 'to_thread_id', reason: 'not-empty' });
    }
  }
  for (const [i, source] of sources.entries()) {
    await republish(ctx, source, targets[i] as StreamId, toThreadId, await retainedRevisions(ctx, source), new Set());
  }
}

/** Clearing attempts of {@link deleteRunsFrom} lost to another writer before it gives up. */
const CLEAR_ATTEMPTS = 16;

/** The checkpoints of `revisions` whose put's metadata has a `run_id` in `runIds`. */
async function checkpointsOfRuns(ctx: SaverContext, revisions: readonly RetainedRevision[], runIds: ReadonlySet<string>): Promise<Set<string>> {
  const ids = new Set<string>();
  for (const { lg } of revisions) {
    if (lg?.op !== 'put' || lg.checkpointId === undefined) continue;
    const runId = ((await loadMetadata(ctx.serde, lg.metadata)) as Record<string, unknown> | undefined)?.['run_id'];
    if (typeof runId === 'string' && runIds.has(runId)) ids.add(lg.checkpointId);
  }
  return ids;
}

/**
 * Remove the checkpoints of `runIds` (and their writes) from namespace stream `stream` of
 * `threadId`, when it has any: one transition clears the stream and its index (as a deletion
 * does), the retained revisions of every other checkpoint are published again after it, then
 * both streams are compacted to the clearing revision. Returns the number of checkpoints removed.
 * @throws CONFLICT when another writer keeps publishing on the stream (the clearing is retried
 *   {@link CLEAR_ATTEMPTS} times) or publishes while the rest is published again.
 */
export async function deleteRunsFrom(ctx: SaverContext, stream: StreamId, threadId: string, runIds: ReadonlySet<string>): Promise<number> {
  if ((await checkpointsOfRuns(ctx, await retainedRevisions(ctx, stream), runIds)).size === 0) return 0;
  await retryOnConflict({ attempts: CLEAR_ATTEMPTS }, () => deleteAttempt(ctx, threadId, [stream]));
  const cleared = (await ctx.store.head(stream)).rev;
  const index = indexStreamOf(stream);
  const indexCleared = (await ctx.store.head(index)).rev;
  // Read again up to the clearing: a writer may have added revisions since the first look.
  const revisions = await retainedRevisions(ctx, stream, cleared - 1);
  const removed = await checkpointsOfRuns(ctx, revisions, runIds);
  await republish(ctx, stream, stream, threadId, revisions, removed);
  await ctx.store.compact(stream, { keepRevisions: (await ctx.store.head(stream)).rev - cleared + 1 });
  const indexHead = (await ctx.store.head(index)).rev;
  if (indexHead > 0) await ctx.store.compact(index, { keepRevisions: indexHead - indexCleared + 1 });
  return removed.size;
}
