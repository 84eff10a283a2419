/**
 * The seam between the conformance suite and a backend (CONVENTIONS.md "Conformance package").
 *
 * Like Level's shipped suite (the test runner and a database factory are injected) and
 * LangGraph.js checkpoint-validation (an initializer with `create`/`destroy`, skips recorded
 * with a reason), the suite never imports a test runner or a backend itself.
 */
import type { Store, StoreOptions } from '@stateflow/store';

/** Names of the per-operation groups, one exported function each. */
export type ConformanceGroup =
  | 'publish'
  | 'read'
  | 'history'
  | 'patchAt'
  | 'effectiveAt'
  | 'compaction'
  | 'forkRevert'
  | 'merge'
  | 'undo'
  | 'tags'
  | 'retention'
  | 'audit'
  | 'watch'
  | 'persistence'
  | 'modelBased'
  | 'sharedWriters'
  | 'principalIds';

/**
 * How the suite obtains stores from a backend.
 *
 * Every test calls {@link StoreInitializer.create} once and {@link StoreInitializer.destroy}
 * once on the last store it holds (after zero or more {@link StoreInitializer.reopen} calls).
 */
export interface StoreInitializer {
  /** Backend name shown in the test titles, e.g. `classic-level`. */
  name: string;
  /** Open a new, empty store with the given options. */
  create(options?: StoreOptions): Promise<Store>;
  /** Close `store` if it is open and release everything it used (files, directories). */
  destroy(store: Store): Promise<void>;
  /**
   * Close `store` and open the same data again with `options` (default: the options it was
   * created with). Omit it for backends without persistence: tests that need it are then
   * skipped with the reason recorded.
   */
  reopen?(store: Store, options?: StoreOptions): Promise<Store>;
  /**
   * Open a second store over the same data as `store`, as another process would (a database
   * many processes write). Omit it for backends one process holds at a time: the
   * `sharedWriters` group is then skipped with the reason recorded. `destroy` is called on
   * each store it returns.
   */
  openShared?(store: Store, options?: StoreOptions): Promise<Store>;
  /** Groups this backend skips, each with the reason (recorded and printed, never silent). */
  skip?: Partial<Record<ConformanceGroup, string>>;
  /**
   * Keys of `meta` the backend adds to every publication itself — a server stamps `writer`
   * (server README "Who wrote it"), so a store over HTTP does not keep a caller's meta verbatim:
   * the suite's meta comparisons leave these keys out (`TestContext.callerMeta`).
   */
  stampedMeta?: readonly string[];
}

/** A test function as vitest, mocha and jest define it: `(name, fn, timeoutMs?)`. */
export type TestFn = (name: string, fn: () => Promise<void>, timeoutMs?: number) => void;

/**
 * The injected test runner API. Vitest's `{ describe, it }` fit as they are. `it.skip`, when
 * present, shows skipped tests in the runner's report; skips are recorded either way.
 */
export interface TestApi {
  describe: (name: string, fn: () => void) => void;
  it: TestFn & { skip?: TestFn };
}

/** A test or group the suite did not run, and why. */
export interface SkipRecord {
  backend: string;
  /** The store suite's group, or `storage` for the storage seam's suite. */
  group: ConformanceGroup | 'storage';
  /** Test title, or `null` when the whole group was skipped. */
  test: string | null;
  reason: string;
}

/** Options of {@link runConformance} and of each group function. */
export interface ConformanceOptions {
  /**
   * fast-check runs of the model-based group. Default: `STATEFLOW_FC_RUNS` from the
   * environment, else 20. `npm run test:deep` sets 500.
   */
  runs?: number;
  /** fast-check seed. Default: `STATEFLOW_FC_SEED` from the environment, else random. */
  seed?: number;
  /** Commands per model-based run, inclusive upper bound. Default 25. */
  maxCommands?: number;
  /** Per-test timeout in ms passed to `it`. Default 60,000. */
  timeoutMs?: number;
  /** Called for every skip as it is registered (default: `console.warn` the reason). */
  onSkip?: (skip: SkipRecord) => void;
}
