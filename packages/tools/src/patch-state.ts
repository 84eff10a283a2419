/**
 * The `patch_state` handler (seed "patch_state and arrays", "Intent ownership", "Publication
 * and storage", "Failure semantics").
 *
 * One call = one captured basis, the ownership cascade per scope, and at most one accepted
 * transition across every changed scope (one revision per changed scope), published with CAS
 * against the captured revisions. Any failure publishes nothing.
 */
import {
  HOT_PLANES,
  StateflowError,
  anchorRefs,
  applyWithIntentOwnership,
  childPointer,
  diff,
  hasOwn,
  isJsonObject,
  isPathKey,
  isPlane,
  netPatch,
  isStateflowError,
  prefixPatchError,
  validatePatchKeys,
} from '@stateflow/core';
import type { JsonObject, JsonValue, OwnerScope, PatchInvalidReason, PatchOptions } from '@stateflow/core';
import { SerialQueue, retryOnConflict } from '@stateflow/store';
import type { Store, StoreView, Transition } from '@stateflow/store';
import { captureView, capturedStream, display, requireOwner, soleOwner } from './internal/context.js';
import type { RuntimeContext } from './internal/context.js';
import { checkToolInput } from './internal/input-validation.js';
import { scopeSelectors } from './baseline.js';
import { effectiveView } from './internal/views.js';
import type { SelectedOwner } from './selection.js';

/**
 * How many times a call is evaluated against a freshly captured basis when a writer outside the
 * per-store queue (a ladder run, a direct `store.publish`, another server on a shared PostgreSQL
 * store) moved a changed stream's head in between (CAS `CONFLICT`). Calls through this package in
 * one process never conflict with each other: they are queued per store. Across processes the
 * store's CAS plus this re-evaluation is what holds, with a random backoff of up to
 * n × {@link CONFLICT_BACKOFF_MS} before attempt n + 1. After the last attempt the `CONFLICT` is
 * returned to the caller.
 */
export const MAX_PUBLISH_ATTEMPTS = 8;

/** The backoff step between re-evaluations after a `CONFLICT`, in ms (see {@link MAX_PUBLISH_ATTEMPTS}). */
const CONFLICT_BACKOFF_MS = 5;

/** One `state_updates.effective` entry: the final effective value of a changed hot path, or its deletion. */
export type EffectiveUpdate = { path: string; value: JsonValue } | { path: string; deleted: true };

/**
 * The receipt of an accepted `patch_state`.
 * - `cascaded`: targets the ownership phase cleared (paths only), absent when none.
 * - `effective`: one entry per changed hot path (`plane.key`, or `plane` when the plane itself
 *   was replaced or deleted): its final effective value, or `deleted: true` when nothing
 *   remains in the effective view. Lazy paths never appear.
 */
export interface PatchStateResult {
  state_updates: {
    cascaded?: string[];
    effective: EffectiveUpdate[];
    /**
     * Present when the call published: per changed scope, the historical selector that reads
     * the scope as this call left it (`{"cwd": "cwd[12]"}`), for later `read_state` of history.
     */
    selectors?: Partial<Record<OwnerScope, string>>;
  };
}

const SCOPES: readonly OwnerScope[] = ['global', 'cwd', 'session'];

/**
 * The per-store write queue (seed "Publication and storage"; README "Publication"). A LevelDB
 * store is held by one process, so every writer of a store through this package lives in this
 * process: queueing capture → stage → publish per `Store` object means two calls never race for
 * the same heads, whatever keys they touch. On a PostgreSQL store the queue orders this
 * process's calls only: writers in other processes (other servers, the CLI) and those that bypass
 * the runtime (ladder runs) are caught by the database's CAS and the bounded re-evaluation with
 * backoff in {@link publishPatches}. A store with no queued call holds no entry.
 */
const writeQueue = new SerialQueue<Store>();

const AGENT_PATCH: PatchOptions = { emptyObjects: 'refuse' };

/**
 * Handles one `patch_state` call. Input checks run at once; capture → stage → publish runs in
 * the store's queue ({@link writeQueue}), so concurrent calls on one store never conflict.
 * @throws StateflowError `INPUT_INVALID`, `PATCH_INVALID`, `OWNER_NOT_SELECTED`, `CONFLICT`
 *   (after {@link MAX_PUBLISH_ATTEMPTS}), and store errors; nothing is published then.
 */
export async function patchState(ctx: RuntimeContext, input: unknown, options: PatchCallOptions = {}): Promise<PatchStateResult> {
  const request = checkToolInput('patch_state', input);
  const patches = scopePatches(ctx, request.patch as JsonObject);
  return writeQueue.run(ctx.store, () => publishPatches(ctx, patches, options));
}

/** Options of one `patch_state` call beyond the tool input. */
export interface PatchCallOptions {
  /**
   * Receives the transition the call published (not called when the patch changed nothing).
   * A caller that does not hold the store alone — a client of a server — learns its seq here.
   */
  onPublished?: (transition: Transition) => void;
}

/**
 * Captures, stages and publishes `patches` with CAS; on `CONFLICT` (a writer that bypassed the
 * per-store queue moved a head) the call is re-evaluated on a fresh capture, at most
 * {@link MAX_PUBLISH_ATTEMPTS} times.
 */
async function publishPatches(ctx: RuntimeContext, patches: Map<SelectedOwner, ScopePatch>, options: PatchCallOptions): Promise<PatchStateResult> {
  return retryOnConflict({ attempts: MAX_PUBLISH_ATTEMPTS, backoffMs: CONFLICT_BACKOFF_MS }, async () => {
    const guards = (await ctx.precondition?.()) ?? {};
    const view = await captureView(ctx);
    const staged = stage(view, patches);
    if (staged.changes.size === 0) return receipt(ctx, view, staged);
    const changes: Record<string, JsonObject> = {};
    const expected: Record<string, number | 'none'> = { ...guards };
    for (const [owner, change] of staged.changes) {
      changes[owner.stream] = change.net;
      const rev = capturedStream(view, owner).rev;
      expected[owner.stream] = rev === 0 ? 'none' : rev;
    }
    // No idempotency id: the answer is `accepted` or `noop`, never a duplicate.
    const published = await ctx.store.publish({ changes, expected });
    const result = receipt(ctx, view, staged);
    if (published.status === 'accepted') {
      options.onPublished?.(published.transition);
      result.state_updates.selectors = scopeSelectors(ctx, published.transition.changes);
    }
    return result;
  });
}

/**
 * Splits the model's patch into canonical per-scope patches (global, cwd, session order):
 * scoped (`{cwd: {...}}`), or unscoped planes with exactly one selected owner. With one owner,
 * eligible flat `$ref`s are anchored to it.
 */
function scopePatches(ctx: RuntimeContext, patch: JsonObject): Map<SelectedOwner, ScopePatch> {
  const keys = Object.keys(patch);
  const scoped = keys.filter((key) => (SCOPES as readonly string[]).includes(key));
  const out = new Map<SelectedOwner, ScopePatch>();
  if (scoped.length === 0) {
    const sole = soleOwner(ctx);
    if (sole === null) {
      throw invalid(
        `An unscoped patch needs exactly one selected owner, but ${ctx.owners.map((o) => o.scope).join(', ')} are selected; name the scope, as in {"${(ctx.owners[ctx.owners.length - 1] as SelectedOwner).scope}": {"tactics": {...}}}.`,
        'unscoped-ambiguous',
      );
    }
    out.set(requireOwner(ctx, sole), { patch: checkScopePatch(ctx, sole, patch), at: '' });
  } else {
    if (scoped.length !== keys.length) {
      const plane = keys.find((key) => !scoped.includes(key));
      throw invalid(`A patch is either scoped or unscoped: "${String(plane)}" sits beside scope "${String(scoped[0])}"; move it under a scope.`, 'mixed-scoped-and-unscoped');
    }
    for (const scope of SCOPES) {
      if (!hasOwn(patch, scope)) continue;
      const owner = requireOwner(ctx, scope);
      const scopePatch = patch[scope];
      if (!isJsonObject(scopePatch)) {
        throw invalid(`The ${scope} patch must be an object of planes, got ${JSON.stringify(scopePatch)}.`, 'not-object', scope);
      }
      out.set(owner, { patch: checkScopePatch(ctx, scope, scopePatch), at: childPointer('', scope) });
    }
  }
  const sole = soleOwner(ctx);
  if (sole !== null) for (const [owner, scopePatch] of out) out.set(owner, { ...scopePatch, patch: anchorRefs(scopePatch.patch, sole) });
  return out;
}

/** One scope's part of the tool's patch, and the RFC 6901 pointer to it in the tool's patch. */
interface ScopePatch {
  patch: JsonObject;
  at: string;
}

/** Plane rules of one scope's patch that hold whatever the basis. */
function checkScopePatch(ctx: RuntimeContext, scope: OwnerScope, patch: JsonObject): JsonObject {
  const keys = Object.keys(patch);
  if (keys.length === 0) throw invalid(`The ${scope} patch is empty; an empty patch is an invalid no-op.`, 'empty', scope);
  for (const key of keys) {
    if (!isPlane(key)) {
      throw invalid(
        `"${key}" is not a plane of ${scope}; patch_state writes intents, strategy, tactics, artifacts, response or lazy.`,
        'unknown-plane',
        scope,
        key,
      );
    }
  }
  if (hasOwn(patch, 'lazy') && patch.lazy !== null && !isJsonObject(patch.lazy)) {
    throw invalid(`The ${scope} lazy root must be an object, got ${kindName(patch.lazy as JsonValue)}; put the value under a key, as in {"lazy": {"notes": ...}}.`, 'lazy-root', scope, 'lazy');
  }
  if (hasOwn(patch, 'response')) {
    if (scope !== 'session') {
      throw invalid(`New answers are written only to the session; ${scope}.response is not writable.`, 'response-owner', scope, 'response');
    }
    if (ctx.mode === 'passive') {
      throw invalid('Passive mode writes no response; session.response is writable only in Active mode.', 'response-passive', 'session', 'response');
    }
  }
  return patch;
}

interface Staged {
  /** Changed owners in global, cwd, session order with their final state and net patch. */
  changes: Map<SelectedOwner, { after: JsonObject; net: JsonObject }>;
  /** Cleared targets as canonical scoped key steps, in receipt order. */
  cascaded: { scope: OwnerScope; keys: string[] }[];
}

/** Applies every scope patch with the ownership cascade against one captured basis. */
function stage(view: StoreView, patches: Map<SelectedOwner, ScopePatch>): Staged {
  const staged: Staged = { changes: new Map(), cascaded: [] };
  for (const [owner, { patch, at }] of patches) {
    const before = capturedStream(view, owner).state;
    // Seed "Limits and change authority": "Names must fit the shared path grammar" — a name the
    // patch adds must be one a read_state path can reach; members the basis has (an imported
    // document's "lodash.merge") stay editable and deletable.
    validatePatchKeys(before, patch, at);
    // The agent patch language refuses `{}` that would create or replace a value: the patch
    // projection would read that change as `{}`, "no change" (core PatchOptions).
    const { after, cascaded } = inToolPatch(at, () => applyWithIntentOwnership(owner.scope, before, patch, AGENT_PATCH));
    if (hasOwn(after, 'lazy') && !isJsonObject(after.lazy)) {
      throw invalid(`The ${owner.scope} lazy root must stay an object.`, 'lazy-root', owner.scope, 'lazy');
    }
    for (const keys of cascaded) staged.cascaded.push({ scope: owner.scope, keys });
    // Without a cascade the authored patch's own net form is stored (a whole-array replacement
    // stays a replacement in the `patch` projection); a cascade can clear and rewrite the same
    // target, which only a diff of the final state expresses.
    const net = cascaded.length === 0 ? netPatch(before, patch, AGENT_PATCH) : diff(before, after);
    if (Object.keys(net).length > 0) staged.changes.set(owner, { after, net });
  }
  return staged;
}

/** Builds the receipt from the captured basis plus the staged final states. */
function receipt(ctx: RuntimeContext, view: StoreView, staged: Staged): PatchStateResult {
  const sole = soleOwner(ctx);
  const finalStates = ctx.owners.map((owner) => staged.changes.get(owner)?.after ?? capturedStream(view, owner).state);
  const effective = effectiveView(finalStates, ctx.mode);
  const updates: { cascaded?: string[] } = {};
  if (staged.cascaded.length > 0) {
    updates.cascaded = staged.cascaded.map(({ scope, keys }) => (sole === null ? [scope, ...keys] : keys).join('.'));
  }
  const effectiveUpdates: EffectiveUpdate[] = [];
  for (const [plane, key] of changedHotPaths([...staged.changes.values()].map((c) => c.net))) {
    const planeValue = effective[plane];
    const value = key === null ? planeValue : isJsonObject(planeValue) && hasOwn(planeValue, key) ? planeValue[key] : undefined;
    const path = key === null ? plane : `${plane}.${key}`;
    effectiveUpdates.push(value === undefined ? { path, deleted: true } : { path, value: display(ctx, value as JsonValue) });
  }
  return { state_updates: { ...updates, effective: effectiveUpdates } };
}

/**
 * The changed hot paths of net patches: `[plane, key]` for each member of an object plane
 * patch (keys that cannot be written as a path fall back to the plane), `[plane, null]` when a
 * plane is replaced or deleted whole. Hot plane order, then first appearance; no duplicates.
 */
function changedHotPaths(nets: JsonObject[]): [string, string | null][] {
  const out: [string, string | null][] = [];
  const seen = new Set<string>();
  const add = (plane: string, key: string | null): void => {
    const id = JSON.stringify([plane, key]);
    if (seen.has(id) || seen.has(JSON.stringify([plane, null]))) return;
    seen.add(id);
    out.push([plane, key]);
  };
  for (const plane of HOT_PLANES) {
    for (const net of nets) {
      if (!hasOwn(net, plane)) continue;
      const planePatch = net[plane] as JsonValue;
      const keys = isJsonObject(planePatch) ? Object.keys(planePatch) : null;
      if (keys === null || keys.some((key) => !isPathKey(key))) {
        // the whole plane is reported; drop any finer entries already listed for it
        for (let i = out.length - 1; i >= 0; i--) if ((out[i] as [string, string | null])[0] === plane) out.splice(i, 1);
        add(plane, null);
      } else {
        for (const key of keys) add(plane, key);
      }
    }
  }
  return out;
}

function kindName(value: JsonValue): string {
  return Array.isArray(value) ? 'an array' : value === null ? 'null' : `a ${typeof value}`;
}

/** Run `fn`; a PATCH_INVALID it raises about a scope's patch points into the tool's patch (`at` + its pointer). */
function inToolPatch<T>(at: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (!isStateflowError(err, 'PATCH_INVALID') || at === '') throw err;
    throw prefixPatchError(err, at);
  }
}

/** PATCH_INVALID with `at` the RFC 6901 pointer of `segments` into the tool's patch (`""`: the whole patch). */
function invalid(message: string, reason: PatchInvalidReason, ...segments: string[]): StateflowError<'PATCH_INVALID'> {
  return new StateflowError('PATCH_INVALID', message, { reason, at: segments.reduce(childPointer, '') });
}
