/**
 * The baseline snapshot injected at iteration start (seed "Semantic model", "Baseline lazy
 * hint", "Activation and promotion"; DESIGN.md "Effective overlay and planes").
 */
import { HOT_PLANES, hasOwn, lazyNavigation } from '@stateflow/core';
import type { JsonObject, JsonValue, LazyNavigation, OwnerScope } from '@stateflow/core';
import type { Transition } from '@stateflow/store';
import { captureView, capturedStream, display, soleOwner } from './internal/context.js';
import type { RuntimeContext } from './internal/context.js';
import { effectiveView } from './internal/views.js';
import { lastTransitionsOf } from './internal/recent-transitions.js';
import type { SelectedOwner } from './selection.js';

/** A recent transition as the baseline shows it: its global seq, where to read it, its visible patch. */
export interface BaselineTransition {
  /** Global transition number (never renumbered when lazy-only transitions disappear); `effective[seq]` reads the view after it. */
  seq: number;
  /**
   * Per selected scope the transition changed, the historical selector that reads that scope
   * as it left it (`{"cwd": "cwd[12]"}`): a scope's `[N]` counts its own revisions, not
   * global transitions, so the agent could not derive it from `seq`.
   */
  selectors: Partial<Record<OwnerScope, string>>;
  /**
   * The selected owners' net patches without their `lazy` parts: scoped (`{cwd: {...}}`), or
   * the sole owner's patch unscoped when exactly one owner is selected.
   */
  patch: JsonObject;
}

/** The baseline snapshot. */
export interface Baseline {
  /** Hot effective state: present planes in order intents, strategy, tactics, artifacts, response. */
  state: JsonObject;
  /** Bounded navigation hint for the effective lazy root (never its bodies). */
  lazy_navigation: LazyNavigation;
  /** Recent transitions of the selected owners, oldest first, lazy parts removed. */
  transitions: BaselineTransition[];
}

/** Default number of recent transitions the baseline considers. */
export const DEFAULT_RECENT_TRANSITIONS = 10;

/**
 * Most transitions the baseline examines to find `recent` visible ones: lazy-only transitions
 * are skipped (seed "Empty visible patches/transitions disappear … hot changes remain
 * visible"), so a hot change stays listed behind up to this many lazy-only writes.
 */
export const MAX_SCANNED_TRANSITIONS = 10_000;

/**
 * Builds the baseline from one captured view.
 *
 * `transitions` lists the `recent` most recent visible transitions (≤ the view) of the
 * selected owners: filtered first — a transition whose patch is empty once `lazy` (and, in
 * Passive mode, `response`) is removed is not visible — then the last `recent` kept, looking
 * back at most {@link MAX_SCANNED_TRANSITIONS}. Each keeps its global `seq`.
 */
export async function buildBaseline(ctx: RuntimeContext, recent: number): Promise<Baseline> {
  const view = await captureView(ctx);
  const effective = effectiveView(ctx.owners.map((owner) => capturedStream(view, owner).state), ctx.mode);
  const state: JsonObject = {};
  for (const plane of HOT_PLANES) if (hasOwn(effective, plane)) state[plane] = effective[plane] as JsonValue;
  const sole = soleOwner(ctx);
  const navigation = lazyNavigation(effective.lazy, sole === null ? 'effective.lazy' : 'lazy');
  const transitions: BaselineTransition[] = [];
  for (const { transition, visible } of await recentVisible(ctx, view.seq, recent)) {
    transitions.push({ seq: transition.seq, selectors: scopeSelectors(ctx, transition.changes), patch: display(ctx, visible) });
  }
  return { state: display(ctx, state), lazy_navigation: navigation, transitions };
}

/** The `count` most recent visible transitions (seq ≤ `last`), oldest first, with their visible patches. */
async function recentVisible(ctx: RuntimeContext, last: number, count: number): Promise<Array<{ transition: Transition; visible: JsonObject }>> {
  if (count <= 0) return [];
  for (let scan = Math.min(count, MAX_SCANNED_TRANSITIONS); ; scan = Math.min(scan * 4, MAX_SCANNED_TRANSITIONS)) {
    const examined = await recentTransitions(ctx, last, scan);
    const found: Array<{ transition: Transition; visible: JsonObject }> = [];
    for (const transition of examined) {
      const visible = visiblePatch(ctx, transition);
      if (visible !== null) found.push({ transition, visible });
    }
    if (found.length >= count || examined.length < scan || scan >= MAX_SCANNED_TRANSITIONS) return found.slice(-count);
  }
}

/** `{"cwd": "cwd[12]"}` for each selected owner among `changes` (stream and revision pairs). */
export function scopeSelectors(ctx: RuntimeContext, changes: ReadonlyArray<{ stream: string; rev: number }>): Partial<Record<OwnerScope, string>> {
  const selectors: Partial<Record<OwnerScope, string>> = {};
  for (const owner of ctx.owners) {
    const change = changes.find((c) => c.stream === owner.stream);
    if (change !== undefined) selectors[owner.scope] = `${owner.scope}[${change.rev}]`;
  }
  return selectors;
}

/** The `count` most recent transitions (seq ≤ `last`) that changed a selected owner, oldest first. */
async function recentTransitions(ctx: RuntimeContext, last: number, count: number): Promise<Transition[]> {
  if (count <= 0 || last === 0) return [];
  const bySeq = new Map<number, Transition>();
  for (const owner of ctx.owners) {
    for (const transition of await lastTransitionsOf(ctx.store, owner.stream, last, count)) bySeq.set(transition.seq, transition);
  }
  return [...bySeq.values()].sort((a, b) => a.seq - b.seq).slice(-count);
}

/**
 * The selected owners' parts of a transition without `lazy` (and without `response` in Passive
 * mode, which omits it everywhere), or `null` when nothing remains.
 */
function visiblePatch(ctx: RuntimeContext, transition: Transition): JsonObject | null {
  const scoped: JsonObject = {};
  for (const owner of ctx.owners) {
    const change = transition.changes.find((c) => c.stream === owner.stream);
    if (change === undefined) continue;
    const hot = hotPart(change.patch, ctx.mode);
    if (hot !== null) scoped[owner.scope] = hot;
  }
  const scopes = Object.keys(scoped);
  if (scopes.length === 0) return null;
  const sole = soleOwner(ctx);
  return sole === null ? scoped : (scoped[(ctx.owners[0] as SelectedOwner).scope] as JsonObject);
}

function hotPart(patch: JsonObject, mode: RuntimeContext['mode']): JsonObject | null {
  const { lazy: _lazy, ...hot } = patch;
  if (mode === 'passive') delete hot.response;
  return Object.keys(hot).length === 0 ? null : hot;
}
