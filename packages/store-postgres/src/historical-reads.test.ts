/**
 * Historical reads on PostgreSQL in two round trips (README "How it works"): after a reopen with
 * the history cache off, a cold `stateAt` of a past revision of a small state sends two
 * statements — one `readRanges` for its checkpoint and revision records, one for the log records
 * those name (format 5 stores each patch there only); of a state with a large object (paged
 * checkpoints), two, or up to four when its checkpoint names directories and pages older
 * checkpoints wrote; and each
 * reads what the same store reads without `readRanges` (the point reads: four statements or more).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { openStoreOver } from '@stateflow/store';
import type { JsonValue } from '@stateflow/core';
import type { Storage, Store } from '@stateflow/store';
import { freshPostgresUrl, testPostgres } from '@stateflow/test-kit';
import { dropPostgresStore, openPostgresStore } from './open-postgres-store.js';
import { openPostgresStorage } from './postgres-storage.js';
import { parseTarget } from './store-url.js';

const server = await testPostgres();
const STREAM = 'cwd:/history';

/** A store over `storage` with `readRanges` hidden from it. */
function pointReading(storage: Storage): Storage {
  return new Proxy(storage, {
    get(target, name) {
      if (name === 'readRanges') return undefined;
      const value: unknown = Reflect.get(target, name, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

describe.skipIf('unavailable' in server)('historical reads on PostgreSQL', () => {
  const url = freshPostgresUrl('history_reads');
  const stores: Store[] = [];
  beforeAll(async () => {
    const writer = await openPostgresStore(url, { checkpointInterval: 16, durability: 'buffered' });
    const big: Record<string, JsonValue> = Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`m${i}`, `value ${i} ${'x'.repeat(20)}`]));
    await writer.publish({ changes: { [STREAM]: { n: 0, big } } });
    for (let i = 1; i < 60; i++) await writer.publish({ changes: { [STREAM]: { n: i, big: { [`m${(i * 37) % 3000}`]: `changed ${i}` } }, 'cwd:/small': { n: i } } });
    await writer.close();
  });
  afterAll(async () => {
    for (const store of stores) await store.close();
    await dropPostgresStore(url);
  });

  it('a cold stateAt is two statements and reads what point reads read', async () => {
    const one = await openPostgresStore(url, { cacheSize: 0 });
    const points = await openStoreOver(pointReading(await openPostgresStorage(parseTarget(url))), { cacheSize: 0 });
    stores.push(one, points);
    await one.head(STREAM);
    await one.head('cwd:/small');
    let sent = 0;
    const query = pg.Client.prototype.query;
    pg.Client.prototype.query = function counted(this: pg.Client, ...args: unknown[]) {
      sent++;
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof query;
    const perRead: number[] = [];
    const perPointRead: number[] = [];
    try {
      for (const [stream, rev] of [[STREAM, 5], [STREAM, 33], [STREAM, 58], ['cwd:/small', 20], ['cwd:/small', 47]] as const) {
        const before = sent;
        const state = await one.stateAt(stream, rev);
        perRead.push(sent - before);
        const between = sent;
        expect(state).toEqual(await points.stateAt(stream, rev));
        perPointRead.push(sent - between);
      }
    } finally {
      pg.Client.prototype.query = query;
    }
    expect(perRead[0]).toBe(2);
    expect(perRead.slice(1, 3).every((n) => n <= 4)).toBe(true);
    expect(perRead.slice(3)).toEqual([2, 2]);
    expect(perPointRead.every((n) => n >= 4)).toBe(true);
  });
});
