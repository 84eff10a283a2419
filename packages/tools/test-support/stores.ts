/**
 * Test support: real stores on both backends (memory-level and classic-level in a temp dir),
 * and a semantic dump used to prove that rejected calls and reads publish nothing.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openMemoryStore, openStore } from '@stateflow/store';
import type { Store, StoreOptions } from '@stateflow/store';

export type Backend = 'memory-level' | 'classic-level';
export const BACKENDS: Backend[] = ['memory-level', 'classic-level'];

/** A store on a backend, with a reopen for disk stores and cleanup. */
export interface TestStore {
  store: Store;
  dir: string | null;
  reopen(): Promise<Store>;
  destroy(): Promise<void>;
}

export async function createTestStore(backend: Backend, options?: StoreOptions): Promise<TestStore> {
  if (backend === 'memory-level') {
    const store = await openMemoryStore(options);
    return { store, dir: null, reopen: () => Promise.reject(new Error('memory stores cannot reopen')), destroy: () => store.close() };
  }
  const dir = await mkdtemp(path.join(tmpdir(), 'stateflow-tools-'));
  const handle: TestStore = {
    store: await openStore(dir, options),
    dir,
    async reopen() {
      await handle.store.close();
      handle.store = await openStore(dir, options);
      return handle.store;
    },
    async destroy() {
      await handle.store.close().catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
  return handle;
}

/** Everything a reader can observe: last seq, heads, current states and every transition. */
export async function dump(store: Store): Promise<unknown> {
  const heads = await store.streams();
  const states: Record<string, unknown> = {};
  for (const head of heads) states[head.stream] = await store.state(head.stream);
  const transitions: unknown[] = [];
  for await (const t of store.transitions()) transitions.push(t);
  return { lastSeq: store.lastSeq(), heads, states, transitions };
}

/** Awaits a rejection and returns the error after asserting its stable code. */
export async function rejection(promise: Promise<unknown>, code: string): Promise<{ code: string; message: string; details: Record<string, unknown> }> {
  let caught: unknown;
  try {
    await promise;
  } catch (err) {
    caught = err;
  }
  if (caught === undefined) throw new Error(`expected a ${code} rejection, but the call succeeded`);
  const err = caught as { code?: string; message: string; details: Record<string, unknown> };
  if (err.code !== code) throw new Error(`expected ${code}, got ${String(err.code)}: ${err.message}`);
  return err as { code: string; message: string; details: Record<string, unknown> };
}
