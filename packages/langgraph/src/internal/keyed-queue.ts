/**
 * One operation at a time per key, in call order. The saver's writes to one stream read the
 * head, compute a net patch against it and publish with that head as the expected revision;
 * running them one by one keeps a saver's own calls from failing each other's CAS, and keeps
 * LangGraph's order (a task's writes before the next checkpoint) in the log.
 */
export class KeyedQueue {
  readonly #tails = new Map<string, Promise<unknown>>();

  /** Run `fn` after every earlier call with the same key has settled. */
  run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    const result = previous.then(fn, fn);
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

  /** Run `fn` while holding every key (taken in sorted order, so two callers never deadlock). */
  runAll<T>(keys: string[], fn: () => Promise<T>): Promise<T> {
    const sorted = [...new Set(keys)].sort();
    const step = (i: number): Promise<T> => (i === sorted.length ? fn() : this.run(sorted[i] as string, () => step(i + 1)));
    return step(0);
  }
}
