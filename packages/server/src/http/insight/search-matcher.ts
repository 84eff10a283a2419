/**
 * What a search through time looks for (contract `historySearchRoute`): a value at a key, a leaf
 * equal to a JSON value, or a string leaf (or a key) containing a text, and the matches a part of
 * a state holds. A node is named by its path of segments from the state root (object keys, and
 * array indexes as decimal text), so a match's identity is its pointer.
 */
import { StateflowError, isJsonObject, jsonEqual, pointerSegments } from '@stateflow/core';
import type { JsonValue } from '@stateflow/core';

/** The search's three criteria; at least one is given. */
export interface SearchCriteria {
  key?: string;
  value?: string;
  text?: string;
}

/** A compiled search. */
export interface Matcher {
  /** Whether the node at `path` (whose last segment is an object key when `isKey`) with `value` matches. */
  matches(path: readonly string[], isKey: boolean, value: JsonValue): boolean;
}

/**
 * Compile the criteria of a search.
 * @throws INPUT_INVALID `{ field, reason }`: none given (`field: 'query'`), `value` and `text`
 *   together, `value` that is not JSON text (`reason: 'not-json'`), `key` that is not a key name or
 *   a pointer suffix.
 */
export function compileMatcher(criteria: SearchCriteria): Matcher {
  const { key, value, text } = criteria;
  if (key === undefined && value === undefined && text === undefined) {
    throw new StateflowError('INPUT_INVALID', 'Say what to search for: key=<name or /pointer/suffix>, value=<JSON text> or text=<text>.', { field: 'query', reason: 'empty' });
  }
  if (value !== undefined && text !== undefined) {
    throw new StateflowError('INPUT_INVALID', 'Search for a value or a text, not both: value matches equal leaves, text string leaves containing it.', { field: 'text', reason: 'with-value' });
  }
  const suffix = key === undefined ? null : keySuffix(key);
  const wanted = value === undefined ? undefined : parseValue(value);
  const needle = text?.toLowerCase();
  return {
    matches(path, isKey, node) {
      if (suffix !== null && !endsWith(path, suffix)) return false;
      if (wanted !== undefined) return jsonEqual(wanted, node);
      if (needle !== undefined) {
        if (typeof node === 'string' && node.toLowerCase().includes(needle)) return true;
        return suffix === null && isKey && (path[path.length - 1] ?? '').toLowerCase().includes(needle);
      }
      return true;
    },
  };
}

function keySuffix(key: string): string[] {
  if (!key.startsWith('/')) return [key];
  const segments = pointerSegments(key);
  if (segments.length === 0) throw new StateflowError('INPUT_INVALID', 'key=/ names no key: give a key name, or a pointer suffix such as /dependencies/eslint.', { field: 'key', reason: 'empty-pointer' });
  return segments;
}

function parseValue(text: string): JsonValue {
  try {
    return JSON.parse(text) as JsonValue;
  } catch (err) {
    throw new StateflowError('INPUT_INVALID', `value must be JSON text: a string needs its quotes ("9.2.0"), got ${JSON.stringify(text.slice(0, 60))}.`, { field: 'value', reason: 'not-json' }, { cause: err });
  }
}

function endsWith(path: readonly string[], suffix: readonly string[]): boolean {
  if (suffix.length > path.length) return false;
  const start = path.length - suffix.length;
  return suffix.every((segment, i) => path[start + i] === segment);
}

/** The RFC 6901 pointer of a path of segments. */
export function pointerFromSegments(path: readonly string[]): string {
  return path.map((segment) => `/${segment.replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');
}

/**
 * Every match in the subtree `value` at `path` (itself included), as pointer → value; `isKey`
 * says whether `path` ends in an object key.
 */
export function matchesIn(matcher: Matcher, path: string[], isKey: boolean, value: JsonValue | undefined, out: Map<string, JsonValue>): void {
  if (value === undefined) return;
  if (path.length > 0 && matcher.matches(path, isKey, value)) out.set(pointerFromSegments(path), value);
  if (Array.isArray(value)) {
    value.forEach((item, i) => {
      path.push(String(i));
      matchesIn(matcher, path, false, item, out);
      path.pop();
    });
  } else if (isJsonObject(value)) {
    for (const key of Object.keys(value)) {
      path.push(key);
      matchesIn(matcher, path, true, value[key], out);
      path.pop();
    }
  }
}
