/**
 * The baseline snapshot injected at iteration start (seed "Semantic model", "Baseline lazy
 * hint", "Activation and promotion"; DESIGN.md "Effective overlay and planes").
 */
import { HOT_PLANES, hasOwn, lazyNavigation } from '@stateflow/core';
import type { JsonObject, JsonValue, LazyNavigation } from '@stateflow/core';
import type { Transition } from '@stateflow/store';
import { captureView, capturedStream, display, soleOwner } from './context.js';
import type { RuntimeContext } from './context.js';
import { effectiveView } from './views.js';
import { lastTransitionsOf } from './recent-transitions.js';
import type { SelectedOwner } from '../selection.js';

/** A recent transition as the baseline shows it: its global seq and its visible patch. */
export interface BaselineTransition {
  /** Global transition number (never renumbered when lazy-only transitions disappear). */
  seq: number;
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
 * Builds the baseline from one captured view.
 *
 * `transitions` considers the `recent` most recent transitions (≤ the view) that changed a
 * selected owner; transitions whose visible patch is empty once `lazy` is removed are dropped
 * (so fewer may be listed), and the others keep their global `seq`.
 */
export async function buildBaseline(ctx: RuntimeContext, recent: number): Promise<Baseline> {
  const view = await captureView(ctx);
  const effective = effectiveView(ctx.owners.map((owner) => capturedStream(view, owner).state), ctx.mode);
  const state: JsonObject = {};
  for (const plane of HOT_PLANES) if (hasOwn(effective, plane)) state[plane] = effective[plane] as JsonValue;
  const sole = soleOwner(ctx);
  const navigation = lazyNavigation(effective.lazy, sole === null ? 'effective.lazy' : 'lazy');
  const transitions: BaselineTransition[] = [];
  for (const transition of await recentTransitions(ctx, view.seq, recent)) {
    const visible = visiblePatch(ctx, transition);
    if (visible !== null) transitions.push({ seq: transition.seq, patch: display(ctx, visible) });
  }
  return { state: display(ctx, state), lazy_navigation: navigation, transitions };
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

/** The selected owners' parts of a transition without `lazy`, or `null` when nothing remains. */
function visiblePatch(ctx: RuntimeContext, transition: Transition): JsonObject | null {
  const scoped: JsonObject = {};
  for (const owner of ctx.owners) {
    const change = transition.changes.find((c) => c.stream === owner.stream);
    if (change === undefined) continue;
    const hot = withoutLazy(change.patch);
    if (hot !== null) scoped[owner.scope] = hot;
  }
  const scopes = Object.keys(scoped);
  if (scopes.length === 0) return null;
  const sole = soleOwner(ctx);
  return sole === null ? scoped : (scoped[(ctx.owners[0] as SelectedOwner).scope] as JsonObject);
}

function withoutLazy(patch: JsonObject): JsonObject | null {
  const { lazy: _lazy, ...hot } = patch;
  return Object.keys(hot).length === 0 ? null : hot;
}
