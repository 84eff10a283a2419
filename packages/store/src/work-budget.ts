/**
 * A wall-clock work budget with yield points (store README "Batches for bulk writers", server README
 * "Limits"): long work checks {@link WorkBudget.spent} between units and calls
 * {@link WorkBudget.pace} so it yields to the event loop every {@link YIELD_EVERY_MS}, and one
 * caller's batch or scan cannot hold another's answer for longer than that. The store's
 * `publishMany` staging and the server's read routes share it.
 */

/** Work between two yields to the event loop, in ms. */
export const YIELD_EVERY_MS = 10;

/** The clock and yield points of one unit of bounded work. */
export interface WorkBudget {
  /** The budget in ms; `Infinity` when unbounded. */
  readonly ms: number;
  /** True once the work has taken its budget (never when unbounded). */
  spent(): boolean;
  /** Yield to the event loop (`setImmediate`) when its yield interval ({@link YIELD_EVERY_MS} by default) passed since the last yield; resolves at once otherwise. */
  pace(): Promise<void>;
}

/**
 * A budget of `ms` wall-clock ms from now (`Infinity`, or 0 by the server option's convention:
 * unbounded), yielding every `yieldEveryMs`. Time spent waiting for the event loop after a yield
 * counts, so the work ends within the budget plus one unit, whatever the load.
 */
export function workBudget(ms: number, yieldEveryMs: number = YIELD_EVERY_MS): WorkBudget {
  const limit = ms === 0 ? Number.POSITIVE_INFINITY : ms;
  const started = performance.now();
  let lastYield = started;
  return {
    ms: limit,
    spent: () => performance.now() - started >= limit,
    pace: async () => {
      if (performance.now() - lastYield < yieldEveryMs) return;
      await new Promise<void>((resolve) => setImmediate(resolve));
      lastYield = performance.now();
    },
  };
}
