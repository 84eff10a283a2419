/**
 * Conformance: `effectiveAt` (DESIGN.md "Effective overlay and planes": global → cwd →
 * session, objects merge recursively, a non-object from a higher scope replaces, arrays
 * replace whole; as of a global transition seq).
 */
import type { ConformanceOptions, StoreInitializer, TestApi } from '../initializer.js';
import { assertJsonEqual, rejectsWithCode } from '../internal/assert.js';
import { defineGroup } from '../internal/group.js';
import { accept } from '../internal/publish.js';

const OWNERS = ['global', 'cwd:/w', 'session:s'];

/**
 * Register the `effectiveAt` group: the overlay of the listed streams (low → high priority) as
 * of each global seq, with streams that had no revision yet contributing nothing.
 */
export function effectiveAtGroup(init: StoreInitializer, api: TestApi, options: ConformanceOptions = {}): void {
  defineGroup('effectiveAt', 'effectiveAt', init, api, options, ({ test }) => {
    test('objects merge recursively, higher scalars and arrays replace whole', async ({ store }) => {
      await accept(store, { global: { plan: { a: 1, b: { x: 1 } }, list: [1, 2, 3], mode: 'g' } });
      await accept(store, { 'cwd:/w': { plan: { b: { y: 2 } }, list: [9], mode: { nested: true } } });
      await accept(store, { 'session:s': { plan: { a: 'session' }, mode: 's' } });
      assertJsonEqual(
        await store.effectiveAt(OWNERS, 3),
        { plan: { a: 'session', b: { x: 1, y: 2 } }, list: [9], mode: 's' },
        'seq 3',
      );
      assertJsonEqual(
        await store.effectiveAt(OWNERS, 2),
        { plan: { a: 1, b: { x: 1, y: 2 } }, list: [9], mode: { nested: true } },
        'seq 2',
      );
      assertJsonEqual(await store.effectiveAt(OWNERS, 1), { plan: { a: 1, b: { x: 1 } }, list: [1, 2, 3], mode: 'g' }, 'seq 1');
      assertJsonEqual(await store.effectiveAt(OWNERS, 0), {}, 'seq 0');
    });

    test('the order of the list is the priority order', async ({ store }) => {
      await accept(store, { global: { v: 'g' }, 'session:s': { v: 's' } });
      assertJsonEqual(await store.effectiveAt(['session:s', 'global'], 1), { v: 'g' }, 'global last wins');
      assertJsonEqual(await store.effectiveAt(['global', 'session:s'], 1), { v: 's' }, 'session last wins');
    });

    test('deleting a key in a higher scope reveals the lower value', async ({ store }) => {
      await accept(store, { global: { tone: 'formal' } });
      await accept(store, { 'session:s': { tone: 'casual' } });
      await accept(store, { 'session:s': { tone: null, other: 1 } });
      assertJsonEqual(await store.effectiveAt(OWNERS, 2), { tone: 'casual' }, 'seq 2');
      assertJsonEqual(await store.effectiveAt(OWNERS, 3), { tone: 'formal', other: 1 }, 'seq 3');
    });

    test('a seq past the last transition is rejected', async ({ store }) => {
      await accept(store, { global: { a: 1 } });
      await rejectsWithCode(store.effectiveAt(OWNERS, 2), 'TRANSITION_NOT_FOUND');
    });
  });
}
