/**
 * Named locks in one process and against a backend lock held by another process (store README
 * "Named locks").
 */
import { describe, expect, it } from 'vitest';
import { NamedLocks } from './named-locks.js';
import type { BackendLock } from './named-locks.js';

/** A backend lock held by "another process" while `taken` is true. */
function otherProcess(): { backend: BackendLock; taken: boolean } {
  const state = {
    taken: false,
    backend: (async (_name, options) => (state.taken && !options.wait ? null : { release: async () => undefined })) as BackendLock,
  };
  return state;
}

describe('NamedLocks', () => {
  it('runIfFree declines while this process holds the name; with local "wait" it runs after the holder', async () => {
    const locks = new NamedLocks();
    const order: string[] = [];
    let release!: () => void;
    let taken!: () => void;
    const holding = new Promise<void>((resolve) => (taken = resolve));
    const held = locks.run('n', () => new Promise<void>((resolve) => {
      release = () => (order.push('holder'), resolve());
      taken();
    }));
    await holding;
    expect(await locks.runIfFree('n', async () => 'x')).toEqual({ ran: false });
    const waited = locks.runIfFree('n', async () => (order.push('waiter'), 'y'), { local: 'wait' });
    release();
    await held;
    expect(await waited).toEqual({ ran: true, value: 'y' });
    expect(order).toEqual(['holder', 'waiter']);
  });

  it('runIfFree declines, even with local "wait", when another process holds the backend lock', async () => {
    const other = otherProcess();
    const locks = new NamedLocks(other.backend);
    other.taken = true;
    expect(await locks.runIfFree('n', async () => 1, { local: 'wait' })).toEqual({ ran: false });
    other.taken = false;
    expect(await locks.runIfFree('n', async () => 2)).toEqual({ ran: true, value: 2 });
  });
});
