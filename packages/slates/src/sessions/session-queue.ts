/**
 * Per-key serial execution (seeds/ladr-stateful-sessions.txt "Sessions guarantee single-writer
 * per call"). Stronger than the seed's last-write-wins: calls to one session run one after
 * another in arrival order, so every acknowledged write lands.
 */

/** Runs tasks one at a time per key, in arrival order; different keys run independently. */
export class SerialQueue {
  readonly #tails = new Map<string, Promise<unknown>>();

  /**
   * Run `task` after every task queued earlier under `key` has settled. A failing task does not
   * stop the ones after it. Resolves or rejects with the task's own result.
   */
  run<T>(key: string, task: () => Promise<T>): Promise<T> {
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

  /** Number of keys with queued or running work. */
  get size(): number {
    return this.#tails.size;
  }

  /** Resolves when every task queued so far, under every key, has settled. */
  async idle(): Promise<void> {
    while (this.#tails.size > 0) await Promise.all([...this.#tails.values()]);
  }
}
