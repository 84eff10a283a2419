/**
 * The bounded baseline `lazy_navigation` hint (seed "Baseline lazy hint"; DESIGN.md
 * "Effective overlay and planes").
 */
import canonicalize from 'canonicalize';
import { isJsonObject } from './json.js';
import type { JsonValue } from './json.js';
import { keyKinds } from './projections.js';
import type { KeyKinds } from './projections.js';

/** Most immediate lazy keys the hint lists (inclusive). */
export const LAZY_HINT_MAX_KEYS = 32;
/** Most characters of canonical JSON (RFC 8785) of the key map the hint carries (inclusive). */
export const LAZY_HINT_MAX_CHARS = 1024;

/**
 * The `lazy_navigation` hint: presence, exact `read_state` root path and, when small, the
 * immediate key → kind map. Never lazy bodies, never a partial catalog.
 */
export interface LazyNavigation {
  /** True when a lazy root is present (an empty `{}` root is present). */
  available: boolean;
  /** The exact `read_state` path of the lazy root, for deeper inspection. */
  path: string;
  /** The complete immediate key → kind map; absent (not `undefined`) when over the bounds. */
  keys?: KeyKinds;
}

/**
 * Builds the `lazy_navigation` hint for an effective lazy root.
 *
 * `keys` is present only when the root is an object with at most {@link LAZY_HINT_MAX_KEYS}
 * (32) keys and the canonical JSON (RFC 8785, via `canonicalize`) of the key map is at most
 * {@link LAZY_HINT_MAX_CHARS} (1,024) characters (JavaScript string length); otherwise the
 * property is omitted entirely. Absent (`undefined`) or `null` lazy is `available: false`.
 * A non-object root (invalid in stored state) is `available: true` without `keys`.
 *
 * @param effectiveLazy the effective `lazy` plane value, `undefined` when absent.
 * @param path the root path to advertise (default `effective.lazy`; `lazy` or `cwd.lazy` at
 *   the single-owner model boundary).
 * @example lazyNavigation({ memory: ['a'] }) // → { available: true, path: 'effective.lazy', keys: { memory: 'array' } }
 */
export function lazyNavigation(effectiveLazy: JsonValue | undefined, path = 'effective.lazy'): LazyNavigation {
  if (effectiveLazy === undefined || effectiveLazy === null) return { available: false, path };
  if (!isJsonObject(effectiveLazy)) return { available: true, path };
  if (Object.keys(effectiveLazy).length > LAZY_HINT_MAX_KEYS) return { available: true, path };
  const keys = keyKinds(effectiveLazy);
  const canonical = canonicalize(keys) ?? '';
  if (canonical.length > LAZY_HINT_MAX_CHARS) return { available: true, path };
  return { available: true, path, keys };
}
