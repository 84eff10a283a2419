/**
 * Current states (README "Opening"): a stream's current state is loaded on first use from its
 * latest checkpoint plus the tail, after its head was cross-checked against the log, and kept in
 * memory with its checkpoint debt from then on.
 */
import { isStateflowError } from '@stateflow/core';
import type { JsonObject, StateTree } from '@stateflow/core';
import type { StreamId } from '../types.js';
import { catchUp } from './catch-up.js';
import { verifyHead } from './head-check.js';
import { replayTree } from './replay.js';
import type { TreeReplay } from './replay.js';
import { EMPTY_TREE, headOf } from './store-context.js';
import type { StoreContext } from './store-context.js';

/**
 * Current state, loading it (latest checkpoint + tail) on first use, after cross-checking the
 * head record against the stored log ({@link verifyHead}). `options.exclusive`: the caller
 * holds the exclusive lock already (taking a read lock then would wait for itself).
 */
export async function currentOf(ctx: StoreContext, stream: StreamId, options: { exclusive?: boolean } = {}): Promise<JsonObject> {
  return (await currentTreeOf(ctx, stream, options)).state();
}

/**
 * {@link currentOf} as the tree publication stages against (README "State trees"): reading it
 * builds nothing.
 */
export async function currentTreeOf(ctx: StoreContext, stream: StreamId, options: { exclusive?: boolean } = {}): Promise<StateTree> {
  for (;;) {
    const loaded = ctx.current.get(stream);
    if (loaded !== undefined) return loaded;
    const h = headOf(ctx, stream);
    const load = async (): Promise<TreeReplay | null> => {
      await verifyHead(ctx, stream, h);
      return h.rev === 0 ? null : replayTree(ctx, stream, h.rev, h, { measure: true });
    };
    const generation = ctx.generation;
    let rebuilt: TreeReplay | null;
    try {
      rebuilt = await (options.exclusive === true ? load() : ctx.lock.read(load));
    } catch (err) {
      // The head moved while this load ran (a publish here, a catch-up with another process):
      // the load was against a stale head. Load again.
      if (headOf(ctx, stream) !== h || (await compactedElsewhere(ctx, generation, err))) continue;
      throw err;
    }
    // A state for a head that is no longer the head is not the current state: load again.
    if (ctx.heads.get(stream) !== h && !(h.rev === 0 && !ctx.heads.has(stream))) continue;
    if (rebuilt === null) return ctx.current.get(stream) ?? EMPTY_TREE;
    const current = ctx.current.get(stream);
    if (current !== undefined) return current;
    ctx.current.set(stream, rebuilt.tree);
    ctx.debt.set(stream, rebuilt.debt);
    return rebuilt.tree;
  }
}

/**
 * Whether a load that failed closed (`err`) read records another process's compaction removed
 * while it ran (storage shared with other writers): a catch-up then moves the generation past
 * `generation`, the one the load started at, and the load runs again against the new origin.
 * Anything else is damage.
 */
export async function compactedElsewhere(ctx: StoreContext, generation: number, err: unknown): Promise<boolean> {
  if (ctx.storage.capabilities.soleWriter || !isStateflowError(err, 'STORE_CORRUPT')) return false;
  await catchUp(ctx);
  return ctx.generation !== generation;
}
