/**
 * Historical reads from read replicas (README "Read replicas"; the seam's "Read replicas"):
 * a read of history — a state or patch at a revision, a transition, a range of the log, an
 * audit — is served from a replica whose tip record shows it holds every commit the read needs
 * (its tip's seq at or past the seq the read reads up to, at this store's generation, so no
 * compaction it has not seen), and from the storage itself otherwise. A replica never answers
 * for a seq it lacks: a lagging one is passed over, and one that fails (unreachable, stopped
 * mid-read, a record it cannot give) is skipped for {@link SKIP_MS} while the read runs again
 * on the storage.
 *
 * When memory already knows what a read needs (a revision at or below the head it knows, a seq
 * at or below its last one), the answer is fixed whatever other processes commit later, so it
 * is read — from a covering replica, else from the storage — without first reading the
 * storage's tip; otherwise the store first catches up with the storage, as every other read on
 * shared storage does. (Compaction by another process is the one change to history: a read it
 * removed the records of fails, and runs again after a catch-up, which then refuses it.)
 */
import { isStateflowError } from '@stateflow/core';
import type { StorageReader, StorageReplica } from '../storage.js';
import { catchUp, readTip } from './catch-up.js';
import { compactedElsewhere } from './current-state.js';
import type { TipRecord } from './records.js';
import type { StoreContext } from './store-context.js';

/** How long a replica that failed is passed over, in ms. */
const SKIP_MS = 5_000;

/** What this process knows of a replica: its last tip read, and until when it is passed over. */
interface ReplicaState {
  tip: TipRecord | null;
  skipUntil: number;
}

const states = new WeakMap<StorageReplica, ReplicaState>();

function stateOf(replica: StorageReplica): ReplicaState {
  let state = states.get(replica);
  if (state === undefined) {
    state = { tip: null, skipUntil: 0 };
    states.set(replica, state);
  }
  return state;
}

/** Whether `tip` holds every commit up to `seq` at the store's generation. */
const covers = (ctx: StoreContext, tip: TipRecord | null, seq: number): boolean => tip !== null && tip.seq >= seq && tip.generation === ctx.generation;

/** A failure that says nothing about the store, only about the copy it was read from. */
const replicaFailure = (err: unknown): boolean => isStateflowError(err) && (err.code === 'STORE_UNAVAILABLE' || err.code === 'STORE_IO' || err.code === 'STORE_CORRUPT');

function skip(replica: StorageReplica): void {
  const state = stateOf(replica);
  state.tip = null;
  state.skipUntil = Date.now() + SKIP_MS;
}

/**
 * A replica that holds every commit up to `seq`, or `null`. A replica whose last known tip does
 * not cover `seq` has its tip read again (one point read on the replica).
 */
async function coveringReplica(ctx: StoreContext, seq: number): Promise<StorageReplica | null> {
  for (const replica of ctx.storage.replicas ?? []) {
    const state = stateOf(replica);
    if (state.skipUntil > Date.now()) continue;
    if (!covers(ctx, state.tip, seq)) {
      try {
        state.tip = await readTip(replica);
      } catch (err) {
        if (!replicaFailure(err)) throw err;
        skip(replica);
        continue;
      }
    }
    if (covers(ctx, state.tip, seq)) return replica;
  }
  return null;
}

/**
 * Run `read` on a replica that covers `seq`, else on the storage; a replica that fails during
 * it is skipped and `read` runs on the storage.
 */
async function onCovering<T>(ctx: StoreContext, seq: number | null, read: (reader: StorageReader) => Promise<T>): Promise<T> {
  const replica = seq === null || (ctx.storage.replicas?.length ?? 0) === 0 ? null : await coveringReplica(ctx, seq);
  if (replica !== null) {
    try {
      return await read(replica);
    } catch (err) {
      if (!replicaFailure(err)) throw err;
      skip(replica);
    }
  }
  return read(ctx.storage);
}

/**
 * Run the historical read `read` (see the module header): when memory knows what it needs, on
 * a covering replica or the storage without a catch-up — and should that fail with a storage
 * error (another process compacted what memory still counts as retained), once more after
 * one —; otherwise after a catch-up, and again after another while it fails closed because
 * another process compacted meanwhile. `read` must be safe to run twice (it only reads).
 * @param need the seq `read` reads up to as memory knows it (called before and after a
 *   catch-up), or `null` when memory cannot tell
 */
export async function readHistory<T>(ctx: StoreContext, need: () => number | null, read: (reader: StorageReader) => Promise<T>): Promise<T> {
  const shared = !ctx.storage.capabilities.soleWriter;
  const known = need();
  if (known !== null || !shared) {
    try {
      return await onCovering(ctx, known, read);
    } catch (err) {
      if (!shared || !replicaFailure(err)) throw err;
    }
  }
  for (;;) {
    await catchUp(ctx);
    const generation = ctx.generation;
    try {
      return await onCovering(ctx, need(), read);
    } catch (err) {
      // Another process compacted what it read meanwhile: run again against the new origin.
      if (!shared || !(await compactedElsewhere(ctx, generation, err))) throw err;
    }
  }
}

/**
 * {@link readHistory} for a read that yields as it goes (a range of the log): should the first
 * reader fail part-way, the storage — caught up — yields the rest, from the first seq not yet
 * yielded.
 * @param need the seq the range reads up to as memory knows it, before (`false`) and after
 *   (`true`) a catch-up — an open range knows it only after one — or `null` when memory cannot tell
 * @param read yields items in rising `seq` order, from the given first seq on
 */
export async function* readHistoryStream<T extends { seq: number }>(ctx: StoreContext, from: number, need: (caughtUp: boolean) => number | null, read: (reader: StorageReader, from: number) => AsyncIterable<T>): AsyncGenerator<T> {
  const shared = !ctx.storage.capabilities.soleWriter;
  let seq = need(false);
  if (seq === null && shared) {
    await catchUp(ctx);
    seq = need(true);
  }
  const replica = seq === null || (ctx.storage.replicas?.length ?? 0) === 0 ? null : await coveringReplica(ctx, seq);
  let next = from;
  if (replica !== null || shared) {
    try {
      for await (const item of read(replica ?? ctx.storage, next)) {
        next = item.seq + 1;
        yield item;
      }
      return;
    } catch (err) {
      if (!replicaFailure(err)) throw err;
      if (replica !== null) skip(replica);
    }
    if (shared) await catchUp(ctx);
  }
  yield* read(ctx.storage, next);
}

/**
 * {@link readHistory} for a read of a whole snapshot (the audit): on a replica, the snapshot
 * serves only when its own tip covers `seq` (the storage's tip, read just before); else it runs
 * on the storage.
 */
export async function snapshotHistory<T>(ctx: StoreContext, read: (reader: StorageReader) => Promise<T>): Promise<T> {
  if ((ctx.storage.replicas?.length ?? 0) === 0) return ctx.storage.snapshot(read);
  if (!ctx.storage.capabilities.soleWriter) await catchUp(ctx);
  const seq = ctx.lastSeq;
  const replica = await coveringReplica(ctx, seq);
  if (replica !== null) {
    try {
      const outcome = await replica.snapshot(async (reader) => (covers(ctx, await readTip(reader), seq) ? { value: await read(reader) } : null));
      if (outcome !== null) return outcome.value;
    } catch (err) {
      if (!replicaFailure(err)) throw err;
      skip(replica);
    }
  }
  return ctx.storage.snapshot(read);
}
