/**
 * Catching up on storage other processes write (README "The tip record and catching up") while
 * this store's own commits and other processes' compactions land: the catch-up reads the log in
 * several steps, so neither may find memory moved under it. On memory-level declared shared
 * (`soleWriter: false`), with storage reads that take a few event-loop turns, as a database's
 * round trips do.
 */
import { MemoryLevel } from 'memory-level';
import { describe, expect, it } from 'vitest';
import { openLevelStorage } from './level-storage.js';
import { openStoreOver } from './open-store.js';
import type { Storage, StorageReader, WriteSession } from './storage.js';
import type { Store } from './types.js';

const turns = async (n: number): Promise<void> => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
};

/** What a test arms: iterations of the log (`L` keys) in a snapshot wait this many more turns. */
interface Faults {
  slowLogReads: number;
}

/** `reader` whose reads start `delay` turns late. */
function slow(reader: StorageReader, delay: number, faults?: Faults): StorageReader {
  return {
    get: async (key) => (await turns(delay), reader.get(key)),
    getMany: async (keys) => (await turns(delay), reader.getMany(keys)),
    iterate: async function* (options) {
      await turns(delay + (faults !== undefined && options.gte?.[0] === 0x4c ? faults.slowLogReads : 0));
      yield* reader.iterate(options);
    },
  };
}

/**
 * Storage over `db` as a database many processes write: not the sole writer, every read starts
 * `delay` turns late and every commit's answer comes `ackDelay` turns after it is visible (a
 * database's acknowledgement crossing the network while other connections already see the commit).
 */
async function sharedStorage(db: MemoryLevel<Uint8Array, Uint8Array>, ackDelay: number, delay = 1, faults?: Faults): Promise<Storage> {
  const storage = await openLevelStorage(db, { location: null, capabilities: { persistent: true, fsync: false, soleWriter: false, reopenAfterFailedWrite: false } });
  const beginWrite = async (): Promise<WriteSession> => {
    const session = await storage.beginWrite();
    return { commit: async (ops, options) => (await session.commit(ops, options), await turns(ackDelay)), abort: () => session.abort() };
  };
  return {
    ...storage,
    location: storage.location,
    capabilities: storage.capabilities,
    ...slow(storage, delay),
    snapshot: (read) => storage.snapshot((reader) => read(slow(reader, delay, faults))),
    beginWrite,
    // As PostgreSQL's: one compare-and-set commit (the tests' writers take turns, so the compare
    // and the write need no lock between them).
    commitIf: async (expect, ops, options) => {
      const value = await storage.get(expect.key);
      if ((value === undefined || expect.value === undefined) ? value !== expect.value : Buffer.compare(value, expect.value) !== 0) return false;
      await (await beginWrite()).commit(ops, options);
      return true;
    },
    close: () => storage.close(),
  };
}

const newDb = (): MemoryLevel<Uint8Array, Uint8Array> => new MemoryLevel<Uint8Array, Uint8Array>({ keyEncoding: 'view', valueEncoding: 'view' });

describe('catching up while commits land', () => {
  it("a catch-up under way when this store's own publish lands neither fails nor moves memory back", async () => {
    const store = await openStoreOver(await sharedStorage(newDb(), 12));
    try {
      for (let delay = 0; delay < 16; delay++) {
        const publish = store.publish({ changes: { global: { n: delay } } });
        await turns(delay);
        // head() catches up first: it reads the tip, then the new log records.
        const [head] = await Promise.all([store.head('global'), publish]);
        expect(head.rev).toBeGreaterThanOrEqual(delay);
        expect(await store.head('global')).toMatchObject({ rev: delay + 1, seq: delay + 1 });
      }
      expect((await store.audit()).problems).toEqual([]);
    } finally {
      await store.close();
    }
  });
});

describe("reading while another process compacts", () => {
  it("a current state loaded while another process compacts the stream's history loads again, never fails closed", async () => {
    const db = newDb();
    const writer = await openStoreOver(await sharedStorage(db, 0, 0), { checkpointInterval: 2 });
    const reader: Store = await openStoreOver(await sharedStorage(db, 0, 3), { checkpointInterval: 2 });
    try {
      for (let delay = 0; delay < 24; delay++) {
        const stream = `session:${delay}`;
        for (let n = 1; n <= 7; n++) await writer.publish({ changes: { [stream]: { n } } });
        // The reader loads the state (latest checkpoint, then the revision index after it) …
        const load = reader.state(stream);
        await turns(delay);
        // … while the writer moves the origin to the head: older checkpoints and index entries go.
        await writer.compact(stream, { keepRevisions: 1 });
        expect(await load).toEqual({ n: 7 });
      }
    } finally {
      await writer.close();
      await reader.close();
    }
  });
});

describe('a catch-up that reloads every head', () => {
  it('moves memory in one step: a publish staged meanwhile never sees heads ahead of the log memory holds, nor marks a stream broken', async () => {
    const db = newDb();
    const faults: Faults = { slowLogReads: 0 };
    const other = await openStoreOver(await sharedStorage(db, 0, 0));
    const store = await openStoreOver(await sharedStorage(db, 0, 0, faults));
    try {
      for (let delay = 0; delay < 12; delay++) {
        const stream = `session:${delay}`;
        for (let n = 1; n <= 4; n++) await other.publish({ changes: { [stream]: { n } } });
        expect(await store.state(stream)).toEqual({ n: 4 });
        // Another process compacts (the generation moves) and publishes: this store's next
        // catch-up reloads every head, then reads the new log record, slowly …
        await other.compact(stream, { keepRevisions: 1 });
        await other.publish({ changes: { [stream]: { n: 5 } } });
        faults.slowLogReads = 6;
        const catchingUp = store.head('global');
        await turns(delay);
        // … while a publish is staged against memory as it is (compare-and-set, no catch-up first).
        const published = await store.publish({ changes: { [stream]: { m: 1 } } });
        await catchingUp;
        faults.slowLogReads = 0;
        expect(published).toMatchObject({ status: 'accepted', transition: { changes: [{ stream, rev: 6 }] } });
        expect(await store.state(stream)).toEqual({ n: 5, m: 1 });
      }
      expect((await store.audit()).problems).toEqual([]);
    } finally {
      await other.close();
      await store.close();
    }
  });
});
