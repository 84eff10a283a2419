/**
 * Group plumbing: registers a `describe` block, hands each test a fresh store, releases it
 * afterwards, and records skips with their reason.
 */
import type { JsonObject } from '@stateflow/core';
import type { Store, StoreOptions } from '@stateflow/store';
import type {
  ConformanceGroup,
  ConformanceOptions,
  SkipRecord,
  StoreInitializer,
  TestApi,
} from '../initializer.js';

/** What a test body receives. `store` follows reopens. */
export interface TestContext {
  readonly store: Store;
  /** Close and reopen the same data (only in tests declared with `needsReopen`). */
  reopen(options?: StoreOptions): Promise<Store>;
  /** `meta` without the keys the backend stamps itself ({@link StoreInitializer.stampedMeta}); `null` for none. */
  callerMeta(meta: JsonObject | undefined): JsonObject | null;
}

/** Per-test settings. */
export interface TestSettings {
  /** Options for `create` (e.g. a small `checkpointInterval` so checkpoints are crossed). */
  options?: StoreOptions;
  /** The test closes and reopens the store; skipped when the initializer cannot. */
  needsReopen?: boolean;
  /**
   * The test writes as several writers (`meta.writer`); skipped on a backend that stamps the
   * writer itself ({@link StoreInitializer.stampedMeta}: a server), where every write is its caller's.
   */
  needsCallerWriter?: boolean;
}

/** Registers tests of one group. */
export interface GroupBuilder {
  test(name: string, body: (ctx: TestContext) => Promise<void>, settings?: TestSettings): void;
  /** Register a test that opens its own stores (e.g. one per fast-check run). */
  plain(name: string, body: () => Promise<void>, settings?: Pick<TestSettings, 'needsReopen'>): void;
  readonly init: StoreInitializer;
  readonly options: ConformanceOptions;
}

const DEFAULT_TIMEOUT_MS = 60_000;

/** The reason used when a test writes as several writers and the backend stamps `meta.writer` itself. */
const STAMPED_WRITER_REASON = 'the backend stamps meta.writer itself (a server: every write is its caller\'s), so the test cannot write as several writers';

/** The reason used when a test needs {@link StoreInitializer.reopen} and the backend has none. */
const NO_REOPEN_REASON = 'the initializer has no reopen (no persistence to test)';

/** The default skip reporter: one `console.warn` line naming the backend, test and reason. */
export function warnSkip(skip: SkipRecord): void {
  console.warn(`[conformance] skipped ${skip.backend} ${skip.group}${skip.test ? ` › ${skip.test}` : ''}: ${skip.reason}`);
}

function recordSkip(options: ConformanceOptions, skip: SkipRecord): void {
  (options.onSkip ?? warnSkip)(skip);
}

function registerSkip(api: TestApi, title: string, reason: string): void {
  api.it.skip?.(`${title} (skipped: ${reason})`, async () => undefined);
}

/**
 * Register `skip.test` as skipped with its reason (shown by runners with `it.skip`) and report
 * it to `options.onSkip`, so no skip is silent.
 */
export function skipTest(api: TestApi, options: ConformanceOptions, skip: SkipRecord & { test: string }): void {
  recordSkip(options, skip);
  registerSkip(api, skip.test, skip.reason);
}

/** Run `body` with a fresh store from `init`, always destroying the last store held. */
export async function withStore<T>(
  init: StoreInitializer,
  options: StoreOptions | undefined,
  body: (ctx: TestContext) => Promise<T>,
): Promise<T> {
  let store = await init.create(options);
  const ctx: TestContext = {
    get store() {
      return store;
    },
    async reopen(reopenOptions) {
      if (!init.reopen) throw new Error(NO_REOPEN_REASON);
      store = await init.reopen(store, reopenOptions ?? options);
      return store;
    },
    callerMeta(meta) {
      if (meta === undefined) return null;
      const stamped = new Set(init.stampedMeta ?? []);
      return Object.fromEntries(Object.entries(meta).filter(([key]) => !stamped.has(key))) as JsonObject;
    },
  };
  try {
    return await body(ctx);
  } finally {
    await init.destroy(store);
  }
}

/**
 * Register the group `group` titled `title`: the whole group is skipped (and recorded) when
 * `init.skip[group]` gives a reason.
 */
export function defineGroup(
  group: ConformanceGroup,
  title: string,
  init: StoreInitializer,
  api: TestApi,
  options: ConformanceOptions,
  register: (builder: GroupBuilder) => void,
): void {
  const timeout = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const groupReason = init.skip?.[group];
  api.describe(`${init.name} ${title}`, () => {
    if (groupReason !== undefined) {
      recordSkip(options, { backend: init.name, group, test: null, reason: groupReason });
      registerSkip(api, title, groupReason);
      return;
    }
    const skippedForReopen = (name: string, settings: Pick<TestSettings, 'needsReopen' | 'needsCallerWriter'>): boolean => {
      const reason =
        settings.needsReopen === true && !init.reopen ? NO_REOPEN_REASON : settings.needsCallerWriter === true && (init.stampedMeta ?? []).includes('writer') ? STAMPED_WRITER_REASON : null;
      if (reason === null) return false;
      recordSkip(options, { backend: init.name, group, test: name, reason });
      registerSkip(api, name, reason);
      return true;
    };
    register({
      init,
      options,
      test(name, body, settings = {}) {
        if (skippedForReopen(name, settings)) return;
        api.it(name, () => withStore(init, settings.options, body), timeout);
      },
      plain(name, body, settings = {}) {
        if (skippedForReopen(name, settings)) return;
        api.it(name, body, timeout);
      },
    });
  });
}
