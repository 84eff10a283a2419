/**
 * The agent-facing runtime: `read_state`, `patch_state` and the baseline snapshot over one
 * store and one owner selection (seed "Progressive read_state", "patch_state and arrays",
 * "Baseline lazy hint"; DESIGN.md "Paths").
 */
import type { Store } from '@stateflow/store';
import { buildBaseline, DEFAULT_RECENT_TRANSITIONS } from './internal/baseline.js';
import type { Baseline } from './internal/baseline.js';
import type { RuntimeContext } from './internal/context.js';
import { patchState } from './internal/patch-state.js';
import type { PatchStateResult } from './internal/patch-state.js';
import { readState } from './internal/read-state.js';
import type { ReadStateResult } from './internal/read-state.js';
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
}

/** The agent surface over one store and one owner selection. */
export interface Runtime {
  /** The selected owners in overlay order (global → cwd → session) with their streams. */
  readonly owners: readonly SelectedOwner[];
  /**
   * `read_state`: `{ path } | { paths }` with `projection` `value` (default) | `keys` | `patch`.
   * Returns exactly `{ value }`, `{ meta, keys }` or `{ patch }` (positional arrays for `paths`),
   * or the dangling-reference sentinel `{ value: null, hint }`. Publishes nothing.
   * @throws StateflowError `INPUT_INVALID`, `PATH_SYNTAX`, `PATH_NOT_FOUND`, `PATH_KIND`,
   *   `INDEX_OUT_OF_RANGE`, `OWNER_NOT_SELECTED`, `REVISION_NOT_FOUND`, `HISTORY_NOT_RETAINED`,
   *   `STORE_CORRUPT`.
   */
  readState(input: unknown): Promise<ReadStateResult>;
  /**
   * `patch_state`: `{ patch }`. Publishes at most one transition; returns `{ state_updates }`.
   * @throws StateflowError `INPUT_INVALID`, `PATCH_INVALID`, `OWNER_NOT_SELECTED`, `CONFLICT`,
   *   `STORE_CORRUPT`; nothing is published then.
   */
  patchState(input: unknown): Promise<PatchStateResult>;
  /** The baseline snapshot: hot effective state, `lazy_navigation`, recent transitions. */
  baseline(): Promise<Baseline>;
}

/**
 * Creates the runtime for `selection` over `store`.
 *
 * Owners map to streams `global`, `cwd:<absolute directory>`, `session:<id>`.
 * @throws StateflowError `INPUT_INVALID` for an empty selection or an unknown mode.
 */
export function createRuntime(options: RuntimeOptions): Runtime {
  const ctx: RuntimeContext = {
    store: options.store,
    owners: selectedOwners(options.selection),
    mode: options.selection.mode,
  };
  const recent = options.recentTransitions ?? DEFAULT_RECENT_TRANSITIONS;
  return {
    owners: ctx.owners,
    readState: (input) => readState(ctx, input),
    patchState: (input) => patchState(ctx, input),
    baseline: () => buildBaseline(ctx, recent),
  };
}
