/**
 * The per-store write queue of `patch_state` (seed "Publication and storage"; README
 * "Publication"). A store directory is locked to one process, so every writer of a store
 * through this package lives in this process: queueing their capture → stage → publish per
 * `Store` object means two calls never race for the same heads, whatever keys they touch.
 * Writers that bypass the runtime (ladder runs, the CLI's own publishes) are still caught by the
 * store's CAS and the bounded re-evaluation in `patchState`.
 */
import type { Store } from '@stateflow/store';

/** The tail of each store's queue: settles when the last queued call has finished. */
const tails = new WeakMap<Store, Promise<unknown>>();

/**
 * Runs `task` after every task queued before it on `store` has settled (fulfilled or
 * rejected), one at a time in arrival order, and returns its result. A failing task does not
 * stop the queue. Stores are keys of a `WeakMap`: a closed, unreferenced store leaves nothing.
 */
export function serialPerStore<T>(store: Store, task: () => Promise<T>): Promise<T> {
  const previous = tails.get(store) ?? Promise.resolve();
  const run = previous.then(task, task);
  tails.set(
    store,
    run.then(
      () => undefined,
      () => undefined,
    ),
  );
  return run;
}
