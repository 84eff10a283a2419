/**
 * When a revision gets a checkpoint (README "Checkpoint policy"): this module owns the replay
 * budget and the per-stream "checkpoint debt" (the records a read of the head would replay since
 * the stream's latest checkpoint, and that checkpoint's size) it is decided on. Publication
 * decides with it when writing a batch; history measures the debt when it loads a stream's
 * current state.
 */
import type { JsonObject } from '@stateflow/core';
import type { PageLayout, TailPatch } from './paged-checkpoint.js';

/**
 * What a read at the stream's head would cost beyond its latest checkpoint: `base` is that
 * checkpoint's revision (0: none, the empty state), `checkpointBytes` what reading from it costs
 * (0 for none; its size, and of a paged checkpoint what a path read reads — the root, one
 * directory and one page — so that a large state's tail is kept as short as a small one's:
 * README "Paged checkpoints"), `tailBytes` the encoded net patches
 * since it and `tailCount` how many there are. When that checkpoint is paged and memory knows
 * its `layout`, `tail` holds the net patches since it, so that the next checkpoint writes only
 * the pages they touched (README "Paged checkpoints").
 */
export interface CheckpointDebt {
  base: number;
  checkpointBytes: number;
  tailBytes: number;
  tailCount: number;
  layout?: PageLayout | undefined;
  tail?: TailPatch | null | undefined;
}

/** The debt of a stream with nothing accumulated (no checkpoint, no patches). */
export const NO_DEBT: CheckpointDebt = Object.freeze({ base: 0, checkpointBytes: 0, tailBytes: 0, tailCount: 0 });

/**
 * Cost of reading one record besides its bytes (a point read, a seal, a decode), in bytes: a
 * tail of many tiny patches costs more than its bytes say.
 */
export const RECORD_COST_BYTES = 64;

/** A tail may cost this fraction of reading the checkpoint it starts from before the next checkpoint. */
export const REPLAY_BUDGET = 0.25;

/**
 * Floor of the budget, in bytes: tiny states (where a quarter of the checkpoint is a patch or
 * two) still replay a few records rather than checkpoint every revision.
 */
export const MIN_REPLAY_BUDGET_BYTES = 512;

/** The debt after one more revision whose net patch `patch` encodes in `patchBytes`. */
export function withPatch(debt: CheckpointDebt, patchBytes: number, patch: JsonObject): CheckpointDebt {
  const next: CheckpointDebt = { ...debt, tailBytes: debt.tailBytes + patchBytes, tailCount: debt.tailCount + 1 };
  if (debt.layout !== undefined) next.tail = { patch, prev: debt.tail ?? null };
  return next;
}

/** The debt right after a checkpoint of `checkpointBytes` at `rev` (`layout`: a paged one's). */
export function afterCheckpoint(rev: number, checkpointBytes: number, layout?: PageLayout): CheckpointDebt {
  return layout === undefined ? { base: rev, checkpointBytes, tailBytes: 0, tailCount: 0 } : { base: rev, checkpointBytes, tailBytes: 0, tailCount: 0, layout, tail: null };
}

/**
 * Whether revision `rev` (its patch already in `debt`) gets a checkpoint: when the tail since
 * the latest checkpoint, at {@link RECORD_COST_BYTES} per record plus its bytes, reaches
 * {@link REPLAY_BUDGET} of reading that checkpoint (at least {@link MIN_REPLAY_BUDGET_BYTES}),
 * or when it holds `k` revisions. A read then replays at most K−1 patches and about a quarter
 * of a checkpoint read's worth of bytes (of a paged checkpoint, a quarter of a path read's).
 */
export function checkpointDue(rev: number, k: number, debt: CheckpointDebt): boolean {
  if (rev - debt.base >= k) return true;
  const tail = debt.tailBytes + RECORD_COST_BYTES * debt.tailCount;
  return tail >= Math.max(REPLAY_BUDGET * (debt.checkpointBytes + RECORD_COST_BYTES), MIN_REPLAY_BUDGET_BYTES);
}
