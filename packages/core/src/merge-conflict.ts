/**
 * The shapes of a three-way merge's conflicts and their resolutions (README "Three-way merge"),
 * apart from the walker so that the error model can name them without importing it.
 */
import type { JsonValue } from './json.js';

/**
 * How one conflict is settled: `'ours'` or `'theirs'` takes that side's value at the path
 * (which may be a deletion: a side whose value is `null` deleted it), `{ value }` writes
 * `value` there, and `{ value: null }` deletes the path.
 */
export type MergeResolution = 'ours' | 'theirs' | { value: JsonValue | null };

/**
 * A path that both sides changed, to different values, since the base.
 *
 * `path` is an RFC 6901 pointer into the state (`/lazy/plan/owner`; `~0` and `~1` escape `~` and
 * `/`). It never points into an array: arrays merge as whole values. `base`, `ours` and
 * `theirs` are the values at `path` on each side, `null` where the path is absent there — a
 * side that deleted it, or a base that did not have it (stored states never hold `null`, so
 * `null` is unambiguous). `resolution` is present when the caller settled the conflict.
 */
export interface MergeConflict {
  path: string;
  base: JsonValue | null;
  ours: JsonValue | null;
  theirs: JsonValue | null;
  resolution?: MergeResolution;
}

/**
 * What happened to a conflicting path on each side, in the words of `git status`:
 * `both-added` (absent in the base, added differently on both sides), `deleted-by-ours`,
 * `deleted-by-theirs` (one side deleted what the other changed), `both-modified`.
 */
export type MergeConflictKind = 'both-added' | 'both-modified' | 'deleted-by-ours' | 'deleted-by-theirs';

/** The {@link MergeConflictKind} of a conflict, from which of its sides are `null`. */
export function conflictKind(conflict: Pick<MergeConflict, 'base' | 'ours' | 'theirs'>): MergeConflictKind {
  if (conflict.base === null) return 'both-added';
  if (conflict.ours === null) return 'deleted-by-ours';
  if (conflict.theirs === null) return 'deleted-by-theirs';
  return 'both-modified';
}
