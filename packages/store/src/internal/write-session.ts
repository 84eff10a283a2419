/**
 * Write sessions (README "Storage seam"): every write of the store — a publish group, fork,
 * revert, append, compaction, the format record — runs in the storage's one write session,
 * after catching up with other processes, and commits with the tip record `M/tip`.
 */
import { StateflowError, isStateflowError } from '@stateflow/core';
import type { StorageOp } from '../storage.js';
import { catchUp } from './catch-up.js';
import { encodeValue } from './codec.js';
import { Family, parseKey, tipKey } from './keys.js';
import { checkWritable } from './store-context.js';
import type { StoreContext } from './store-context.js';

/** Commit one batch of a write session (see {@link withWriteSession}). */
export type SessionCommit = (ops: StorageOp[], options: { sync: boolean; rewrites?: boolean }) => Promise<void>;

/**
 * Run `work` in the storage's write session (the one writer across every process sharing the
 * storage), after catching up with what other processes committed ({@link catchUp}), so that
 * every check `work` makes against memory — heads, expected revisions, the chain tip, ids — is
 * a check against the storage as it is. `commit` writes `ops` with the tip record `M/tip`
 * (`rewrites`: the commit changes existing records, e.g. a compaction, and moves the
 * generation) and ends the session; a session `work` leaves without committing is aborted.
 * A failed commit latches {@link StoreContext.writeFailure} where the storage needs a reopen
 * after one (`capabilities.reopenAfterFailedWrite`): every later write then fails with
 * REOPEN_REQUIRED, reads keep working.
 * @throws REOPEN_REQUIRED after a failed write, STORE_CLOSED; what `work` throws; the storage's
 *   errors (STORE_IO, STORE_UNAVAILABLE, …)
 */
export async function withWriteSession<T>(ctx: StoreContext, work: (commit: SessionCommit) => Promise<T>): Promise<T> {
  const session = await ctx.storage.beginWrite();
  let ended = false;
  const commit: SessionCommit = async (ops, options) => {
    ended = true;
    const generation = ctx.generation + (options.rewrites === true ? 1 : 0);
    const tip = { type: 'put' as const, key: tipKey(), value: encodeValue({ seq: nextSeq(ctx, ops), generation }) };
    try {
      await session.commit([...ops, tip], { sync: options.sync });
    } catch (err) {
      if (ctx.storage.capabilities.reopenAfterFailedWrite) {
        ctx.writeFailure ??= isStateflowError(err) ? err : new StateflowError('STORE_IO', `Storage write failed: ${String(err)}`, { location: ctx.storage.location, code: null }, { cause: err });
      }
      throw err;
    }
    ctx.generation = generation;
  };
  try {
    // Checked once the sessions before this one ended: one of them may have failed (or closed the store).
    checkWritable(ctx);
    if (!ctx.storage.capabilities.soleWriter) await catchUp(ctx);
    return await work(commit);
  } finally {
    if (!ended) await session.abort();
  }
}

/** The last seq once `ops` are written: the highest log record they put, else the store's. */
function nextSeq(ctx: StoreContext, ops: StorageOp[]): number {
  let seq = ctx.lastSeq;
  for (const op of ops) {
    if (op.type !== 'put' || op.key[0] !== Family.log) continue;
    const parsed = parseKey(op.key);
    if (parsed.family === 'log' && parsed.seq > seq) seq = parsed.seq;
  }
  return seq;
}
