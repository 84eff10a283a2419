/**
 * The session locks of one process (seeds/ladr-stateful-sessions.txt "Sessions guarantee
 * single-writer per call"): every call and lifecycle change of a session runs under the store's
 * named lock `ladder-session:<id>` — in this process on LevelDB, across every server on a
 * PostgreSQL store — and this process's work under those locks is tracked, so a shutdown can
 * wait for it ({@link SessionLocks.idle}).
 */
import type { Store } from '@stateflow/store';

/** The outcome of {@link SessionLocks.ifFree}: what `fn` returned, or that the lock was held. */
export type LockAttempt<T> = { ran: true; value: T } | { ran: false };

/** This process's work under session locks. */
export class SessionLocks {
  readonly #store: Store;
  /** Work under a lock, started and not settled yet. */
  readonly #inFlight = new Set<Promise<unknown>>();

  constructor(store: Store) {
    this.#store = store;
  }

  /** Run `fn` under the lock `key`, after every earlier holder (in arrival order). */
  serial<T>(key: string, fn: () => Promise<T>): Promise<T> {
    return this.#track(this.#store.withLock(key, fn));
  }

  /**
   * Run `fn` under the lock `key` only if no one holds it now; `{ ran: false }` otherwise.
   * `local: 'wait'` waits behind holders in this process and declines only when another process
   * holds it (`Store.withLockIfFree`).
   */
  ifFree<T>(key: string, fn: () => Promise<T>, options?: { local?: 'decline' | 'wait' }): Promise<LockAttempt<T>> {
    return this.#track(this.#store.withLockIfFree(key, fn, options));
  }

  /** Resolves when every call and lifecycle change of this process under a lock has settled. */
  async idle(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
  }

  #track<T>(work: Promise<T>): Promise<T> {
    this.#inFlight.add(work);
    const done = (): void => void this.#inFlight.delete(work);
    work.then(done, done);
    return work;
  }
}
