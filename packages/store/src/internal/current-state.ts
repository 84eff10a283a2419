/**
 * Current states (README "Opening"): a stream's current state is loaded on first use from its
 * latest checkpoint plus the tail, after its head was cross-checked against the log, and kept in
 * memory with its checkpoint debt from then on.
 */
import type { JsonObject } from '@stateflow/core';
import type { StreamId } from '../types.js';
import { verifyHead } from './head-check.js';
import { replay } from './replay.js';
import type { Replay } from './replay.js';
import { EMPTY, headOf } from './store-context.js';
import type { StoreContext } from './store-context.js';

/**
 * Current state, loading it (latest checkpoint + tail) on first use, after cross-checking the
 * head record against the stored log ({@link verifyHead}). `options.exclusive`: the caller
 * holds the exclusive lock already (taking a read lock then would wait for itself).
 */
export async function currentOf(ctx: StoreContext, stream: StreamId, options: { exclusive?: boolean } = {}): Promise<JsonObject> {
  const loaded = ctx.current.get(stream);
  if (loaded !== undefined) return loaded;
  const h = headOf(ctx, stream);
  const load = async (): Promise<Replay | null> => {
    await verifyHead(ctx, stream, h);
    return h.rev === 0 ? null : replay(ctx, stream, h.rev, h, { measure: true });
  };
  let rebuilt: Replay | null;
  try {
    rebuilt = await (options.exclusive === true ? load() : ctx.lock.read(load));
  } catch (err) {
    // A publish may have moved the head while this load ran: the check was against a stale head.
    if (headOf(ctx, stream) !== h) return currentOf(ctx, stream, options);
    throw err;
  }
  if (rebuilt === null) return ctx.current.get(stream) ?? EMPTY;
  // A publish may have installed a newer state while this load ran; never overwrite it.
  if (!ctx.current.has(stream) && ctx.heads.get(stream) === h) {
    ctx.current.set(stream, rebuilt.state);
    ctx.debt.set(stream, rebuilt.debt);
  }
  return ctx.current.get(stream) ?? rebuilt.state;
}
