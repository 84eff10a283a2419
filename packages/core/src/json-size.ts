import type { JsonValue } from './json.js';
import { isJsonObject } from './json.js';

/**
 * The UTF-8 byte length of `value` as compact JSON (`JSON.stringify`), counted without building
 * the text and without recursion, stopping as soon as the count passes `limit`: the cost is
 * bounded by `limit`, not by the size of `value`. Used to bound responses (a transport ceiling,
 * seed "Projections › value": "transport ceilings … surface as ordinary failures").
 *
 * @param value a JSON value (a stored state or part of one).
 * @param limit bytes; counting stops once the total exceeds it. Default: count everything.
 * @returns the exact byte length when it is at most `limit`; otherwise some number greater
 *   than `limit` (how much greater is unspecified).
 */
export function jsonByteLength(value: JsonValue, limit = Number.POSITIVE_INFINITY): number {
  let total = 0;
  const pending: JsonValue[] = [value];
  while (pending.length > 0) {
    const next = pending.pop() as JsonValue;
    if (typeof next === 'string') total += stringBytes(next, limit - total);
    else if (Array.isArray(next)) {
      // brackets and the commas between elements
      total += next.length === 0 ? 2 : next.length + 1;
      for (let i = next.length - 1; i >= 0; i--) pending.push(next[i] as JsonValue);
    } else if (isJsonObject(next)) {
      const keys = Object.keys(next);
      // braces, the colons and the commas between members
      total += keys.length === 0 ? 2 : 2 * keys.length + 1;
      for (const key of keys) {
        total += stringBytes(key, limit - total);
        pending.push(next[key] as JsonValue);
      }
    } else total += String(next).length; // numbers, booleans, null: ASCII as JSON.stringify writes them
    if (total > limit) return total;
  }
  return total;
}

/**
 * Bytes of a JSON string literal (quotes and escapes included). A string longer than `room`
 * UTF-16 units already takes more than `room` bytes (each unit is at least one byte), so it is
 * not serialised at all.
 */
function stringBytes(text: string, room: number): number {
  if (text.length > room) return text.length + 2;
  return Buffer.byteLength(JSON.stringify(text), 'utf8');
}
