/**
 * Concurrency inside one store instance.
 *
 * - `write`: mutations (publish, fork, revert, append, audit) run one at a time, in call order.
 *   Readers run alongside: a publish only adds records, so a reader never sees a missing one.
 * - `exclusive`: a write that also deletes records (compaction): it waits for running readers
 *   to finish and holds new readers back until it is done.
 * - `read`: a read of stored history.
 */
export class AccessLock {
  #tail: Promise<unknown> = Promise.resolve();
  #readers = 0;
  #drained: (() => void) | null = null;
  #exclusive: Promise<void> | null = null;

  /** Run `fn` after every earlier write (and exclusive) has finished. */
  write<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.#tail.then(fn, fn);
    this.#tail = run.catch(() => undefined);
    return run;
  }

  /** Run `fn` as a write with no concurrent reader. */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    return this.write(async () => {
      let release!: () => void;
      this.#exclusive = new Promise<void>((resolve) => (release = resolve));
      try {
        if (this.#readers > 0) await new Promise<void>((resolve) => (this.#drained = resolve));
        return await fn();
      } finally {
        this.#exclusive = null;
        release();
      }
    });
  }

  /** Run `fn` as a reader (never during an exclusive write). */
  async read<T>(fn: () => Promise<T>): Promise<T> {
    while (this.#exclusive !== null) await this.#exclusive;
    this.#readers++;
    try {
      return await fn();
    } finally {
      this.#readers--;
      if (this.#readers === 0 && this.#drained !== null) {
        const drained = this.#drained;
        this.#drained = null;
        drained();
      }
    }
  }
}
