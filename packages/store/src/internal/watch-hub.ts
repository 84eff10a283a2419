/**
 * Fan-out of accepted transitions to live subscribers (the live half of `watch`).
 */
import type { Transition } from '../types.js';

/** One live subscriber: a queue plus a wake-up. */
export class Subscriber {
  readonly queue: Transition[] = [];
  #wake: (() => void) | null = null;
  closed = false;

  push(t: Transition): void {
    this.queue.push(t);
    this.#fire();
  }

  close(): void {
    this.closed = true;
    this.#fire();
  }

  /** Resolves when something was pushed, the subscriber closed, or `signal` aborted. */
  wait(signal: AbortSignal): Promise<void> {
    if (this.queue.length > 0 || this.closed || signal.aborted) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = (): void => {
        signal.removeEventListener('abort', done);
        this.#wake = null;
        resolve();
      };
      this.#wake = done;
      signal.addEventListener('abort', done, { once: true });
    });
  }

  #fire(): void {
    this.#wake?.();
  }
}

/** The set of live subscribers of one store. */
export class WatchHub {
  readonly #subscribers = new Set<Subscriber>();

  subscribe(): Subscriber {
    const s = new Subscriber();
    this.#subscribers.add(s);
    return s;
  }

  unsubscribe(s: Subscriber): void {
    this.#subscribers.delete(s);
  }

  publish(t: Transition): void {
    for (const s of this.#subscribers) s.push(t);
  }

  /** End every subscription (store closing). */
  closeAll(): void {
    for (const s of this.#subscribers) s.close();
    this.#subscribers.clear();
  }
}
