/**
 * The last transitions of one stream up to a global seq, without scanning its whole history:
 * windows of the seq range grow geometrically backwards from `to` until enough are found, so the
 * cost follows the recent density of the stream, not the length of the log.
 */
import type { Store, Transition } from '@stateflow/store';

/**
 * The `count` most recent transitions (oldest first) that changed `stream`, with seq ≤ `to`.
 * @param count how many (≥ 1).
 */
export async function lastTransitionsOf(store: Store, stream: string, to: number, count: number): Promise<Transition[]> {
  let window = Math.max(count * 4, 16);
  for (;;) {
    const from = Math.max(1, to - window + 1);
    const found: Transition[] = [];
    for await (const transition of store.transitions({ stream, from, to })) found.push(transition);
    if (found.length >= count || from === 1) return found.slice(-count);
    window *= 4;
  }
}
