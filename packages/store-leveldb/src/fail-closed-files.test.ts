/**
 * A stream that fails closed on a damaged record changes no file on disk: the store's audit
 * tests (`@stateflow/store`'s `audit.test.ts`) check on the memory backend that a failed load
 * writes no key or value; here the same failed loads run on LevelDB and every file of the
 * directory (LevelDB's info log aside) stays byte for byte as it was. The damage is made through
 * `openDiskStorage`'s raw storage and the documented key layout.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { JsonObject } from '@stateflow/core';
import type { Storage, Store } from '@stateflow/store';
import { collect, dump, failureOf, rawWrite, removeDir, tempDir } from '@stateflow/test-kit';
import { openDiskStorage } from './disk-storage.js';
import { openStore } from './open-store.js';
import { hashDir } from './test-support/files.js';
import { logKey, revKey } from './test-support/layout.js';

let dir: string;
let store: Store;

/** Run `fn` on the raw storage of `dir` (the store closed), then close it. */
async function raw<T>(fn: (storage: Storage) => Promise<T>): Promise<T> {
  await store.close();
  const storage = await openDiskStorage(dir, { createIfMissing: false });
  try {
    return await fn(storage);
  } finally {
    await storage.close();
  }
}

/** Make the record at `key` undecodable: its first byte becomes 0xc1, which MessagePack never uses. */
const spoil = (key: Uint8Array) =>
  raw(async (s) => {
    const bytes = Buffer.from((await s.get(key)) as Uint8Array);
    bytes[bytes.length - 1] ^= 0xff; // the record no longer matches its seal
    await rawWrite(s, [{ type: 'put', key, value: bytes }]);
  });

/** Reopen, then check that `run` (a failed load) leaves the files and the stored bytes as they were, and other streams read. */
async function expectNothingWritten(run: () => Promise<void>): Promise<void> {
  const before = await raw(dump);
  store = await openStore(dir);
  const files = await hashDir(dir);
  await run();
  expect(await store.state('session:ok')).toEqual({ m: 8 });
  expect(await hashDir(dir)).toBe(files);
  expect(await raw(dump)).toEqual(before);
}

describe('fail closed on LevelDB writes no file', () => {
  beforeEach(async () => {
    dir = await tempDir('fail-closed');
    store = await openStore(dir, { checkpointInterval: 3 });
    for (let i = 1; i <= 8; i++) {
      const changes: Record<string, JsonObject> = { global: { n: i, lazy: { [`p${i}`]: i } } };
      if (i === 2 || i === 5 || i === 8) changes['session:ok'] = { m: i };
      await store.publish({ changes, id: `t${i}` });
    }
    expect(store.lastSeq()).toBe(8);
  });
  afterEach(async () => {
    await store.close();
    await removeDir(dir);
  });

  it('a damaged transition: reading the log fails with STORE_CORRUPT and changes no file', async () => {
    await spoil(logKey(7));
    await expectNothingWritten(async () => {
      expect(await failureOf(collect(store.transitions()))).toEqual({ code: 'STORE_CORRUPT', details: expect.objectContaining({ key: 'L/7' }) });
    });
  });

  it('a damaged revision-index record: loading the stream fails with STORE_CORRUPT and changes no file', async () => {
    await spoil(revKey('global', 7));
    await expectNothingWritten(async () => {
      expect(await failureOf(store.state('global'))).toEqual({ code: 'STORE_CORRUPT', details: expect.objectContaining({ stream: 'global', key: 'R/global/7' }) });
    });
  });
});
