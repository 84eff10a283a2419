/**
 * What `StorageReader.readRanges` means (`storage.ts`, {@link RangeRead}), in `iterate` calls:
 * the reference a backend's one-round-trip form is tested against, and the form a backend
 * without one may use.
 */
import type { RangeRead, StorageReader } from './storage.js';

/**
 * Where `range` starts given the entries the earlier ranges of its call returned: its own `gte`
 * (inclusive), or the key its `from` names (inclusive only when `from.inclusive`) where that is
 * above `gte`.
 */
export function rangeStart(range: RangeRead, earlier: readonly (readonly [Uint8Array, Uint8Array][])[]): { key: Uint8Array | undefined; inclusive: boolean } {
  const own = { key: range.gte, inclusive: true };
  const found = range.from === undefined ? undefined : earlier[range.from.range]?.[0]?.[0];
  if (range.from === undefined || found === undefined) return own;
  const head = Buffer.from(range.gte ?? []).subarray(0, range.from.prefix);
  const key = Buffer.concat([head, Buffer.from(found).subarray(range.from.prefix)]);
  const order = range.gte === undefined ? 1 : Buffer.compare(key, range.gte);
  if (order < 0 || (order === 0 && range.from.inclusive === true)) return own;
  return { key, inclusive: range.from.inclusive === true };
}

/** {@link StorageReader.readRanges} as one `iterate` per range, in order. */
export async function readRangesByIterating(reader: StorageReader, ranges: readonly RangeRead[]): Promise<[Uint8Array, Uint8Array][][]> {
  const out: [Uint8Array, Uint8Array][][] = [];
  for (const range of ranges) {
    const start = rangeStart(range, out);
    const entries: [Uint8Array, Uint8Array][] = [];
    const limit = range.limit ?? Infinity;
    const options = { ...(start.key === undefined ? {} : { gte: start.key }), ...(range.lt === undefined ? {} : { lt: range.lt }), reverse: range.reverse === true };
    for await (const entry of reader.iterate(options)) {
      if (entries.length >= limit) break;
      if (!start.inclusive && start.key !== undefined && Buffer.compare(entry[0], start.key) === 0) continue;
      entries.push(entry);
    }
    out.push(entries);
  }
  return out;
}
