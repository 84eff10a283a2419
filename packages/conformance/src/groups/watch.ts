/**
 * Conformance: `watch`, the catch-up subscription (contract `WatchOptions`: transitions with
 * seq > from, optionally only those touching listed streams, ended by an AbortSignal).
 */
import type { Transition } from '@stateflow/store';
import type { ConformanceOptions, StoreInitializer, TestApi } from '../initializer.js';
import { assert } from '../internal/assert.js';
import { defineGroup } from '../internal/group.js';
import { accept } from '../internal/publish.js';

/** Guard against a subscription that never yields: fail instead of hanging the run. */
const HANG_GUARD_MS = 10_000;

async function next(it: AsyncIterator<Transition>, what: string): Promise<IteratorResult<Transition>> {
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`watch: no ${what} within ${HANG_GUARD_MS} ms`)), HANG_GUARD_MS);
  });
  try {
    return await Promise.race([it.next(), hang]);
  } finally {
    clearTimeout(timer);
  }
}

async function nextSeq(it: AsyncIterator<Transition>): Promise<number> {
  const r = await next(it, 'transition');
  assert.equal(r.done, false, 'iteration still open');
  return (r.value as Transition).seq;
}

/**
 * Register the `watch` group: catch-up from a seq then live delivery in order without gaps or
 * repeats, live-only by default, stream filters, and ending by abort or `return()`.
 */
export function watchGroup(init: StoreInitializer, api: TestApi, options: ConformanceOptions = {}): void {
  defineGroup('watch', 'watch', init, api, options, ({ test }) => {
    test('catches up from a seq, then delivers live transitions in order, ends on abort', async ({ store }) => {
      for (let i = 1; i <= 3; i++) await accept(store, { global: { i } });
      const ac = new AbortController();
      const it = store.watch({ from: 1, signal: ac.signal })[Symbol.asyncIterator]();
      assert.equal(await nextSeq(it), 2);
      assert.equal(await nextSeq(it), 3);
      const pending = nextSeq(it);
      await accept(store, { 'session:s': { live: 1 } });
      await accept(store, { global: { live: 2 } });
      assert.equal(await pending, 4);
      assert.equal(await nextSeq(it), 5);
      ac.abort();
      const end = await next(it, 'end after abort');
      assert.equal(end.done, true);
    });

    test('without from it is live only', async ({ store }) => {
      await accept(store, { global: { old: 1 } });
      const ac = new AbortController();
      const it = store.watch({ signal: ac.signal })[Symbol.asyncIterator]();
      const pending = nextSeq(it);
      await accept(store, { global: { fresh: 1 } });
      assert.equal(await pending, 2);
      ac.abort();
    });

    test('a stream filter yields only transitions touching those streams', async ({ store }) => {
      await accept(store, { global: { a: 1 } });
      await accept(store, { 'session:s': { a: 1 } });
      await accept(store, { global: { a: 2 }, 'session:s': { a: 2 } });
      const it = store.watch({ from: 0, streams: ['session:s'] })[Symbol.asyncIterator]();
      assert.equal(await nextSeq(it), 2);
      assert.equal(await nextSeq(it), 3);
      const pending = nextSeq(it);
      await accept(store, { global: { a: 3 } });
      await accept(store, { 'session:s': { a: 3 } });
      assert.equal(await pending, 5);
      const end = await it.return?.();
      assert.equal(end?.done ?? true, true);
    });

    test('a watcher that falls behind still sees every transition once', async ({ store }) => {
      const ac = new AbortController();
      const it = store.watch({ from: 0, signal: ac.signal })[Symbol.asyncIterator]();
      for (let i = 1; i <= 25; i++) await accept(store, { [`session:${i % 4}`]: { i } });
      const seen: number[] = [];
      for (let i = 0; i < 25; i++) seen.push(await nextSeq(it));
      assert.deepEqual(seen, Array.from({ length: 25 }, (_, i) => i + 1));
      ac.abort();
    });
  });
}
