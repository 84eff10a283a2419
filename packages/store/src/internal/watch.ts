/**
 * Catch-up subscriptions (`Store.watch`; README "Decisions": `watch`): this module owns the
 * iterator a watch returns — transitions after `from` read from the log, then live ones from the
 * watch hub, each yielded once in seq order and filtered to the watched streams — and ending it
 * on the caller's abort signal, an early `return()`, or the store closing.
 */
import type { StreamId, Transition, WatchOptions } from '../types.js';
import { transitionsIn } from './log-reads.js';
import { checkOpen } from './store-context.js';
import type { StoreContext } from './store-context.js';

/**
 * The iterator of transitions with seq > `from` changing any of `options.streams` (every stream
 * when absent), until `options.signal` aborts, the iterator is returned, or the store closes.
 * `from` and `options` already checked.
 */
export function watchTransitions(ctx: StoreContext, from: number, options: WatchOptions): AsyncIterable<Transition> {
  const stop = new AbortController();
  const onAbort = (): void => stop.abort();
  if (options.signal?.aborted) stop.abort();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  const generator = follow(ctx, from, options.streams ? new Set(options.streams) : null, stop.signal);
  const cleanup = (): void => options.signal?.removeEventListener('abort', onAbort);
  const iterator: AsyncIterableIterator<Transition> = {
    [Symbol.asyncIterator]: () => iterator,
    next: async () => {
      const r = await generator.next();
      if (r.done === true) cleanup();
      return r;
    },
    return: async (value?: unknown) => {
      stop.abort();
      cleanup();
      await generator.return(undefined);
      return { done: true, value: value as Transition };
    },
  };
  return iterator;
}

async function* follow(ctx: StoreContext, from: number, streams: Set<StreamId> | null, signal: AbortSignal): AsyncGenerator<Transition> {
  const wanted = (t: Transition): boolean => streams === null || t.changes.some((c) => streams.has(c.stream));
  const subscriber = ctx.hub.subscribe();
  try {
    let last = from;
    const caughtUpTo = ctx.lastSeq;
    if (last < caughtUpTo) {
      checkOpen(ctx);
      for await (const t of transitionsIn(ctx, last + 1, caughtUpTo)) {
        if (signal.aborted) return;
        last = t.seq;
        if (wanted(t)) yield t;
      }
      last = Math.max(last, caughtUpTo);
    }
    for (;;) {
      await subscriber.wait(signal);
      if (signal.aborted) return;
      const t = subscriber.queue.shift();
      if (t === undefined) {
        if (subscriber.closed) return;
        continue;
      }
      if (t.seq <= last) continue;
      last = t.seq;
      if (wanted(t)) yield t;
    }
  } finally {
    ctx.hub.unsubscribe(subscriber);
  }
}
