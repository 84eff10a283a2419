/**
 * Named locks of a store (`Store.withLock`, `Store.withLockIfFree`; README "Named locks"): the
 * holders of a name in this process wait in a {@link SerialQueue}, and the first of them takes
 * the storage's cross-process lock of that name (`Storage.lock`) when the storage has one, so a
 * process holds at most one backend lock (one PostgreSQL connection) per name at a time.
 */
import type { HeldLock } from './storage.js';
import { SerialQueue } from './serial-queue.js';

/** A backend's cross-process lock (`Storage.lock`). */
export type BackendLock = (name: string, options: { wait: boolean }) => Promise<HeldLock | null>;

/** What {@link NamedLocks.runIfFree} did. */
export type LockAttempt<T> = { ran: true; value: T } | { ran: false };

/** The named locks of one store: in this process, and across processes when `backend` is given. */
export class NamedLocks {
  readonly #queue = new SerialQueue<string>();
  /** Holders and waiters of each name in this process (a name with none has no entry). */
  readonly #pending = new Map<string, number>();
  readonly #backend: BackendLock | undefined;

  constructor(backend?: BackendLock) {
    this.#backend = backend;
  }

  /** Run `fn` holding `name`, after every holder before it (in this process, then in any). */
  run<T>(name: string, fn: () => Promise<T>): Promise<T> {
    return this.#hold(name, async () => {
      const held = await this.#backend?.(name, { wait: true });
      try {
        return await fn();
      } finally {
        await held?.release();
      }
    });
  }

  /**
   * Run `fn` holding `name` only if nobody holds or waits for it now (in this process or any);
   * with `local: 'wait'`, after the holders in this process, declining only when another
   * process holds it.
   */
  runIfFree<T>(name: string, fn: () => Promise<T>, options: { local?: 'decline' | 'wait' } = {}): Promise<LockAttempt<T>> {
    if (options.local !== 'wait' && this.#pending.has(name)) return Promise.resolve({ ran: false });
    return this.#hold(name, async (): Promise<LockAttempt<T>> => {
      const held = this.#backend === undefined ? undefined : await this.#backend(name, { wait: false });
      if (held === null) return { ran: false };
      try {
        return { ran: true, value: await fn() };
      } finally {
        await held?.release();
      }
    });
  }

  /** Queue `task` under `name`, counted as pending from now until it has settled. */
  #hold<T>(name: string, task: () => Promise<T>): Promise<T> {
    this.#pending.set(name, (this.#pending.get(name) ?? 0) + 1);
    return this.#queue.run(name, async () => {
      try {
        return await task();
      } finally {
        const left = (this.#pending.get(name) ?? 1) - 1;
        if (left === 0) this.#pending.delete(name);
        else this.#pending.set(name, left);
      }
    });
  }
}
