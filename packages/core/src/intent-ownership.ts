/**
 * Intent ownership (seed "Intent ownership").
 *
 * A structured `{"$ref"}` anywhere inside an `intents` entry means "delete with me" for an
 * existing object key under `strategy`, `tactics` or `lazy` of the same scope. When a patch
 * deletes an intent entry, the scope's patch is applied in three phases, independent of the
 * patch's key order:
 *
 * 1. the `intents` part of the patch alone;
 * 2. the cascade: every eligible target of every deleted intent entry is cleared, unless a
 *    structured reference in the final intents (remaining or new entries) of the same scope
 *    names it directly, an ancestor of it, or a descendant of it;
 * 3. the remaining authored planes (which may recreate cleared targets as fresh values).
 *
 * Only canonical references count (after sole-owner anchoring, see `anchorRefs`). Textual
 * `$cwd.lazy.plan` mentions never own or protect. Skipped silently: other scopes, plane roots,
 * paths through array elements, `artifacts`/`response`/`intents` targets, unscoped, `effective`
 * or historical refs, missing targets, and keys outside the key grammar (unparsable refs).
 *
 * The caller publishes the net patch of the final state (which includes the cascade's
 * deletions), so replay never reruns the cascade.
 */
import { isJsonObject, hasOwn } from './json.js';
import type { JsonObject, JsonValue } from './json.js';
import { findStructuredRefs, parseRefPath } from './references.js';
import type { OwnerScope } from './references.js';
import type { PathStep } from './path-grammar.js';
import { applyPatch } from './patch-apply.js';
import type { PatchOptions } from './patch-options.js';
import { defineData } from './internal/define-data.js';

/** Planes whose object keys an intent can own. */
const OWNABLE_PLANES: ReadonlySet<string> = new Set(['strategy', 'tactics', 'lazy']);

/** Result of {@link applyWithIntentOwnership} for one scope. */
export interface OwnershipResult {
  /** The scope's final state: intents, then the cascade, then the remaining planes. */
  after: JsonObject;
  /**
   * Targets cleared in the ownership phase, in cascade order, each as its key steps below the
   * scope root (`['lazy', 'plans', 'x']`). Reported even when phase 3 recreates them.
   */
  cascaded: string[][];
}

/**
 * Applies one scope's patch with the intent ownership cascade.
 *
 * Cascade order within a scope (deterministic, independent of insertion order): targets sorted
 * by their key steps, compared key by key in UTF-16 code-unit order, an ancestor before its
 * descendants (so a descendant of an already cleared target is skipped as missing).
 *
 * @param scope the scope that owns `before` and `patch` (`global`, `cwd` or `session`).
 * @param before the scope's state at the captured basis.
 * @param patch the scope's canonical (already anchored) semantic patch.
 * @param options as {@link applyPatch}'s, for the authored parts (intents, then the rest).
 * @throws StateflowError `PATCH_INVALID` / `INDEX_OUT_OF_RANGE` from `applyPatch` for an invalid
 *   patch; nothing is returned then.
 */
export function applyWithIntentOwnership(scope: OwnerScope, before: JsonObject, patch: JsonObject, options?: PatchOptions): OwnershipResult {
  if (!hasOwn(patch, 'intents')) return { after: applyPatch(before, patch, options), cascaded: [] };

  const intentsPatch: JsonObject = {};
  const rest: JsonObject = {};
  for (const key of Object.keys(patch)) defineData(key === 'intents' ? intentsPatch : rest, key, patch[key] as JsonValue);

  let state = applyPatch(before, intentsPatch, options);
  const cascaded: string[][] = [];
  for (const target of ownedTargets(scope, before.intents, state.intents)) {
    if (!exists(state, target)) continue;
    state = applyPatch(state, deletion(target));
    cascaded.push(target);
  }
  if (Object.keys(rest).length > 0) state = applyPatch(state, rest, options);
  return { after: state, cascaded };
}

/**
 * The eligible, unprotected targets of intent entries deleted between `beforeIntents` and
 * `afterIntents`, sorted in cascade order and without duplicates. Existence is not checked here.
 */
function ownedTargets(scope: OwnerScope, beforeIntents: JsonValue | undefined, afterIntents: JsonValue | undefined): string[][] {
  if (!isJsonObject(beforeIntents)) return [];
  const remaining = isJsonObject(afterIntents) ? afterIntents : {};
  const deleted = Object.keys(beforeIntents).filter((key) => !hasOwn(remaining, key));
  if (deleted.length === 0) return [];

  const protectors = canonicalRefSteps(scope, remaining);
  const targets = new Map<string, string[]>();
  for (const key of deleted) {
    for (const steps of canonicalRefSteps(scope, beforeIntents[key] as JsonValue)) {
      const keys = eligibleKeys(steps);
      if (keys === null || protectors.some((p) => related(p, steps))) continue;
      targets.set(JSON.stringify(keys), keys);
    }
  }
  return [...targets.values()].sort(compareKeys);
}

/** Steps of every structured `$ref` in `value` that is canonical, current and rooted at `scope`. */
function canonicalRefSteps(scope: OwnerScope, value: JsonValue): PathStep[][] {
  const out: PathStep[][] = [];
  for (const ref of findStructuredRefs(value, ['$ref'])) {
    const parsed = parseRefPath(ref.text);
    if (parsed !== null && parsed.root === scope && parsed.at === null) out.push(parsed.steps);
  }
  return out;
}

/** The key steps of an ownable target (an object key below strategy/tactics/lazy), else `null`. */
function eligibleKeys(steps: PathStep[]): string[] | null {
  if (steps.length < 2) return null;
  const keys: string[] = [];
  for (const step of steps) {
    if (step.kind !== 'key') return null;
    keys.push(step.key);
  }
  return OWNABLE_PLANES.has(keys[0] as string) ? keys : null;
}

/** True when one step list is a prefix of the other (same path, ancestor or descendant). */
function related(a: PathStep[], b: PathStep[]): boolean {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (!sameStep(a[i] as PathStep, b[i] as PathStep)) return false;
  return true;
}

function sameStep(a: PathStep, b: PathStep): boolean {
  if (a.kind === 'key') return b.kind === 'key' && a.key === b.key;
  if (a.kind === 'index') return b.kind === 'index' && a.index === b.index;
  return b.kind === 'range' && a.start === b.start && a.end === b.end;
}

function compareKeys(a: string[], b: string[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a[i] as string;
    const y = b[i] as string;
    if (x !== y) return x < y ? -1 : 1;
  }
  return a.length - b.length;
}

/** True when `keys` names an existing own object member of `state`. */
function exists(state: JsonObject, keys: string[]): boolean {
  let node: JsonValue = state;
  for (const key of keys) {
    if (!isJsonObject(node) || !hasOwn(node, key)) return false;
    node = node[key] as JsonValue;
  }
  return true;
}

/** The merge patch deleting `keys` (`['lazy','plan']` → `{lazy:{plan:null}}`). */
function deletion(keys: string[]): JsonObject {
  let patch: JsonValue = null;
  for (let i = keys.length - 1; i >= 0; i--) {
    const wrap: JsonObject = {};
    defineData(wrap, keys[i] as string, patch);
    patch = wrap;
  }
  return patch as JsonObject;
}
