/**
 * `truncateToIntactChain` on the memory backend: the store's part of recovering damaged storage
 * works on any storage of the seam (LevelDB's `recoverStore` runs it on a copy of its files:
 * `@stateflow/store-leveldb`'s recover-store and format-compat tests).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { collect, rawWrite } from '@stateflow/test-kit';
import { memoryBackend, type Harness } from './test-support/backends.js';
import { formatKey, logKey } from './internal/keys.js';
import { seqOfLogKey } from './log-key.js';
import { truncateToIntactChain } from './truncate-to-intact-chain.js';

describe('truncateToIntactChain', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await memoryBackend.create({ checkpointInterval: 2 });
    // global at seqs 1–6; session:late only from seq 5 on.
    for (let n = 1; n <= 6; n++) await h.store.publish({ changes: { global: { n }, ...(n >= 5 ? { 'session:late': { n } } : {}) }, id: `t${n}` });
  });
  afterEach(async () => {
    await h.destroy();
  });

  it('keeps the longest prefix whose chain verifies and removes every record of the later transitions', async () => {
    const report = await h.raw(async (storage) => {
      const bytes = Buffer.from((await storage.get(logKey(4))) as Uint8Array);
      bytes[bytes.length - 1] ^= 0xff; // no longer matches its seal
      await rawWrite(storage, [{ type: 'put', key: logKey(4), value: bytes }]);
      return truncateToIntactChain(storage);
    });
    expect(report).toEqual({ tip: 3, lastSeq: 6, dropped: 3, streamsRemoved: [] });
    const store = await h.reopen();
    expect(store.lastSeq()).toBe(3);
    expect(await store.state('global')).toEqual({ n: 3 });
    expect(await store.head('session:late')).toEqual({ stream: 'session:late', rev: 0, seq: 0, origin: 0 });
    expect((await collect(store.transitions())).map((t) => t.seq)).toEqual([1, 2, 3]);
    expect((await store.audit()).problems).toEqual([]);
    // The idempotency ids of the removed transitions are gone with them: a retry publishes again.
    expect((await store.publish({ changes: { global: { n: 4 } }, id: 't4' })).status).toBe('accepted');
  });

  it('writes the format record again when the damage took it, and cuts nothing from an intact chain', async () => {
    const report = await h.raw(async (storage) => {
      await rawWrite(storage, [{ type: 'del', key: formatKey() }]);
      return truncateToIntactChain(storage);
    });
    expect(report).toEqual({ tip: 6, lastSeq: 6, dropped: 0, streamsRemoved: [] });
    const store = await h.reopen();
    expect(await store.state('session:late')).toEqual({ n: 6 });
    expect((await store.audit()).problems).toEqual([]);
  });
});

describe('seqOfLogKey', () => {
  it('reads the seq of an L key (L and 8 bytes) and nothing else', () => {
    expect(seqOfLogKey(Buffer.from('4c000000000000002a', 'hex'))).toBe(42);
    expect(seqOfLogKey(logKey(2 ** 40 + 3))).toBe(2 ** 40 + 3);
    expect(seqOfLogKey(formatKey())).toBeNull();
    expect(seqOfLogKey(Buffer.from('4c0000002a', 'hex'))).toBeNull();
    expect(seqOfLogKey(new Uint8Array())).toBeNull();
  });
});
