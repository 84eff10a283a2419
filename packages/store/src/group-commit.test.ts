/**
 * Group commit: publishes that arrive while a batch is being written are staged one by one
 * against memory as the earlier ones leave it (each accepted or rejected on its own, exactly as
 * if serial) and written together in one batch. On memory-level as it is (no fsync), and on
 * memory-level with the capabilities of a backend that can sync (as LevelDB on disk declares).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemoryLevel } from 'memory-level';
import type { JsonObject } from '@stateflow/core';
import { openEventStore } from './internal/event-store.js';
import { openLevelStorage } from './level-storage.js';
import { openMemoryStorage } from './memory-storage.js';
import type { Storage, StorageOp } from './storage.js';
import type { PublishResult, Store, Transition } from './types.js';

/** The real storage, recording each batch it writes (its size and whether it was synced). */
function recording(storage: Storage): { storage: Storage; batches: { ops: number; sync: boolean }[] } {
  const batches: { ops: number; sync: boolean }[] = [];
  return {
    batches,
    storage: {
      location: storage.location,
      capabilities: storage.capabilities,
      get: (key) => storage.get(key),
      getMany: (keys) => storage.getMany(keys),
      iterate: (options) => storage.iterate(options),
      snapshot: (read) => storage.snapshot(read),
      close: () => storage.close(),
      async beginWrite() {
        const session = await storage.beginWrite();
        return {
          abort: () => session.abort(),
          commit(ops: StorageOp[], options: { sync: boolean }) {
            batches.push({ ops: ops.length, sync: options.sync });
            return session.commit(ops, options);
          },
        };
      },
    },
  };
}

const backends = [
  { name: 'memory', fsync: false, open: () => openMemoryStorage() },
  {
    name: 'memory-level that can fsync',
    fsync: true,
    open: () =>
      openLevelStorage(new MemoryLevel<Uint8Array, Uint8Array>({ keyEncoding: 'view', valueEncoding: 'view' }), {
        location: null,
        capabilities: { persistent: false, fsync: true, soleWriter: true, reopenAfterFailedWrite: false },
      }),
  },
];

async function settle(p: Promise<PublishResult>): Promise<PublishResult | string> {
  try {
    return await p;
  } catch (err) {
    return (err as { code?: string }).code ?? String(err);
  }
}

describe.each(backends)('group commit on $name', (backend) => {
  let store: Store;
  let batches: { ops: number; sync: boolean }[];
  beforeEach(async () => {
    const r = recording(await backend.open());
    batches = r.batches;
    store = await openEventStore(r.storage, { checkpointInterval: 4 });
    await store.publish({ changes: { global: { n: 0 } } });
    batches.length = 0;
  });
  afterEach(async () => {
    await store.close();
  });

  it('N concurrent publishes land in one batch with contiguous seqs and a valid chain', async () => {
    const n = 20;
    const results = await Promise.all(
      Array.from({ length: n }, (_, i) => store.publish({ changes: { global: { n: i + 1 }, [`session:${i % 3}`]: { last: i } }, id: `p${i}` })),
    );
    expect(batches).toEqual([{ ops: expect.any(Number), sync: false }]);
    const transitions = results.map((r) => (r.status === 'accepted' ? r.transition : null)) as Transition[];
    expect(transitions.map((t) => t.seq)).toEqual(Array.from({ length: n }, (_, i) => i + 2));
    for (let i = 1; i < n; i++) expect(transitions[i]?.prevHash).toBe(transitions[i - 1]?.hash);
    expect(transitions.map((t) => t.changes[0]?.rev)).toEqual(Array.from({ length: n }, (_, i) => i + 2));
    expect(transitions[5]?.changes[1]).toEqual({ stream: 'session:2', rev: 2, patch: { last: 5 } });
    expect(await store.state('global')).toEqual({ n: 20 });
    expect(await store.state('session:1')).toEqual({ last: 19 });
    expect(await store.stateAt('global', 9)).toEqual({ n: 8 });
    expect((await store.audit()).problems).toEqual([]);
  });

  it('a conflicting publish in the same group fails alone; the others are accepted as if serial', async () => {
    const outcomes = await Promise.all([
      settle(store.publish({ changes: { global: { a: 1 } }, expected: { global: 1 } })),
      settle(store.publish({ changes: { global: { a: 2 } }, expected: { global: 1 } })), // same basis: loses
      settle(store.publish({ changes: { global: { a: 3 } }, expected: { global: 2 } })), // sees the first
      settle(store.publish({ changes: { global: { bad: [null] } } })), // invalid patch: fails alone
      settle(store.publish({ changes: { global: { a: 3 } } })), // no net change after the third
      settle(store.publish({ changes: { 'session:x': { s: 1 } }, id: 'same' })),
      settle(store.publish({ changes: { 'session:x': { s: 2 } }, id: 'same' })), // duplicate of the sixth
    ]);
    expect(batches).toHaveLength(1);
    const [first, lost, third, invalid, noop, sixth, dup] = outcomes as [PublishResult, string, PublishResult, string, PublishResult, PublishResult, PublishResult];
    expect(first.transition?.seq).toBe(2);
    expect(lost).toBe('CONFLICT');
    expect(third.transition).toMatchObject({ seq: 3, changes: [{ stream: 'global', rev: 3, patch: { a: 3 } }] });
    expect(invalid).toBe('PATCH_INVALID');
    expect(noop).toEqual({ status: 'noop', transition: null });
    expect(sixth.transition?.seq).toBe(4);
    expect(dup).toEqual({ status: 'duplicate', transition: sixth.transition });
    expect(store.lastSeq()).toBe(4);
    expect(await store.state('global')).toEqual({ n: 0, a: 3 });
    expect((await store.audit()).problems).toEqual([]);
  });

  it('syncs the group batch when any member asks for fsync (where the backend can)', async () => {
    await Promise.all([
      store.publish({ changes: { global: { a: 1 } } }),
      store.publish({ changes: { global: { a: 2 } }, durability: 'fsync' }),
    ]);
    expect(batches).toEqual([{ ops: expect.any(Number), sync: backend.fsync }]);
  });

  it('later publishes form the next group while a batch is in flight', async () => {
    const first = store.publish({ changes: { global: { a: 1 } } });
    await Promise.resolve();
    const rest = await Promise.all([first, ...[2, 3, 4].map((a) => store.publish({ changes: { global: { a } } }))]);
    expect(rest.map((r) => r.transition?.seq)).toEqual([2, 3, 4, 5]);
    expect(batches.length).toBeLessThanOrEqual(2);
    const states: JsonObject[] = [];
    for (let rev = 2; rev <= 5; rev++) states.push(await store.stateAt('global', rev));
    expect(states.map((s) => s.a)).toEqual([1, 2, 3, 4]);
  });
});
