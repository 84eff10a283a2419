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

/**
 * Commit one batch of a write session (see {@link withWriteSession}); `install`, what the commit
 * does to memory, runs at once when it is written, with the generation the commit wrote. On
 * shared storage a catch-up may have read the commit, or later ones, first: memory moves forward
 * only (`install` keeps to that too).
 */
export type SessionCommit = (ops: StorageOp[], options: { sync: boolean; rewrites?: boolean }, install?: () => void) => Promise<void>;

/** After a commit: the generation it wrote and the caller's `install`. */
function installed(ctx: StoreContext, generation: number, install: (() => void) | undefined): void {
  if (generation > ctx.generation) ctx.generation = generation;
  install?.();
}

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
  const commit: SessionCommit = async (ops, options, install) => {
    ended = true;
    const generation = ctx.generation + (options.rewrites === true ? 1 : 0);
    const tip = { type: 'put' as const, key: tipKey(), value: encodeValue({ seq: nextSeq(ctx, ops), generation }) };
    try {
      await session.commit([...ops, tip], { sync: options.sync });
    } catch (err) {
      throw latchFailure(ctx, err);
    }
    installed(ctx, generation, install);
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

/** How many compare-and-set commits a group tries before it takes a write session. */
const OPTIMISTIC_TRIES = 2;

/** A compare-and-set commit found that another writer committed first: nothing was written. */
class TipMoved extends Error {}

/**
 * Run `work` — a publish group — with the fewest round trips the storage allows. Where it has
 * {@link Storage.commitIf} (a backend many processes write), `work` stages against memory as it
 * is, and its commit is one compare-and-set against the tip record memory holds: it is applied
 * only when no other process committed since this store last read the tip, so every check
 * `work` made against memory held against the storage. When another writer was first, nothing
 * was written: the store catches up and `work` runs again; after {@link OPTIMISTIC_TRIES} tries
 * it runs in a write session ({@link withWriteSession}), which always gets through. When `work`
 * commits nothing (every member refused, a duplicate, a no-op), its answers stand if the tip
 * has not moved meanwhile (one point read), else it runs again. So `work` may run more than
 * once: it must keep its effects until it returns.
 * @throws what {@link withWriteSession} throws
 */
export async function withGroupCommit<T>(ctx: StoreContext, work: (commit: SessionCommit) => Promise<T>): Promise<T> {
  const { storage } = ctx;
  if (storage.commitIf === undefined || storage.capabilities.soleWriter) return withWriteSession(ctx, work);
  for (let attempt = 0; attempt < OPTIMISTIC_TRIES; attempt++) {
    checkWritable(ctx);
    const seen = { seq: ctx.lastSeq, generation: ctx.generation };
    let committed = false;
    const commit: SessionCommit = async (ops, options, install) => {
      const generation = ctx.generation + (options.rewrites === true ? 1 : 0);
      const expect = { key: tipKey(), value: encodeValue(seen) };
      const tip = { type: 'put' as const, key: tipKey(), value: encodeValue({ seq: nextSeq(ctx, ops), generation }) };
      let applied: boolean | undefined;
      try {
        applied = await storage.commitIf?.(expect, [...ops, tip], { sync: options.sync });
      } catch (err) {
        throw latchFailure(ctx, err);
      }
      if (applied !== true) throw new TipMoved();
      committed = true;
      installed(ctx, generation, install);
    };
    try {
      const result = await work(commit);
      if (committed) return result;
      await catchUp(ctx);
      if (ctx.lastSeq === seen.seq && ctx.generation === seen.generation) return result;
    } catch (err) {
      if (!(err instanceof TipMoved)) throw err;
      await catchUp(ctx);
    }
  }
  return withWriteSession(ctx, work);
}

/**
 * Latch a failed commit's error in {@link StoreContext.writeFailure} where the storage needs a
 * reopen after one (`capabilities.reopenAfterFailedWrite`).
 * @returns `err`, to rethrow
 */
function latchFailure(ctx: StoreContext, err: unknown): unknown {
  if (ctx.storage.capabilities.reopenAfterFailedWrite) {
    ctx.writeFailure ??= isStateflowError(err) ? err : new StateflowError('STORE_IO', `Storage write failed: ${String(err)}`, { location: ctx.storage.location, code: null }, { cause: err });
  }
  return err;
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
