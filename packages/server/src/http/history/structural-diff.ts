/**
 * The structural diff of two JSON values for the history page (ui README "Views", "Diff"; Dolt's diff page):
 * a flat list, in document order, of the values that were added, removed or changed, with each
 * changed container listed before its children and the number of its children that did not
 * change (the page collapses them). Objects compare by key; arrays of equal length by index,
 * arrays of different length item by item over the common prefix, then the tail as added or
 * removed items. Bounded: at most `limit` entries, then `truncated`.
 */
import { hasOwn, isJsonObject, jsonEqual } from '@stateflow/core';
import type { JsonValue } from '@stateflow/core';
import type { DiffEntry, StructuralDiff } from '@stateflow/http-contract';
import { shownValue } from './state-node.js';


/** The structural diff from `before` to `after`, at most `limit` entries. */
export function structuralDiff(before: JsonValue, after: JsonValue, limit: number): StructuralDiff {
  const out: StructuralDiff = { entries: [], counts: { added: 0, removed: 0, changed: 0 }, truncated: false };
  const push = (entry: DiffEntry): boolean => {
    if (out.entries.length >= limit) {
      out.truncated = true;
      return false;
    }
    out.entries.push(entry);
    if (entry.container === undefined) out.counts[entry.change]++;
    return true;
  };
  const walk = (a: JsonValue, b: JsonValue, pointer: string, depth: number): void => {
    const pairs = childPairs(a, b);
    for (const [label, segment, x, y] of pairs) {
      if (out.truncated) return;
      const at = `${pointer}/${segment}`;
      if (x === undefined && y !== undefined) push({ pointer: at, depth, label, change: 'added', after: shownValue(y) });
      else if (y === undefined && x !== undefined) push({ pointer: at, depth, label, change: 'removed', before: shownValue(x) });
      else if (x !== undefined && y !== undefined && !jsonEqual(x, y)) {
        if (comparable(x, y)) {
          const unchanged = childPairs(x, y).filter(([, , p, q]) => p !== undefined && q !== undefined && jsonEqual(p, q)).length;
          if (push({ pointer: at, depth, label, change: 'changed', container: { unchanged } })) walk(x, y, at, depth + 1);
        } else push({ pointer: at, depth, label, change: 'changed', before: shownValue(x), after: shownValue(y) });
      }
    }
  };
  if (comparable(before, after)) walk(before, after, '', 1);
  else if (!jsonEqual(before, after)) push({ pointer: '', depth: 0, label: '(root)', change: 'changed', before: shownValue(before), after: shownValue(after) });
  return out;
}

/** Both objects, or both arrays: compared child by child. */
function comparable(a: JsonValue, b: JsonValue): boolean {
  return (isJsonObject(a) && isJsonObject(b)) || (Array.isArray(a) && Array.isArray(b));
}

/** `[label, pointer segment, before child, after child]` in document order (before's keys, then after's new ones). */
function childPairs(a: JsonValue, b: JsonValue): Array<[string, string, JsonValue | undefined, JsonValue | undefined]> {
  if (Array.isArray(a) && Array.isArray(b)) {
    return Array.from({ length: Math.max(a.length, b.length) }, (_, i) => [`[${i}]`, String(i), a[i], b[i]]);
  }
  if (!isJsonObject(a) || !isJsonObject(b)) return [];
  const escape = (key: string) => key.replaceAll('~', '~0').replaceAll('/', '~1');
  const pairs: Array<[string, string, JsonValue | undefined, JsonValue | undefined]> = Object.keys(a).map((key) => [
    key,
    escape(key),
    a[key],
    hasOwn(b, key) ? b[key] : undefined,
  ]);
  for (const key of Object.keys(b)) if (!hasOwn(a, key)) pairs.push([key, escape(key), undefined, b[key]]);
  return pairs;
}
