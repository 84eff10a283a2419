/**
 * Optimistic concurrency on the store's CAS (DESIGN.md "Store model": a publication names the
 * revisions it was computed against and fails with `CONFLICT` when a head moved).
 *
 * A writer that conflicts has computed its patch against a state that is no longer the head:
 * the only correct retry evaluates the whole read → compute → publish again, never re-sends
 * the old patch. That loop is the same for every writer; its bound is not.
 */
import { isStateflowError } from '@stateflow/core';
import type { StateflowError } from '@stateflow/core';

/** Options of {@link retryOnConflict}. */
export interface RetryOnConflictOptions {
  /** Evaluations in all, the first included: an integer ≥ 1. */
  attempts: number;
  /**
   * Whether a conflict is worth another evaluation (default: every one). A conflict on a stream
   * whose head decides that the write must not happen at all is not.
   */
  retryable?: (err: StateflowError<'CONFLICT'>) => boolean;
  /**
   * Before evaluation n + 1, wait a random time in [0, n × backoffMs) ms (default 0: at once).
   * Writers in other processes (servers on one PostgreSQL store) that conflict with each other
   * then spread out instead of colliding again in step.
   */
  backoffMs?: number;
}

/**
 * Runs `evaluate(attempt)` (attempt 1, 2, …) until it does not throw `CONFLICT`, at most
 * `options.attempts` times. `evaluate` must read the heads it publishes against afresh each
 * time.
 * @returns what the first evaluation that did not conflict returned.
 * @throws the last `CONFLICT` once the attempts are used up or the conflict is not retryable;
 *   any other error of `evaluate` at once.
 */
export async function retryOnConflict<T>(options: RetryOnConflictOptions, evaluate: (attempt: number) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await evaluate(attempt);
    } catch (err) {
      const again = isStateflowError(err, 'CONFLICT') && attempt < options.attempts && (options.retryable?.(err) ?? true);
      if (!again) throw err;
      const backoff = options.backoffMs ?? 0;
      if (backoff > 0) await new Promise((resolve) => setTimeout(resolve, Math.random() * attempt * backoff));
    }
  }
}
