/**
 * Historical reads in one round trip (README "Historical reads"): on a storage with
 * `readRanges` and no synchronous reads (PostgreSQL's shape), a cold `stateAt` fetches the
 * checkpoint, its pages and the tail's revision records in one `readRanges` call, then the log
 * records those name (the patches, format 5) in one `getMany` — none at a checkpoint — and reads what
 * a store without `readRanges` reads over the same records — small and paged states, after a
 * compaction moved the origin, with a checkpoint interval changed since the records were
 * written (the window then misses, and the misses are read as before), by path, and the head's
 * state loaded cold.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryLevel } from 'memory-level';
import type { JsonValue } from '@stateflow/core';
import { openEventStore } from './internal/event-store.js';
import { openMemoryStorage } from './memory-storage.js';
import { readRangesByIterating } from './range-reads.js';
import type { RangeRead, Storage } from './storage.js';
import type { Store, StoreOptions } from './types.js';

const STREAM = 'cwd:/prefetch';

/** Round trips of one kind or the other through a counted storage. */
interface Trips {
  ranges: number;
  points: number;
}

/** `storage` without `getSync`, with `readRanges` (each range one `iterate`), counting both kinds of read. */
function rangeReading(storage: Storage, trips: Trips): Storage {
  const readRanges = (ranges: readonly RangeRead[]): Promise<[Uint8Array, Uint8Array][][]> => {
    trips.ranges += 1;
    return readRangesByIterating(storage, ranges);
  };
  return new Proxy(storage, {
    get(target, name) {
      if (name === 'getSync') return undefined;
      if (name === 'readRanges') return readRanges;
      if (name === 'getMany' || name === 'get') trips.points += 1;
      const value: unknown = Reflect.get(target, name, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

const memory = (): MemoryLevel<Uint8Array, Uint8Array> => new MemoryLevel<Uint8Array, Uint8Array>({ keyEncoding: 'view', valueEncoding: 'view' });
const opened: Store[] = [];
afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
});

async function open(db: MemoryLevel<Uint8Array, Uint8Array>, options: StoreOptions, trips?: Trips): Promise<Store> {
  const storage = await openMemoryStorage(db);
  const store = await openEventStore(trips === undefined ? storage : rangeReading(storage, trips), { cacheSize: 0, ...options });
  opened.push(store);
  return store;
}

/** `n` revisions of one stream: a counter, and a large object (paged checkpoints) when `large`. */
async function history(db: MemoryLevel<Uint8Array, Uint8Array>, n: number, large: boolean, k: number): Promise<void> {
  const store = await open(db, { checkpointInterval: k });
  const big: Record<string, JsonValue> = large ? Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`m${i}`, `value ${i} ${'x'.repeat(20)}`])) : {};
  await store.publish({ changes: { [STREAM]: { n: 0, big } } });
  for (let i = 1; i < n; i++) await store.publish({ changes: { [STREAM]: { n: i, big: large ? { [`m${(i * 37) % 3000}`]: `changed ${i}` } : {}, [`k${i % 5}`]: i } } });
  await store.close();
  opened.splice(opened.indexOf(store), 1);
}

/** Every `step`-th revision read by a plain store and by a counted one; the counted one's trips per read. */
async function compare(db: MemoryLevel<Uint8Array, Uint8Array>, options: StoreOptions, from: number, step: number): Promise<Trips> {
  const plain = await open(db, options);
  const trips: Trips = { ranges: 0, points: 0 };
  const counted = await open(db, options, trips);
  const head = (await plain.head(STREAM)).rev;
  const before = { ...trips };
  let reads = 0;
  for (let rev = from; rev < head; rev += step) {
    expect(await counted.stateAt(STREAM, rev)).toEqual(await plain.stateAt(STREAM, rev));
    expect(await counted.valueAt(STREAM, rev, [{ kind: 'key', key: 'n' }])).toBe(rev - 1);
    reads += 1;
  }
  const perRead = { ranges: (trips.ranges - before.ranges) / reads, points: (trips.points - before.points) / reads };
  // The head's state, loaded cold (its checkpoint debt measured too), reads the same.
  expect(await counted.stateAt(STREAM, head)).toEqual(await plain.stateAt(STREAM, head));
  return perRead;
}

describe('historical reads through readRanges', () => {
  it('a small state: one readRanges per read, then at most one getMany of the log records', async () => {
    const db = memory();
    await history(db, 150, false, 16);
    // Per revision read twice (stateAt and valueAt): two readRanges, and a getMany of the tail's log records each unless a checkpoint is at rev.
    const trips = await compare(db, { checkpointInterval: 16 }, 1, 3);
    expect(trips.ranges).toBe(2);
    expect(trips.points).toBeGreaterThan(1.5);
    expect(trips.points).toBeLessThanOrEqual(2);
  });

  it('a paged state: its pages come with the checkpoint', async () => {
    const db = memory();
    await history(db, 60, true, 16);
    const trips = await compare(db, { checkpointInterval: 16 }, 2, 5);
    let pages = 0;
    for await (const key of db.keys({ gte: Buffer.from('P'), lt: Buffer.from('Q') })) pages += key.byteLength > 0 ? 1 : 0;
    expect(pages).toBeGreaterThan(1);
    expect(trips.ranges).toBe(2);
    // The log records' getMany of each of the two reads, and pages older checkpoints wrote (a
    // paged state is checkpointed as often as a path read warrants, so most pages are shared).
    expect(trips.points).toBeLessThan(4);
  });

  it('with the history LRU holding the checkpoint, no checkpoint is fetched again', async () => {
    const db = memory();
    await history(db, 40, false, 16);
    const trips: Trips = { ranges: 0, points: 0 };
    const storage = rangeReading(await openMemoryStorage(db), trips);
    const fetched: string[] = [];
    const counted = new Proxy(storage, {
      get(target, name) {
        if (name !== 'readRanges') return Reflect.get(target, name, target) as unknown;
        return async (ranges: readonly RangeRead[]) => {
          const out = await (target.readRanges as (r: readonly RangeRead[]) => Promise<[Uint8Array, Uint8Array][][]>)(ranges);
          for (const entries of out) for (const [key] of entries) if (key[0] === 0x43) fetched.push(Buffer.from(key).toString('latin1'));
          return out;
        };
      },
    });
    const store = await openEventStore(counted, { checkpointInterval: 16, cacheSize: 64 });
    opened.push(store);
    const plain = await open(db, { checkpointInterval: 16 });
    const opening = trips.points;
    for (const rev of [37, 36, 35]) expect(await store.stateAt(STREAM, rev)).toEqual(await plain.stateAt(STREAM, rev));
    expect(fetched).toHaveLength(1);
    // One getMany per read: the tail's log records, never the checkpoint.
    expect(trips.points - opening).toBe(3);
  });

  it('a shorter interval than the records were written with, and a moved origin, still read right', async () => {
    const db = memory();
    await history(db, 120, false, 32);
    const store = await open(db, { checkpointInterval: 32 });
    await store.compact(STREAM, { keepRevisions: 40 });
    const origin = (await store.head(STREAM)).origin;
    expect(origin).toBeGreaterThan(0);
    const trips = await compare(db, { checkpointInterval: 4 }, origin, 1);
    expect(trips.ranges).toBe(2);
    expect(trips.points).toBeGreaterThan(0);
  });
});
