/**
 * Stores written before still open, read and audit clean (README "Storage layout": encoding,
 * format versions): a version-2 store (checkpoint states as MessagePack) is read as it is and
 * gets the current format record alone. On the memory backend: the version-2 records are made
 * from a store written now. A store written by 0.1.0 on disk (format 1, migrated on open) is
 * `@stateflow/store-leveldb`'s `format-compat.test.ts`, with its LevelDB fixture.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { JsonObject } from '@stateflow/core';
import { collect, dump, rawWrite } from '@stateflow/test-kit';
import { memoryBackend, type Harness } from './test-support/backends.js';
import { decodeValue, encodeValue } from './internal/codec.js';
import { Family, formatKey, parseKey } from './internal/keys.js';
import { FORMAT, SEAL_BYTES, checkpointBody, encodeSealed } from './internal/records.js';
import type { Transition } from './types.js';

describe('a version-2 store (checkpoint states as MessagePack)', () => {
  let h: Harness;
  afterEach(async () => {
    await h.destroy();
  });

  /** A store written now, then turned into version 2: every checkpoint's state re-encoded as MessagePack and resealed, format record 2. */
  async function versionTwoStore(): Promise<{ states: Map<number, JsonObject>; transitions: Transition[] }> {
    h = await memoryBackend.create({ checkpointInterval: 4 });
    const states = new Map<number, JsonObject>();
    for (let i = 1; i <= 11; i++) {
      await h.store.publish({ changes: { global: { n: i, [`k${i % 3}`]: { v: i }, lazy: { memory: `m${i}` } } } });
      states.set(i, await h.store.state('global'));
    }
    const transitions = await collect(h.store.transitions());
    await h.raw(async (storage) => {
      const ops = [];
      for await (const [key, value] of storage.iterate({ gte: Buffer.from([Family.checkpoint]), lt: Buffer.from([Family.checkpoint + 1]) })) {
        const k = parseKey(key);
        const body = checkpointBody(key, value.subarray(0, value.byteLength - SEAL_BYTES), k.family === 'checkpoint' ? k.stream : '');
        ops.push({ type: 'put' as const, key, value: encodeSealed(key, { rev: body.rev, seq: body.seq, state: body.state }) });
      }
      expect(ops.length).toBeGreaterThan(1);
      ops.push({ type: 'put' as const, key: formatKey(), value: encodeValue({ format: 'stateflow-store', version: 2 }) });
      await rawWrite(storage, ops);
    });
    return { states, transitions };
  }

  it('opens with its checkpoints as they are and only the format record rewritten; reads every revision, audits clean, takes writes', async () => {
    const { states, transitions } = await versionTwoStore();
    const before = await h.raw(dump);
    await h.reopen({ checkpointInterval: 4, cacheSize: 0 });
    await h.raw(async (storage) => {
      const after = await dump(storage);
      // The format record alone.
      const changed = after.filter((entry) => !before.includes(entry)).map((entry) => entry.split('=')[0]);
      expect(changed).toEqual([formatKey().toString('hex')]);
      expect(after.length).toBe(before.length);
      expect(decodeValue((await storage.get(formatKey())) as Uint8Array)).toEqual(FORMAT);
    });
    const store = await h.reopen({ checkpointInterval: 4, cacheSize: 0 });
    for (const [rev, state] of states) expect(await store.stateAt('global', rev)).toEqual(state);
    expect(await collect(store.transitions())).toEqual(transitions);
    expect((await store.audit()).problems).toEqual([]);
    await store.publish({ changes: { global: { n: 12 } } });
    expect((await store.audit()).problems).toEqual([]);
  });
});
