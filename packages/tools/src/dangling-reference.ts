/**
 * The dangling-reference sentinel (seed "Semantic references" → "Reference repair is reactive";
 * "Response shape").
 *
 * Only after one requested single-path `value` read is missing, the runtime performs one
 * bounded reverse lookup over the current model-patchable planes of the selected owners for
 * structured `{"$ref"}` / `{"$path"}` objects whose path is exactly the requested one (after
 * owner binding on both sides). Never history, never prose, never lazy bodies in the result.
 */
import { PLANES, findStructuredRefs, formatPath, hasOwn, isPathKey, parseRefPath } from '@stateflow/core';
import type { JsonValue, ParsedPath, PathStep, ScopeRoot } from '@stateflow/core';
import type { StoreView } from '@stateflow/store';
import { capturedStream, soleOwner } from './internal/context.js';
import type { RuntimeContext } from './internal/context.js';

/** Most reference-owner paths a hint lists. */
export const DANGLING_HINT_MAX_PATHS = 3;

/** The exact hint message (seed "Response shape"). */
export const DANGLING_REFERENCE_MESSAGE =
  'The requested value is unavailable in the selected state. These current values reference that path, not a verified new location. Use this evidence if relevant to the task.';

/** `{ value: null, hint: [...] }` — diagnostic metadata, never semantic state. */
export interface DanglingReferenceResult {
  value: null;
  hint: [{ type: 'dangling-reference'; message: string; paths: string[] }];
}

/**
 * The sentinel for a missing single value path, or `null` when no current structured reference
 * names it (the caller then reports the ordinary `PATH_NOT_FOUND`).
 *
 * `paths` lists at most {@link DANGLING_HINT_MAX_PATHS} current reference owners — the paths of
 * the values holding a matching reference — in order global, cwd, session, plane order, then
 * document order; relative with one selected owner, scoped otherwise. Owners at keys that
 * cannot be written as a path are not listed.
 */
export function danglingReferenceSentinel(ctx: RuntimeContext, view: StoreView, requested: ParsedPath): DanglingReferenceResult | null {
  const sole = soleOwner(ctx);
  const wanted = canonical(requested.root ?? sole ?? 'effective', requested.at, requested.steps);
  const paths: string[] = [];
  for (const owner of ctx.owners) {
    const state = capturedStream(view, owner).state;
    for (const plane of PLANES) {
      if (!hasOwn(state, plane)) continue;
      for (const ref of findStructuredRefs(state[plane] as JsonValue)) {
        if (paths.length === DANGLING_HINT_MAX_PATHS) break;
        const parsed = parseRefPath(ref.text);
        if (parsed === null || canonical(parsed.root ?? sole ?? 'effective', parsed.at, parsed.steps) !== wanted) continue;
        const location = [plane, ...ref.at];
        if (location.some((step) => typeof step === 'string' && !isPathKey(step))) continue;
        const steps: PathStep[] = location.map((step) =>
          typeof step === 'number' ? { kind: 'index', index: step, column: 0 } : { kind: 'key', key: step, column: 0 },
        );
        paths.push(formatPath({ root: sole === null ? owner.scope : null, at: null, steps }));
      }
    }
  }
  if (paths.length === 0) return null;
  return { value: null, hint: [{ type: 'dangling-reference', message: DANGLING_REFERENCE_MESSAGE, paths }] };
}

function canonical(root: ScopeRoot, at: number | null, steps: readonly PathStep[]): string {
  return formatPath({ root, at, steps });
}
