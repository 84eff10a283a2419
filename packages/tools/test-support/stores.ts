/**
 * Test support: real stores on both backends (the test kit's memory-level and classic-level in
 * a temp dir), and a semantic dump used to prove that rejected calls and reads publish nothing.
 */
import { openMemoryStore } from '@stateflow/store';
import { openStore } from '@stateflow/store-leveldb';
import type { Store, StoreOptions } from '@stateflow/store';
import { afterEach, beforeEach, expect } from 'vitest';
import { storePerTest, testBackends } from '@stateflow/test-kit';
import { createRuntime } from '../src/runtime.js';
import type { Runtime } from '../src/runtime.js';
import type { Selection } from '../src/selection.js';
import type { TestBackend, TestStore as KitTestStore } from '@stateflow/test-kit';

/** A store under test (`dir` is `null` in memory; `reopen` needs a persistent backend). */
export type TestStore = KitTestStore<Store>;

/** memory-level and LevelDB in a temp directory, for `describe.each(backends)` (title `$name`). */
export const backends: TestBackend<Store, StoreOptions>[] = testBackends<Store, StoreOptions>({ memory: openMemoryStore, directory: openStore });
export const [memoryBackend, levelBackend] = backends as [TestBackend<Store, StoreOptions>, TestBackend<Store, StoreOptions>];

/** Everything a reader can observe: last seq, heads, current states and every transition. */
export async function dump(store: Store): Promise<unknown> {
  const heads = await store.streams();
  const states: Record<string, unknown> = {};
  for (const head of heads) states[head.stream] = await store.state(head.stream);
  const transitions: unknown[] = [];
  for await (const t of store.transitions()) transitions.push(t);
  return { lastSeq: store.lastSeq(), heads, states, transitions };
}

/** Every owner selected, Active mode: the selection most spec-mapped tests read and write through. */
export const ALL_OWNERS = { global: true, cwd: '/repo', session: 's1', mode: 'active' } as const;

/**
 * Per test, a fresh empty store of `backend` and a runtime over it with `selection` (read them
 * from the returned object inside a test: they change before each one).
 */
export function runtimePerTest(backend: TestBackend<Store, StoreOptions>, selection: Selection = ALL_OWNERS): { ts: TestStore; rt: Runtime } {
  const current = {} as { ts: TestStore; rt: Runtime };
  storePerTest(backend, { beforeEach, afterEach }, (opened) => {
    current.ts = opened;
    current.rt = createRuntime({ store: opened.store, selection });
    expect(opened.store.lastSeq()).toBe(0);
  });
  return current;
}
