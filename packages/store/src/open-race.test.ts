/**
 * Opening a store that another process sharing the storage creates at the same moment (two
 * servers starting on one new PostgreSQL schema): the format record may appear between the
 * opener's read of it and its look for other data. That record is then the data found, and the
 * store opens; data without a format record is still refused.
 */
import { describe, expect, it } from 'vitest';
import { StateflowError } from '@stateflow/core';
import { rejectionOf } from '@stateflow/test-kit';
import { openMemoryStorage, openStoreOver } from './index.js';
import type { Storage } from './index.js';
import { formatKey } from './internal/keys.js';

/** `storage` whose first read of the format record answers as before another opener wrote it. */
function readsFormatLate(storage: Storage): Storage {
  let first = true;
  const key = Buffer.from(formatKey()).toString('hex');
  return new Proxy(storage, {
    get(target, name) {
      if (name !== 'get') {
        const value = Reflect.get(target, name, target) as unknown;
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      }
      return async (k: Uint8Array) => {
        if (first && Buffer.from(k).toString('hex') === key) {
          first = false;
          return undefined;
        }
        return target.get(k);
      };
    },
  });
}

describe('opening a store created by another opener at the same moment', () => {
  it('opens it when its format record appears between the two reads', async () => {
    const { MemoryLevel } = await import('memory-level');
    const db = new MemoryLevel<Uint8Array, Uint8Array>({ keyEncoding: 'view', valueEncoding: 'view' });
    const creator = await openStoreOver(await openMemoryStorage(db));
    const racer = await openStoreOver(readsFormatLate(await openMemoryStorage(db)));
    expect(racer.lastSeq()).toBe(0);
    await creator.close();
    await racer.close();
  });

  it('still refuses data without a format record', async () => {
    const { MemoryLevel } = await import('memory-level');
    const db = new MemoryLevel<Uint8Array, Uint8Array>({ keyEncoding: 'view', valueEncoding: 'view' });
    await db.open();
    await db.put(Buffer.from('other'), Buffer.from('data'));
    const err = await rejectionOf(openStoreOver(await openMemoryStorage(db)));
    expect([err.code, err.message]).toEqual(['STORE_VERSION', 'The database holds data but no Stateflow format record; refusing to use it']);
  });
});

describe('creating a store when a read fails inside its write session', () => {
  it('fails typed and ends the session: the next open of the same storage gets one and creates the store', async () => {
    const storage = await openMemoryStorage();
    const key = Buffer.from(formatKey()).toString('hex');
    let formatReads = 0;
    // The opener of a new store reads the format record once before its write session and once
    // inside it: that second read fails.
    const flaky: Storage = {
      ...storage,
      capabilities: storage.capabilities,
      location: storage.location,
      get: async (k) => {
        if (Buffer.from(k).toString('hex') === key && ++formatReads === 2) {
          throw new StateflowError('STORE_UNAVAILABLE', 'connection lost', { url: 'memory', outcome: 'not-sent' });
        }
        return storage.get(k);
      },
      iterate: (options) => storage.iterate(options),
      snapshot: (read) => storage.snapshot(read),
      beginWrite: () => storage.beginWrite(),
      close: async () => undefined,
    };
    expect((await rejectionOf(openStoreOver(flaky))).code).toBe('STORE_UNAVAILABLE');
    // A session left open would make this wait for ever.
    const next = await Promise.race([openStoreOver(flaky), new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 2_000))]);
    expect(next).not.toBe('hung');
    if (next !== 'hung') {
      expect(next.lastSeq()).toBe(0);
      await next.close();
    }
    await storage.close();
  });
});
