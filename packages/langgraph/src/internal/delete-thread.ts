/**
 * `deleteThread` (README "Deleting a thread"): one transition sets every stream of the thread —
 * each namespace's checkpoint stream and its index stream — to `{}`, then each is compacted to
 * that revision.
 */
import type { JsonObject } from '@stateflow/core';
import type { StreamId } from '@stateflow/store';
import type { SaverContext } from './saver-context.js';
import { belongsToThread, indexStreamOf, threadStream } from './stream-names.js';
import { deleteMeta } from './transition-meta.js';

/** The checkpoint streams of the thread (each namespace's), in stream order. */
export async function threadStreams(ctx: SaverContext, threadId: string): Promise<StreamId[]> {
  const root = threadStream(threadId);
  return (await ctx.store.streams()).map((h) => h.stream).filter((s) => belongsToThread(s, root));
}

/**
 * One attempt at the deletion of `streams` (the thread's checkpoint streams, with their index
 * streams), expecting every revision it read.
 * @throws CONFLICT when a writer published meanwhile: the caller tries again.
 */
export async function deleteAttempt(ctx: SaverContext, threadId: string, streams: StreamId[]): Promise<void> {
  const snapshots = await Promise.all(streams.map((s) => ctx.snapshots.take(s)));
  const changes: Record<StreamId, JsonObject> = {};
  const expected: Record<StreamId, number> = {};
  const indexes = await ctx.store.view(snapshots.map((s) => s.index.indexStream));
  const clear = (stream: StreamId, rev: number, state: JsonObject): void => {
    if (Object.keys(state).length === 0) return;
    changes[stream] = Object.fromEntries(Object.keys(state).map((k) => [k, null]));
    expected[stream] = rev;
  };
  for (const snapshot of snapshots) {
    clear(snapshot.index.stream, snapshot.rev, await snapshot.current());
    const index = indexes.streams[snapshot.index.indexStream];
    if (index !== undefined) clear(snapshot.index.indexStream, index.rev, index.state);
  }
  if (Object.keys(changes).length === 0) return;
  const durability = ctx.durability === undefined ? {} : { durability: ctx.durability };
  const result = await ctx.store.publish({ changes, expected, meta: deleteMeta(threadId), ...durability });
  if (result.status === 'accepted') for (const s of snapshots) s.index.apply(result.transition);
}

/** Compact every stream of the deleted thread to its deletion (the data leaves the store). */
export async function compactThread(ctx: SaverContext, streams: StreamId[]): Promise<void> {
  for (const stream of streams) {
    await ctx.store.compact(stream, { keepRevisions: 1 });
    if ((await ctx.store.head(indexStreamOf(stream))).rev > 0) await ctx.store.compact(indexStreamOf(stream), { keepRevisions: 1 });
  }
}
