/**
 * The agent-facing runtime: `read_state`, `patch_state` and the baseline snapshot over one
 * store and one owner selection (seed "Progressive read_state", "patch_state and arrays",
 * "Baseline lazy hint"; DESIGN.md "Paths").
 */
import { StateflowError } from '@stateflow/core';
import type { Store } from '@stateflow/store';
import { buildBaseline, DEFAULT_RECENT_TRANSITIONS } from './baseline.js';
import type { Baseline } from './baseline.js';
import type { RuntimeContext } from './internal/context.js';
import { patchState } from './patch-state.js';
import type { PatchCallOptions, PatchStateResult } from './patch-state.js';
import { MAX_READ_PATHS, MAX_RESPONSE_BYTES, readState } from './read-state.js';
import type { ReadStateResult } from './read-state.js';
import { selectedOwners } from './selection.js';
import type { SelectedOwner, Selection } from './selection.js';

/** Options of {@link createRuntime}. */
export interface RuntimeOptions {
  /** The event store (from `openStore(dir)` or `openMemoryStore()`). Not closed by the runtime. */
  store: Store;
  /** The selected owners and the mode. */
  selection: Selection;
  /** How many recent transitions the baseline considers (default 10, ≥ 0). */
  recentTransitions?: number;
  /** Most paths one `read_state` batch may name (default {@link MAX_READ_PATHS}, ≥ 1). */
  maxReadPaths?: number;
  /**
   * Most bytes (UTF-8 JSON of the results) one `read_state` answer may hold (default
   * {@link MAX_RESPONSE_BYTES}, ≥ 1). Counted while the results are assembled; the read fails
   * with `RESPONSE_TOO_LARGE` as soon as it is crossed.
   */
  maxResponseBytes?: number;
  /**
   * Extra CAS expectations of every `patch_state` publication: called inside the store's write
   * queue before each capture (so once per attempt), it returns `{ stream: revision }` pairs the
   * publication must still find at its head, or throws to refuse the call. A transport uses it
   * to tie a write to the state of something else, e.g. a session record that must still be
   * open when the patch lands (a concurrent close moves that stream and the patch is then
   * re-evaluated, where the precondition refuses it).
   */
  precondition?: () => Promise<Record<string, number>>;
}

/** The agent surface over one store and one owner selection. */
export interface Runtime {
  /** The selected owners in overlay order (global → cwd → session) with their streams. */
  readonly owners: readonly SelectedOwner[];
  /**
   * `read_state`: `{ path } | { paths }` with `projection` `value` (default) | `keys` | `patch`.
   * Returns exactly `{ value }`, `{ meta, keys }` or `{ patch }` (positional arrays for `paths`),
   * or the dangling-reference sentinel `{ value: null, hint }`. Publishes nothing.
   * @throws StateflowError `RESPONSE_TOO_LARGE` (more paths than `maxReadPaths`, checked first;
   *   results over `maxResponseBytes`), `INPUT_INVALID`, `PATH_SYNTAX`, `PATH_NOT_FOUND`, `PATH_KIND`,
   *   `INDEX_OUT_OF_RANGE`, `OWNER_NOT_SELECTED`, `REVISION_NOT_FOUND`, `HISTORY_NOT_RETAINED`,
   *   `STORE_CORRUPT`.
   */
  readState(input: unknown): Promise<ReadStateResult>;
  /**
   * `patch_state`: `{ patch }`. Publishes at most one transition; returns `{ state_updates }`.
   * `options.onPublished` receives that transition.
   * @throws StateflowError `INPUT_INVALID`, `PATCH_INVALID`, `OWNER_NOT_SELECTED`, `CONFLICT`,
   *   `STORE_CORRUPT`; nothing is published then.
   */
  patchState(input: unknown, options?: PatchCallOptions): Promise<PatchStateResult>;
  /** The baseline snapshot: hot effective state, `lazy_navigation`, recent transitions. */
  baseline(): Promise<Baseline>;
}

/**
 * Creates the runtime for `selection` over `store`.
 *
 * Owners map to streams `global`, `cwd:<absolute directory>`, `session:<id>`.
 *
 * Every method is this package's error boundary: bad input is `INPUT_INVALID` /
 * `PATCH_INVALID` / a path code, and anything foreign that still escapes a handler (a bug) is
 * wrapped as `INTERNAL` with the original error as `cause` — callers only ever see a
 * `StateflowError`.
 * @throws StateflowError `INPUT_INVALID` when `options` is not an object, `store` is not a
 *   store, the selection is invalid (see {@link selectedOwners}) or `recentTransitions` is not
 *   an integer ≥ 0.
 */
export function createRuntime(options: RuntimeOptions): Runtime {
  if (typeof options !== 'object' || options === null) {
    throw new StateflowError('INPUT_INVALID', 'createRuntime needs options { store, selection, recentTransitions? }.', { reason: 'type' });
  }
  const store: unknown = options.store;
  // `in`, not a read: wrappers (proxies counting reads) see no extra access.
  if (typeof store !== 'object' || store === null || !('view' in store) || !('publish' in store)) {
    throw new StateflowError('INPUT_INVALID', 'createRuntime options.store must be an open store (openStore or openMemoryStore).', { field: 'store' });
  }
  const recent = options.recentTransitions ?? DEFAULT_RECENT_TRANSITIONS;
  if (!Number.isSafeInteger(recent) || recent < 0) {
    throw new StateflowError('INPUT_INVALID', 'createRuntime options.recentTransitions must be an integer ≥ 0.', { field: 'recentTransitions' });
  }
  const maxReadPaths = options.maxReadPaths ?? MAX_READ_PATHS;
  const maxResponseBytes = options.maxResponseBytes ?? MAX_RESPONSE_BYTES;
  for (const [field, value] of Object.entries({ maxReadPaths, maxResponseBytes })) {
    if (!Number.isSafeInteger(value) || value < 1) {
      throw new StateflowError('INPUT_INVALID', `createRuntime options.${field} must be an integer ≥ 1.`, { field });
    }
  }
  if (options.precondition !== undefined && typeof options.precondition !== 'function') {
    throw new StateflowError('INPUT_INVALID', 'createRuntime options.precondition must be a function returning {stream: revision}.', { field: 'precondition' });
  }
  const ctx: RuntimeContext = {
    store: options.store,
    owners: selectedOwners(options.selection),
    mode: options.selection.mode,
    maxReadPaths,
    maxResponseBytes,
    ...(options.precondition === undefined ? {} : { precondition: options.precondition }),
  };
  return {
    owners: ctx.owners,
    readState: (input) => boundary('read_state', () => readState(ctx, input)),
    patchState: (input, call) => boundary('patch_state', () => patchState(ctx, input, call)),
    baseline: () => boundary('baseline', () => buildBaseline(ctx, recent)),
  };
}

/** Runs one runtime call; a non-Stateflow error escaping it becomes `INTERNAL` (with `cause`). */
async function boundary<T>(operation: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof StateflowError) throw err;
    const text = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
    throw new StateflowError('INTERNAL', `${operation} failed unexpectedly (${text}); this is a bug, please report it.`, { operation }, { cause: err });
  }
}
