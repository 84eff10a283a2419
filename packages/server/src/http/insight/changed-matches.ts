/**
 * Which matches of a search one net patch brought and took away: the patch is walked against the
 * state before it, and only the parts it replaced (a value written whole, a deleted key, an array
 * item set by `"[N]"`) are searched, before and after. Where the patch merges into an object that
 * stays, the object's own presence did not change, so only what lies under the changed keys is
 * looked at. The cost is that of the patch, not of the state.
 */
import { isJsonObject } from '@stateflow/core';
import type { JsonObject, JsonValue } from '@stateflow/core';
import { matchesIn } from './search-matcher.js';
import type { Matcher } from './search-matcher.js';

/** Matches a revision brought (`appeared`) and took away (`disappeared`), pointer → value. */
export interface MatchChanges {
  appeared: Map<string, JsonValue>;
  disappeared: Map<string, JsonValue>;
}

const INDEX_KEY = /^\[(0|[1-9][0-9]*)\]$/;

/** The matches `patch` changed, from `before` (the state it applies to) to `after` (the result). */
export function changedMatches(matcher: Matcher, patch: JsonObject, before: JsonObject, after: JsonObject): MatchChanges {
  const was = new Map<string, JsonValue>();
  const now = new Map<string, JsonValue>();
  walk(matcher, patch, before, after, [], was, now);
  const appeared = new Map([...now].filter(([pointer]) => !was.has(pointer)));
  const disappeared = new Map([...was].filter(([pointer]) => !now.has(pointer)));
  return { appeared, disappeared };
}

function walk(matcher: Matcher, patch: JsonObject, before: JsonValue | undefined, after: JsonValue | undefined, path: string[], was: Map<string, JsonValue>, now: Map<string, JsonValue>): void {
  for (const key of Object.keys(patch)) {
    const index = INDEX_KEY.exec(key);
    const part = patch[key];
    if (part === undefined) continue;
    if (index !== null && Array.isArray(before) && Array.isArray(after)) {
      const i = Number(index[1]);
      step(matcher, part, before[i], after[i], path, String(i), false, was, now);
      continue;
    }
    const old = isJsonObject(before) ? before[key] : undefined;
    const next = isJsonObject(after) ? after[key] : undefined;
    step(matcher, part, old, next, path, key, true, was, now);
  }
}

function step(
  matcher: Matcher,
  part: JsonValue,
  old: JsonValue | undefined,
  next: JsonValue | undefined,
  path: string[],
  segment: string,
  isKey: boolean,
  was: Map<string, JsonValue>,
  now: Map<string, JsonValue>,
): void {
  path.push(segment);
  const sameKind = (isJsonObject(old) && isJsonObject(next)) || (Array.isArray(old) && Array.isArray(next));
  if (isJsonObject(part) && sameKind) {
    walk(matcher, part, old, next, path, was, now);
  } else {
    matchesIn(matcher, path, isKey, old, was);
    matchesIn(matcher, path, isKey, next, now);
  }
  path.pop();
}
