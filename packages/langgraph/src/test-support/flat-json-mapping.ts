/**
 * The value mapping as the saver wrote it before long lists were paged (commit 2e89272): the
 * same as `encodeJson` except that every list that is not inline is one flat object
 * `{"$len": n, "0": …, "n-1": …}` whatever its length. The oracle for reading threads stored
 * then: the reader must give back every JSON value from this form too.
 */
import type { JsonObject, JsonValue } from '@stateflow/core';
import { escapeKey, isWellFormed } from '../internal/json-mapping.js';

/** `value` (as `JSON.parse` returns it) in the flat form of commit 2e89272. */
export function flatEncodeJson(value: unknown): JsonValue {
  if (value === null) return { $null: true };
  if (typeof value === 'string') return isWellFormed(value) ? value : { $str: JSON.stringify(value) };
  if (typeof value !== 'object') return value as number | boolean;
  const out: JsonObject = {};
  if (Array.isArray(value)) {
    const inline = value.length <= 16 && value.every((item) => typeof item === 'number' || typeof item === 'boolean' || (typeof item === 'string' && isWellFormed(item)));
    if (inline) return [...(value as JsonValue[])];
    out['$len'] = value.length;
    value.forEach((item, i) => (out[String(i)] = flatEncodeJson(item)));
    return out;
  }
  for (const [key, item] of Object.entries(value)) {
    // An own data key even for `__proto__`.
    Object.defineProperty(out, escapeKey(key), { value: flatEncodeJson(item), enumerable: true, writable: true, configurable: true });
  }
  return out;
}
