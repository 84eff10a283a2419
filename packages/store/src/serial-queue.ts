/**
 * One task at a time per key, in arrival order: how a process keeps its own writers from
 * failing each other's CAS (DESIGN.md "Store model").
 *
 * Every writer above the store reads a head, computes a patch against it and publishes with
 * that head as the expected revision. Two such writers in one process racing for the same
 * heads would make one of them conflict and re-evaluate for nothing; queueing them per key
 * (a store, a session, a stream) keeps them in arrival order instead. The queue lives in one
 * process's memory, so it is never what makes a write correct (DESIGN.md "Processes and
 * backends"): writers in other processes are still caught by the store's CAS, and a writer
 * re-evaluates on `CONFLICT` (`retryOnConflict`).
 */

/** Runs tasks one at a time per key, in arrival order; different keys run independently. */
export class SerialQueue<K = string> {
  readonly #tails = new Map<K, Promise<unknown>>();

  /**
   * Run `task` after every task queued earlier under `key` has settled. A failing task does not
   * stop the ones after it. Resolves or rejects with the task's own result. A key holds no
   * memory once its last task has settled.
   */
  run<T>(key: K, task: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    const result = previous.then(task, task);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.#tails.set(key, tail);
    void tail.then(() => {
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    });
    return result;
  }

  /**
   * Run `task` while holding every key of `keys` (taken one after another in sorted order, so
   * two callers holding overlapping keys never wait for each other in a cycle).
   */
  runAll<T>(keys: readonly K[], task: () => Promise<T>): Promise<T> {
    const sorted = [...new Set(keys)].sort();
    const step = (i: number): Promise<T> => (i === sorted.length ? task() : this.run(sorted[i] as K, () => step(i + 1)));
    return step(0);
  }

  /** Number of keys with queued or running work. */
  get size(): number {
    return this.#tails.size;
  }

  /** Resolves when every task queued so far, under every key, has settled. */
  async idle(): Promise<void> {
    while (this.#tails.size > 0) await Promise.all([...this.#tails.values()]);
  }
}
