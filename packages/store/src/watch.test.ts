import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Harness } from './test-support/backends.js';
import { backends } from './test-support/backends.js';
import type { Transition } from './types.js';

describe.each(backends)('watch on $name', (backend) => {
  let h: Harness;
  beforeEach(async () => {
    h = await backend.create();
    for (let i = 1; i <= 3; i++) await h.store.publish({ changes: { [i === 2 ? 'session:w' : 'global']: { n: i } } });
    expect(h.store.lastSeq()).toBe(3);
  });
  afterEach(async () => {
    await h.destroy();
  });

  it('catches up from a seq, then yields live transitions, and ends on return()', async () => {
    const seen: number[] = [];
    const it = h.store.watch({ from: 1 })[Symbol.asyncIterator]();
    seen.push(((await it.next()).value as Transition).seq, ((await it.next()).value as Transition).seq);
    const pending = it.next();
    await h.store.publish({ changes: { global: { n: 4 } } });
    seen.push(((await pending).value as Transition).seq);
    await h.store.publish({ changes: { global: { n: 5 } } });
    seen.push(((await it.next()).value as Transition).seq);
    expect(seen).toEqual([2, 3, 4, 5]);
    expect(await it.return?.()).toEqual({ done: true, value: undefined });
    expect((await it.next()).done).toBe(true);
  });

  it('filters by stream, defaults to live only, and ends when the signal aborts', async () => {
    const controller = new AbortController();
    const seen: number[] = [];
    const done = (async () => {
      for await (const t of h.store.watch({ streams: ['session:w'], signal: controller.signal })) {
        seen.push(t.seq);
        if (seen.length === 2) controller.abort();
      }
    })();
    await h.store.publish({ changes: { global: { n: 4 } } });
    await h.store.publish({ changes: { 'session:w': { n: 5 } } });
    await h.store.publish({ changes: { global: { n: 6 }, 'session:w': { n: 6 } } });
    await done;
    expect(seen).toEqual([5, 6]);
  });

  it('a pending next() resolves done when the signal aborts or the store closes', async () => {
    const controller = new AbortController();
    const a = h.store.watch({ signal: controller.signal })[Symbol.asyncIterator]().next();
    const b = h.store.watch()[Symbol.asyncIterator]().next();
    controller.abort();
    expect((await a).done).toBe(true);
    await h.store.close();
    expect((await b).done).toBe(true);
  });
});
