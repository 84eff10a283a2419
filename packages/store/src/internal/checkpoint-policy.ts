/**
 * When a revision gets a checkpoint (README "Checkpoint policy"): this module owns the K rule and
 * the byte rule, and the per-stream "checkpoint debt" (encoded net-patch bytes accumulated since
 * the stream's latest checkpoint, and that checkpoint's size) that the byte rule is decided on.
 * Publication decides with it when writing a batch; history measures the debt when it loads a
 * stream's current state.
 */

/**
 * Accumulated net-patch bytes of a stream since its latest checkpoint, and that checkpoint's
 * size (0 when the base is the empty state). Drives the byte rule of {@link checkpointDue}.
 */
export interface CheckpointDebt {
  patchBytes: number;
  checkpointBytes: number;
}

/** The debt of a stream with nothing accumulated (no checkpoint, no patches). */
export const NO_DEBT: CheckpointDebt = Object.freeze({ patchBytes: 0, checkpointBytes: 0 });

/**
 * Floor of the byte rule: a checkpoint is written early only once at least this many bytes of
 * encoded net patches accumulated since the stream's latest checkpoint (64 KiB).
 */
export const CHECKPOINT_MIN_PATCH_BYTES = 64 * 1024;

/**
 * Whether revision `rev` gets a checkpoint: every K revisions, or (byte rule) when the encoded
 * net patches since the latest checkpoint, this revision's included, add up to at least that
 * checkpoint's size and at least {@link CHECKPOINT_MIN_PATCH_BYTES}. Replay from a checkpoint
 * then never decodes more patch bytes than about one state, and never more than K−1 patches.
 */
export function checkpointDue(rev: number, k: number, debt: CheckpointDebt): boolean {
  return rev % k === 0 || debt.patchBytes >= Math.max(debt.checkpointBytes, CHECKPOINT_MIN_PATCH_BYTES);
}
