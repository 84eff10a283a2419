/**
 * What every tool handler works with: the store, the selected owners and the mode, plus
 * helpers over one captured view.
 */
import { StateflowError, elidePath, quotePath } from '@stateflow/core';
import type { JsonObject, JsonValue, OwnerScope } from '@stateflow/core';
import type { Store, StoreView } from '@stateflow/store';
import { relativizeRefs } from '@stateflow/core';
import type { SelectedOwner, Selection } from '../selection.js';

/** The fixed part of a runtime. */
export interface RuntimeContext {
  store: Store;
  /** Selected owners in overlay order (global → cwd → session). */
  owners: SelectedOwner[];
  mode: Selection['mode'];
  /** Most paths in one `read_state` batch (RuntimeOptions.maxReadPaths). */
  maxReadPaths: number;
  /** Most bytes of JSON results in one `read_state` answer (RuntimeOptions.maxResponseBytes). */
  maxResponseBytes: number;
  /** Extra CAS expectations of each publication (RuntimeOptions.precondition). */
  precondition?: () => Promise<Record<string, number>>;
}

/** The selected owner for `scope`, or `undefined` when it is not selected. */
function ownerOf(ctx: RuntimeContext, scope: OwnerScope): SelectedOwner | undefined {
  return ctx.owners.find((owner) => owner.scope === scope);
}

/** The only selected owner's scope when exactly one owner is selected, else `null`. */
export function soleOwner(ctx: RuntimeContext): OwnerScope | null {
  return ctx.owners.length === 1 ? (ctx.owners[0] as SelectedOwner).scope : null;
}

/**
 * The selected owner for an explicit scope root.
 * @throws StateflowError `OWNER_NOT_SELECTED` — an explicit path never widens the selection.
 */
export function requireOwner(ctx: RuntimeContext, scope: OwnerScope, path?: string): SelectedOwner {
  const owner = ownerOf(ctx, scope);
  if (owner !== undefined) return owner;
  const selected = ctx.owners.map((o) => o.scope).join(', ');
  throw new StateflowError(
    'OWNER_NOT_SELECTED',
    `${path === undefined ? 'The patch' : `Path ${quotePath(path)}`} addresses the ${scope} scope, which is not selected here (selected: ${selected}); use a selected scope or an unscoped/effective path.`,
    { ...(path === undefined ? {} : { path: elidePath(path) }), owner: scope },
  );
}

/** Captures one consistent view of every selected stream. */
export function captureView(ctx: RuntimeContext): Promise<StoreView> {
  return ctx.store.view(ctx.owners.map((owner) => owner.stream));
}

/** The captured state and revision of a selected owner (`{}` / 0 when the stream is new). */
export function capturedStream(view: StoreView, owner: SelectedOwner): { rev: number; state: JsonObject } {
  return view.streams[owner.stream] ?? { rev: 0, state: {} };
}

/** Model-facing display: with one selected owner, its anchored refs are shown relative. */
export function display<T extends JsonValue>(ctx: RuntimeContext, value: T): T {
  const sole = soleOwner(ctx);
  return sole === null ? value : relativizeRefs(value, sole);
}
