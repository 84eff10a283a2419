/**
 * The named-lock check shared by the `publish` group (one store) and the `sharedWriters` group
 * (two stores over one database): `Store.withLock` / `Store.withLockIfFree` (store README
 * "Named locks").
 */
import type { Store } from '@stateflow/store';
import { assert, assertJsonEqual } from './assert.js';

/**
 * While `holder` holds a lock, `other` (the same store, or another over the same data) cannot
 * take it without waiting, `withLockIfFree` declines, another name is free, and waiters run in
 * arrival order once it is released.
 */
export async function assertLockExcludes(holder: Store, other: Store): Promise<void> {
  const order: string[] = [];
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let taken!: () => void;
  const held = new Promise<void>((resolve) => (taken = resolve));
  const first = holder.withLock('conformance-lock', async () => {
    taken();
    await released;
    order.push('first');
    return 1;
  });
  await held;
  const second = other.withLock('conformance-lock', async () => {
    order.push('second');
    return 2;
  });
  assertJsonEqual((await other.withLockIfFree('conformance-lock', async () => 'ran')) as never, { ran: false }, 'withLockIfFree while held');
  assertJsonEqual((await other.withLockIfFree('conformance-other', async () => 'ran')) as never, { ran: true, value: 'ran' }, 'another name');
  // Give the waiter time to run, were it not excluded.
  await new Promise((resolve) => setTimeout(resolve, 50));
  assertJsonEqual(order, [], 'nothing ran under the held lock');
  release();
  assert.equal(await first, 1);
  assert.equal(await second, 2);
  assertJsonEqual(order, ['first', 'second'], 'waiters in order');
  assertJsonEqual((await other.withLockIfFree('conformance-lock', async () => 'free')) as never, { ran: true, value: 'free' }, 'free again');
}
