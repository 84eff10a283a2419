/**
 * Stores for tests on both embedded backends (DESIGN.md "How we build": each behaviour that
 * touches storage also runs on a real backend): `memory-level`, and LevelDB (`classic-level`)
 * in a fresh temporary directory that `destroy` removes. What a backend can do is data
 * (`persistent`), so a test asks for a capability, never for a backend by name.
 *
 * The kit cannot import `@stateflow/store` (the store's own tests use the kit), so a package
 * hands it the two ways its stores open, once: `testBackends({ memory: openMemoryStore,
 * directory: openStore })`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** The one thing the kit does with a store itself. */
export interface ClosableStore {
  close(): Promise<void>;
}

/** How a package's stores open: in memory, or in a directory (created when missing). */
export interface StoreOpeners<S, O> {
  memory(options?: O): Promise<S>;
  directory(dir: string, options?: O): Promise<S>;
}

/** A store under test and what its test may do with it. */
export interface TestStore<S> {
  store: S;
  /** The store's directory; `null` in memory. */
  readonly dir: string | null;
  /**
   * Close the store and open the same data again (`options` default to the ones it was opened
   * with); `store` becomes the new one.
   * @throws Error on a backend that is not `persistent`
   */
  reopen(options?: unknown): Promise<S>;
  /** Close the store (a test may have closed it already) and remove what it created. */
  destroy(): Promise<void>;
}

/** One backend. */
export interface TestBackend<S, O = unknown> {
  name: 'memory-level' | 'classic-level';
  /** Whether its data outlives the store object (a reopen sees it). */
  persistent: boolean;
  /** A new, empty store. */
  open(options?: O): Promise<TestStore<S>>;
}

/** Both backends, memory-level first, for `describe.each(backends)` (title `$name`). */
export function testBackends<S extends ClosableStore, O = unknown>(openers: StoreOpeners<S, O>): [TestBackend<S, O>, TestBackend<S, O>] {
  const memory: TestBackend<S, O> = {
    name: 'memory-level',
    persistent: false,
    async open(options) {
      const store = await openers.memory(options);
      return {
        store,
        dir: null,
        reopen: () => Promise.reject(new Error('a memory-level store cannot be reopened: ask for a persistent backend')),
        destroy: () => store.close(),
      };
    },
  };
  const level: TestBackend<S, O> = {
    name: 'classic-level',
    persistent: true,
    async open(options) {
      const dir = await tempDir('store');
      const handle: TestStore<S> = {
        store: await openers.directory(dir, options),
        dir,
        async reopen(next) {
          await handle.store.close();
          handle.store = await openers.directory(dir, (next as O | undefined) ?? options);
          return handle.store;
        },
        async destroy() {
          await handle.store.close().catch(() => undefined);
          await removeDir(dir);
        },
      };
      return handle;
    },
  };
  return [memory, level];
}

/** The hooks of a test runner that {@link storePerTest} registers with (vitest's, say). */
export interface TestHooks {
  beforeEach(fn: () => Promise<void>): void;
  afterEach(fn: () => Promise<void>): void;
}

/**
 * A new store of `backend` for each test of the calling `describe` (or file), destroyed after
 * it: registered with `hooks` (pass vitest's `{ beforeEach, afterEach }`; the kit imports no
 * runner). `use` receives it first, to keep it and check its preconditions.
 */
export function storePerTest<S, O>(backend: TestBackend<S, O>, hooks: TestHooks, use: (opened: TestStore<S>) => void | Promise<void>, options?: O): void {
  let opened: TestStore<S> | undefined;
  hooks.beforeEach(async () => {
    opened = await backend.open(options);
    await use(opened);
  });
  hooks.afterEach(async () => {
    await opened?.destroy();
    opened = undefined;
  });
}

/** A new empty directory under the OS temp directory, named `stateflow-<prefix>-…` (default `test`). */
export function tempDir(prefix = 'test'): Promise<string> {
  return mkdtemp(path.join(tmpdir(), `stateflow-${prefix}-`));
}

/** Remove a directory and everything in it (nothing when it is gone already). */
export function removeDir(dir: string): Promise<void> {
  return rm(dir, { recursive: true, force: true });
}
