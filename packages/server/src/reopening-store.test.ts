/**
 * The named locks of a reopening store (store README "Named locks"): this process's holders
 * queue in the wrapper, in arrival order, holding the current store's lock; `withLockIfFree`
 * declines while a holder has it, and with `local: 'wait'` runs after it.
 */
import { describe, expect, it } from 'vitest';
import { openMemoryStore } from '@stateflow/store';
import { reopeningStore } from './reopening-store.js';

describe('reopeningStore locks', () => {
  it('serialise holders in arrival order; withLockIfFree declines while held, or waits with local "wait"', async () => {
    const store = reopeningStore(await openMemoryStore(), () => openMemoryStore());
    try {
      const order: string[] = [];
      let release!: () => void;
      let taken!: () => void;
      const holding = new Promise<void>((resolve) => (taken = resolve));
      const first = store.withLock('s', async () => {
        taken();
        await new Promise<void>((resolve) => (release = resolve));
        order.push('first');
      });
      await holding;
      const second = store.withLock('s', async () => void order.push('second'));
      expect(await store.withLockIfFree('s', async () => 'no')).toEqual({ ran: false });
      const third = store.withLockIfFree('s', async () => (order.push('third'), 'yes'), { local: 'wait' });
      expect(await store.withLockIfFree('other', async () => 'free')).toEqual({ ran: true, value: 'free' });
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(order).toEqual([]);
      release();
      await Promise.all([first, second]);
      expect(await third).toEqual({ ran: true, value: 'yes' });
      expect(order).toEqual(['first', 'second', 'third']);
    } finally {
      await store.close();
    }
  });
});
