/**
 * `stateAt` (README "Historical reads"): a stream at a retained revision is its current state at
 * the head (while it is the head), else the history LRU's copy, else a replay from the nearest checkpoint under a read
 * lock (so no compaction runs meanwhile).
 */
import { StateTree, isStateflowError } from '@stateflow/core';
import type { JsonObject, JsonValue, PatchPathStep } from '@stateflow/core';
import type { StreamId } from '../types.js';
import { currentOf, currentTreeOf } from './current-state.js';
import type { HeadRecord } from './records.js';
import { replay, replayTree, retained } from './replay.js';
import type { StoreContext } from './store-context.js';
import type { StorageReader } from '../storage.js';
import { headOf } from './store-context.js';

/**
 * `stream` at a retained `rev` (`Store.stateAt` once its arguments are checked): the current
 * state at the head, else the history LRU, else a reconstruction under a read lock from the
 * records `reader` holds (the storage, or a read replica that covers `rev`).
 * @throws REVISION_NOT_FOUND, HISTORY_NOT_RETAINED, STORE_CORRUPT
 */
export async function stateAt(ctx: StoreContext, stream: StreamId, rev: number, reader: StorageReader = ctx.storage): Promise<JsonObject> {
  const h = retained(ctx, stream, rev);
  if (rev === h.rev) {
    // The current state is `rev`'s only while `rev` is still the head: a load of it waits, and a
    // publish landing meanwhile makes it a later revision's. Memory moves heads and states
    // together, so a head still at `rev` vouches for the state read with it.
    const current = await currentOf(ctx, stream);
    if (headOf(ctx, stream).rev === rev) return current;
  }
  const key = `${stream}\u0000${rev}`;
  const cached = ctx.history.get(key);
  if (cached !== undefined) return cached;
  const state = await ctx.lock.read(async () => (await replay(ctx, stream, rev, retained(ctx, stream, rev), { reader })).state);
  ctx.history.set(key, state);
  return state;
}

/**
 * The value at `path` of `stream` at a retained `rev` (`Store.valueAt` once its arguments are
 * checked): read from the current state tree at the head, from the history LRU's state when it
 * holds `rev`, else from a replay into a tree under a read lock — the checkpoint (through the
 * LRU; of a paged checkpoint not in it, the root and the page on the path) and the tail,
 * building only the value found.
 * @throws REVISION_NOT_FOUND, HISTORY_NOT_RETAINED, STORE_CORRUPT
 */
export async function valueAt(ctx: StoreContext, stream: StreamId, rev: number, path: readonly PatchPathStep[], reader: StorageReader = ctx.storage): Promise<JsonValue | undefined> {
  const h = retained(ctx, stream, rev);
  if (rev === h.rev) return (await currentTreeOf(ctx, stream)).valueAt(path);
  const cached = ctx.history.get(`${stream}\u0000${rev}`);
  if (cached !== undefined) return StateTree.of(cached).valueAt(path);
  return ctx.lock.read(async () => {
    try {
      // Of a paged checkpoint, only the page on the path (README "Paged checkpoints").
      return (await replayTree(ctx, stream, rev, retained(ctx, stream, rev), { reader, path })).tree.valueAt(path);
    } catch (err) {
      // A partial state that does not replay: the whole one decides (and fails closed when damaged).
      if (!isStateflowError(err, 'STORE_CORRUPT')) throw err;
      return (await replayTree(ctx, stream, rev, retained(ctx, stream, rev), { reader })).tree.valueAt(path);
    }
  });
}

/**
 * `stream` at `rev` for callers that hold the write lock (no compaction can run meanwhile);
 * `options.exclusive` when they hold the exclusive lock ({@link currentOf}).
 */
export async function stateAtUnlocked(ctx: StoreContext, stream: StreamId, rev: number, options: { exclusive?: boolean } = {}): Promise<JsonObject> {
  const h = retained(ctx, stream, rev);
  if (rev === h.rev) return currentOf(ctx, stream, options);
  return reconstruct(ctx, stream, rev, h);
}

/** Rebuild `stream` at `rev` ({@link replay}). */
async function reconstruct(ctx: StoreContext, stream: StreamId, rev: number, h: HeadRecord): Promise<JsonObject> {
  return (await replay(ctx, stream, rev, h)).state;
}
