/**
 * Where a stream stood at a global seq, and which seq produced one of its revisions, through the
 * store's public API only: `transitions({ stream, from })` walks the stream's seq index lazily,
 * so its first item after a seq names the revision that followed it (one seek); a revision's seq
 * is one point read of the revision index (store `revisionSeq`).
 */
import { StateflowError } from '@stateflow/core';
import type { Store, StreamHead, StreamId, Transition } from '@stateflow/store';

/** The first retained transition changing `stream` with seq ≥ `from`, or `null`. */
export async function nextTransition(store: Store, stream: StreamId, from: number): Promise<Transition | null> {
  for await (const transition of store.transitions({ stream, from })) return transition;
  return null;
}

/** The revision of `transition` on `stream` (the transition must have changed it). */
export function revisionIn(transition: Transition, stream: StreamId): number {
  const change = transition.changes.find((c) => c.stream === stream);
  if (change === undefined) throw new StateflowError('STORE_CORRUPT', `Transition ${transition.seq} is indexed under ${stream} but does not change it`, { stream, key: `seq ${transition.seq}`, detail: 'seq index' });
  return change.rev;
}

/**
 * The revision `stream` had as of global `seq` (0 before its first transition).
 * @param head the stream's head, read once by the caller.
 * @throws HISTORY_NOT_RETAINED `{ stream, rev, origin }` when that revision is below the origin.
 */
export async function revisionAsOf(store: Store, head: StreamHead, seq: number): Promise<number> {
  const rev = await retainedRevisionAsOf(store, head, seq);
  // Compaction pruned the transitions up to the origin: a seq before the first retained one may
  // lie before the origin's own transition. The store answers that from its seq index.
  if (head.origin > 0 && rev === head.origin) await store.statesAt([head.stream], seq);
  return rev;
}

/** The revision as of `seq` read from the retained transitions only: the origin for any seq before the first one kept. */
export async function retainedRevisionAsOf(store: Store, head: StreamHead, seq: number): Promise<number> {
  if (seq >= head.seq) return head.rev;
  const next = await nextTransition(store, head.stream, seq + 1);
  return next === null ? head.rev : revisionIn(next, head.stream) - 1;
}

/**
 * The global seq of the transition that produced revision `rev` (1 ≤ rev ≤ head) of a stream:
 * one point read of the store's revision index (store `revisionSeq`).
 * Call it only for revisions above the origin: the transitions at or below it may be pruned.
 */
export async function seqOfRevision(store: Store, head: StreamHead, rev: number): Promise<number> {
  if (rev >= head.rev) return head.seq;
  return store.revisionSeq(head.stream, rev);
}
