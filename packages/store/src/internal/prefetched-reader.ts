/**
 * Reads answered from key ranges fetched ahead in one round trip (`Storage.readRanges`; README
 * "Historical reads"): a point read of a key inside a range fetched whole — or inside the part
 * a limited range covered — is answered from what was fetched (present or absent alike); any
 * other key is read from the reader underneath, all of one `getMany` together. It knows key
 * ranges only, never what the records hold, so the code that decodes them reads as before.
 */
import { rangeStart } from '../range-reads.js';
import type { IterateOptions, RangeRead, StorageReader } from '../storage.js';

/** The keys a fetched range answers for: from `lo` (`loIncluded`) to `hi` (`hiIncluded`); an open side has no bound. */
interface Covered {
  lo: Uint8Array | undefined;
  loIncluded: boolean;
  hi: Uint8Array | undefined;
  hiIncluded: boolean;
}

/** What `range` answers for, given the `entries` fetched of it in its order and the ranges' results before it. */
function coveredBy(range: RangeRead, entries: readonly [Uint8Array, Uint8Array][], earlier: readonly (readonly [Uint8Array, Uint8Array][])[]): Covered {
  const start = rangeStart(range, earlier);
  const whole = range.limit === undefined || entries.length < range.limit;
  const last = entries.at(-1)?.[0];
  const from = { lo: start.key, loIncluded: start.inclusive };
  if (whole || last === undefined) return { ...from, hi: range.lt, hiIncluded: false };
  return range.reverse === true ? { lo: last, loIncluded: true, hi: range.lt, hiIncluded: false } : { ...from, hi: last, hiIncluded: true };
}

function within(key: Uint8Array, c: Covered): boolean {
  if (c.lo !== undefined) {
    const order = Buffer.compare(key, c.lo);
    if (order < 0 || (order === 0 && !c.loIncluded)) return false;
  }
  if (c.hi === undefined) return true;
  const order = Buffer.compare(key, c.hi);
  return order < 0 || (c.hiIncluded && order === 0);
}

const hex = (key: Uint8Array): string => Buffer.from(key.buffer, key.byteOffset, key.byteLength).toString('hex');

/** A reader over `under` that first answers from `ranges`, fetched as `fetched`. */
export class PrefetchedReader implements StorageReader {
  readonly #under: StorageReader;
  readonly #covered: Covered[];
  readonly #values = new Map<string, Uint8Array>();

  constructor(under: StorageReader, ranges: readonly RangeRead[], fetched: readonly (readonly [Uint8Array, Uint8Array][])[]) {
    this.#under = under;
    this.#covered = ranges.map((range, i) => coveredBy(range, fetched[i] ?? [], fetched));
    for (const entries of fetched) for (const [key, value] of entries) this.#values.set(hex(key), value);
  }

  async get(key: Uint8Array): Promise<Uint8Array | undefined> {
    return (await this.getMany([key]))[0];
  }

  async getMany(keys: Uint8Array[]): Promise<(Uint8Array | undefined)[]> {
    const missed = keys.filter((key) => !this.#covered.some((c) => within(key, c)));
    const read = missed.length === 0 ? [] : await this.#under.getMany(missed);
    const late = new Map(missed.map((key, i) => [hex(key), read[i]]));
    return keys.map((key) => {
      const id = hex(key);
      return late.has(id) ? late.get(id) : this.#values.get(id);
    });
  }

  iterate(options: IterateOptions): AsyncIterable<[Uint8Array, Uint8Array]> {
    return this.#under.iterate(options);
  }
}
