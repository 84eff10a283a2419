/** Shorthands for publishing in tests. */
import type { JsonObject } from '@stateflow/core';
import type { PublishInput, Store, Transition } from '@stateflow/store';
import { assert } from './assert.js';

/** Publish and assert the result is `accepted`; returns the transition. */
export async function accept(
  store: Store,
  changes: Record<string, JsonObject>,
  extra: Omit<PublishInput, 'changes'> = {},
): Promise<Transition> {
  const result = await store.publish({ ...extra, changes });
  assert.equal(result.status, 'accepted', `publish ${JSON.stringify(changes)} should be accepted`);
  assert.ok(result.transition);
  return result.transition;
}

/** Publish `patches` one after another on `stream`, each accepted; returns the transitions. */
export async function publishSeries(store: Store, stream: string, patches: JsonObject[]): Promise<Transition[]> {
  const out: Transition[] = [];
  for (const patch of patches) out.push(await accept(store, { [stream]: patch }));
  return out;
}

/**
 * A deterministic series of `n` patches on one stream and the states they produce
 * (`states[r]` is the state at revision r; `states[0]` is empty). Adds, in-place updates and
 * deletions alternate so that checkpoints and replay see every kind of step.
 */
export function counterSeries(n: number): { patches: JsonObject[]; states: JsonObject[] } {
  const patches: JsonObject[] = [];
  const states: JsonObject[] = [{}];
  for (let i = 1; i <= n; i++) {
    const next: JsonObject = { ...(states[i - 1] as JsonObject), count: i };
    if (i % 5 === 0) {
      patches.push({ [`k${i - 1}`]: null, count: i });
      delete next[`k${i - 1}`];
    } else {
      patches.push({ count: i, [`k${i}`]: { at: i, tags: [i, `t${i}`] } });
      next[`k${i}`] = { at: i, tags: [i, `t${i}`] };
    }
    states.push(next);
  }
  return { patches, states };
}
