/**
 * The storage seam's own suite (`@stateflow/store` `storage.ts`; CONVENTIONS.md "Backend seam",
 * like `abstract-level`'s tests): every behaviour the store relies on from a storage — point and
 * batched reads, ordered half-open iteration, snapshots, write sessions (commit, abort, one at a
 * time, atomic), compare-and-set commits, sync, named locks, close, typed errors, readers beside
 * a writer — checked on any implementation through its public interface. What applies is read
 * from the capability manifest (`capabilities`) and from which optional methods exist (`getSync`,
 * `commitIf`, `lock`, `onCommit`), never
 * from the backend's name.
 */
import assert from 'node:assert/strict';
import { isStateflowError } from '@stateflow/core';
import type { Storage, StorageOp } from '@stateflow/store';
import type { TestApi } from '../initializer.js';

/**
 * How the suite obtains storages: `create` a new, empty one; `destroy` closes it (if open) and
 * releases what it used; `reopen` (persistent backends) closes it and opens the same data again.
 */
export interface StorageInitializer {
  /** Backend name shown in the test titles. */
  name: string;
  create(): Promise<Storage>;
  destroy(storage: Storage): Promise<void>;
  reopen?(storage: Storage): Promise<Storage>;
}

const DEFAULT_TIMEOUT_MS = 60_000;
const bytes = (text: string): Uint8Array => Buffer.from(text, 'utf8');
const text = (value: Uint8Array | undefined): string | undefined => (value === undefined ? undefined : Buffer.from(value).toString('utf8'));
const put = (key: string, value: string): StorageOp => ({ type: 'put', key: bytes(key), value: bytes(value) });
const del = (key: string): StorageOp => ({ type: 'del', key: bytes(key) });

async function commit(storage: Storage, ops: StorageOp[], sync = false): Promise<void> {
  const session = await storage.beginWrite();
  await session.commit(ops, { sync });
}

async function keysOf(entries: AsyncIterable<[Uint8Array, Uint8Array]>): Promise<string[]> {
  const out: string[] = [];
  for await (const [key] of entries) out.push(Buffer.from(key).toString('hex'));
  return out;
}

/** Await `action`, expecting a StateflowError of one of `codes`. */
async function rejects(action: () => Promise<unknown>, codes: string[], label: string): Promise<void> {
  try {
    await action();
  } catch (err) {
    assert.ok(isStateflowError(err), `${label}: expected a StateflowError, got ${String(err)}`);
    assert.ok(codes.includes(err.code), `${label}: expected ${codes.join(' | ')}, got ${err.code}: ${err.message}`);
    return;
  }
  assert.fail(`${label}: expected ${codes.join(' | ')}, but it resolved`);
}

/** Registers one test over a fresh storage of the backend. */
type SeamTest = (name: string, body: (storage: Storage) => Promise<void>) => void;

/** Registers a test as skipped, with the reason. */
type SeamSkip = (name: string, reason: string) => void;

/**
 * Register the storage suite for `init` with the test runner `api`. Tests that need a
 * capability or an optional method the backend lacks are registered as skipped with the reason.
 *
 * @example
 * import { describe, it } from 'vitest';
 * import { openMemoryStorage } from '@stateflow/store';
 * runStorageConformance({ name: 'memory', create: openMemoryStorage, destroy: (s) => s.close() }, { describe, it });
 */
export function runStorageConformance(init: StorageInitializer, api: TestApi): void {
  api.describe(`storage seam on ${init.name}`, () => {
    const test = (name: string, body: (storage: Storage) => Promise<void>): void => {
      api.it(
        name,
        async () => {
          const storage = await init.create();
          try {
            await body(storage);
          } finally {
            await init.destroy(storage);
          }
        },
        DEFAULT_TIMEOUT_MS,
      );
    };
    const skip = (name: string, reason: string): void => {
      api.it.skip?.(`${name} (skipped: ${reason})`, async () => undefined);
    };

    readsAndIteration(test);
    writeSessions(test);
    snapshotsAndReaders(test);
    persistence(skip, init, api);
    optionalMethods(test);
  });
}

/** Point reads and ordered, half-open iteration. */
function readsAndIteration(test: SeamTest): void {
  test('get, getMany and getSync read what a commit wrote, undefined for absent keys', async (storage) => {
    assert.equal(await storage.get(bytes('a')), undefined);
    await commit(storage, [put('a', '1'), put('b', '2')]);
    assert.equal(text(await storage.get(bytes('a'))), '1');
    assert.deepEqual((await storage.getMany([bytes('b'), bytes('zz'), bytes('a')])).map(text), ['2', undefined, '1']);
    assert.deepEqual(await storage.getMany([]), []);
    if (storage.getSync !== undefined) {
      assert.equal(text(storage.getSync(bytes('b'))), '2');
      assert.equal(storage.getSync(bytes('zz')), undefined);
    }
  });

  test('iterate is in unsigned bytewise key order over half-open ranges, forward, reverse and limited', async (storage) => {
    const keys = [Buffer.from([0x00]), Buffer.from([0x01]), Buffer.from([0x01, 0x00]), Buffer.from([0x7f]), Buffer.from([0x80]), Buffer.from([0xff]), Buffer.from([0xff, 0xff])];
    await commit(storage, [...keys].reverse().map((key, i) => ({ type: 'put', key, value: Buffer.from([i]) })));
    const hex = keys.map((key) => key.toString('hex'));
    assert.deepEqual(await keysOf(storage.iterate({})), hex, 'all, memcmp order, shorter first on a common prefix');
    assert.deepEqual(await keysOf(storage.iterate({ reverse: true })), [...hex].reverse(), 'reverse');
    assert.deepEqual(await keysOf(storage.iterate({ gte: Buffer.from([0x01]), lt: Buffer.from([0x80]) })), hex.slice(1, 4), '[gte, lt)');
    assert.deepEqual(await keysOf(storage.iterate({ gte: Buffer.from([0x01]), lt: Buffer.from([0x80]), reverse: true, limit: 2 })), [hex[3], hex[2]], 'reverse, limited');
    assert.deepEqual(await keysOf(storage.iterate({ gte: Buffer.from([0x80]), limit: 0 })), [], 'limit 0');
    assert.deepEqual(await keysOf(storage.iterate({ gte: Buffer.from([0x02]), lt: Buffer.from([0x03]) })), [], 'empty range');
  });
}

/** Write sessions: atomic commits in order, abort, ended sessions, one at a time, sync. */
function writeSessions(test: SeamTest): void {
  test('a commit applies its operations in order and atomically: a later operation on a key wins, deletes delete', async (storage) => {
    await commit(storage, [put('k', 'old'), put('gone', 'x')]);
    await commit(storage, [put('k', 'first'), del('gone'), put('k', 'second'), put('new', 'n'), del('never-there')]);
    assert.equal(text(await storage.get(bytes('k'))), 'second');
    assert.equal(await storage.get(bytes('gone')), undefined);
    assert.deepEqual((await keysOf(storage.iterate({}))).map((h) => Buffer.from(h, 'hex').toString()), ['k', 'new']);
  });

  test('an aborted session writes nothing; an ended session refuses to commit with STORE_CLOSED', async (storage) => {
    const aborted = await storage.beginWrite();
    await aborted.abort();
    await aborted.abort(); // never throws
    await rejects(() => aborted.commit([put('x', '1')], { sync: false }), ['STORE_CLOSED'], 'commit after abort');
    const committed = await storage.beginWrite();
    await committed.commit([put('y', '1')], { sync: false });
    await rejects(() => committed.commit([put('y', '2')], { sync: false }), ['STORE_CLOSED'], 'second commit');
    assert.equal(await storage.get(bytes('x')), undefined);
    assert.equal(text(await storage.get(bytes('y'))), '1');
  });

  test('one write session at a time: beginWrite waits for the session before it to end', async (storage) => {
    const first = await storage.beginWrite();
    let secondBegan = false;
    const second = storage.beginWrite().then((session) => {
      secondBegan = true;
      return session;
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(secondBegan, false, 'the second session began while the first was open');
    await first.commit([put('order', 'first')], { sync: false });
    const next = await second;
    // Every commit made before a session began is visible to it.
    assert.equal(text(await storage.get(bytes('order'))), 'first');
    await next.commit([put('order', 'second')], { sync: false });
    assert.equal(text(await storage.get(bytes('order'))), 'second');
  });

  test('a synced commit is visible like any other (and durable where capabilities.fsync)', async (storage) => {
    await commit(storage, [put('s', 'synced')], true);
    assert.equal(text(await storage.get(bytes('s'))), 'synced');
    assert.equal(typeof storage.capabilities.fsync, 'boolean');
  });
}

/** Snapshots, readers beside a writer, a closed storage. */
function snapshotsAndReaders(test: SeamTest): void {
  test('a snapshot sees every commit made before it and none after, however long it reads', async (storage) => {
    await commit(storage, [put('a', '1'), put('b', '1')]);
    const seen = await storage.snapshot(async (reader) => {
      await commit(storage, [put('a', '2'), del('b'), put('c', '2')]);
      const keys = (await keysOf(reader.iterate({}))).map((h) => Buffer.from(h, 'hex').toString());
      return { a: text(await reader.get(bytes('a'))), many: (await reader.getMany([bytes('b'), bytes('c')])).map(text), keys };
    });
    assert.deepEqual(seen, { a: '1', many: ['1', undefined], keys: ['a', 'b'] });
    assert.equal(text(await storage.get(bytes('a'))), '2');
  });

  test('readers beside a writer see each commit whole or not at all', async (storage) => {
    const ops = (n: number): StorageOp[] => Array.from({ length: 20 }, (_, i) => put(`k${String(i).padStart(2, '0')}`, String(n)));
    await commit(storage, ops(0));
    let writing = true;
    const writer = (async () => {
      for (let n = 1; n <= 30; n++) await commit(storage, ops(n));
      writing = false;
    })();
    let reads = 0;
    while (writing) {
      const values = (await storage.getMany(ops(0).map((op) => op.key))).map(text);
      assert.equal(new Set(values).size, 1, `a read saw two commits at once: ${values.join(',')}`);
      const iterated = new Set<string>();
      for await (const [, value] of storage.iterate({})) iterated.add(Buffer.from(value).toString());
      assert.equal(iterated.size, 1, 'an iteration saw two commits at once');
      reads++;
    }
    await writer;
    assert.ok(reads > 0);
  });

  test('operations of a closed storage reject with a StateflowError (STORE_CLOSED)', async (storage) => {
    await commit(storage, [put('a', '1')]);
    await storage.close();
    await rejects(() => storage.get(bytes('a')), ['STORE_CLOSED'], 'get');
    await rejects(() => storage.getMany([bytes('a')]), ['STORE_CLOSED'], 'getMany');
    await rejects(() => keysOf(storage.iterate({})), ['STORE_CLOSED'], 'iterate');
    await rejects(() => storage.beginWrite().then((s) => s.commit([put('b', '1')], { sync: false })), ['STORE_CLOSED'], 'commit');
  });
}

/** Data across a reopen, where the storage is persistent. */
function persistence(skip: SeamSkip, init: StorageInitializer, api: TestApi): void {
  if (init.reopen !== undefined) {
    const reopen = init.reopen.bind(init);
    api.it(
      'a persistent storage keeps every commit across a reopen',
      async () => {
        let storage = await init.create();
        try {
          assert.equal(storage.capabilities.persistent, true);
          await commit(storage, [put('a', '1')]);
          await commit(storage, [put('b', '2')], true);
          storage = await reopen(storage);
          assert.deepEqual((await storage.getMany([bytes('a'), bytes('b')])).map(text), ['1', '2']);
        } finally {
          await init.destroy(storage);
        }
      },
      DEFAULT_TIMEOUT_MS,
    );
  } else skip('a persistent storage keeps every commit across a reopen', 'the initializer has no reopen (not persistent)');
}

/** What only some storages have: named locks, conditional commits, commit notifications. */
function optionalMethods(test: SeamTest): void {
  const lockReason = 'the storage has no named locks (soleWriter: the store locks in memory)';
  const withLocks = (name: string, body: (storage: Storage, lock: NonNullable<Storage['lock']>) => Promise<void>): void => {
    test(name, async (storage) => {
      if (storage.lock === undefined) {
        assert.equal(storage.capabilities.soleWriter, true, 'a storage without named locks must be its only writer');
        return;
      }
      await body(storage, storage.lock.bind(storage));
    });
  };
  withLocks(`named locks exclude each other; wait: false declines while held (when the storage has them: ${lockReason} otherwise)`, async (_storage, lock) => {
    const held = await lock('suite-lock', { wait: true });
    assert.ok(held !== null);
    assert.equal(await lock('suite-lock', { wait: false }), null);
    const other = await lock('another-name', { wait: false });
    await other?.release();
    let acquired = false;
    const waiting = lock('suite-lock', { wait: true }).then((next) => {
      acquired = true;
      return next;
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(acquired, false);
    await held?.release();
    const next = await waiting;
    assert.ok(next !== null);
    await next?.release();
  });

  test('commitIf, where the storage has it, writes only when the value at the key is the one expected, as the one writer of its moment', async (storage) => {
    if (storage.commitIf === undefined) return;
    const commitIf = storage.commitIf.bind(storage);
    const tip = bytes('tip');
    assert.equal(await commitIf({ key: tip, value: undefined }, [put('tip', '1'), put('a', 'x')], { sync: false }), true, 'absent as expected');
    assert.equal(await commitIf({ key: tip, value: undefined }, [put('tip', '2'), put('a', 'lost')], { sync: false }), false, 'present, expected absent');
    assert.equal(await commitIf({ key: tip, value: bytes('0') }, [put('tip', '2'), put('a', 'lost')], { sync: false }), false, 'another value');
    assert.equal(await commitIf({ key: tip, value: bytes('1') }, [put('tip', '2'), del('a'), put('b', 'y')], { sync: true }), true, 'the value expected');
    assert.deepEqual((await storage.getMany([tip, bytes('a'), bytes('b')])).map(text), ['2', undefined, 'y']);
    // Racing compare-and-sets on one value: exactly one wins.
    const raced = await Promise.all(Array.from({ length: 8 }, (_, i) => commitIf({ key: tip, value: bytes('2') }, [put('tip', `r${i}`), put(`won${i}`, '1')], { sync: false })));
    assert.equal(raced.filter(Boolean).length, 1);
    assert.equal((await keysOf(storage.iterate({ gte: bytes('won'), lt: bytes('woo') }))).length, 1);
    // It waits for an open write session, and sees its commit.
    const current = await storage.get(tip);
    const session = await storage.beginWrite();
    const waiting = commitIf({ key: tip, value: current }, [put('tip', 'late'), put('c', 'late')], { sync: false });
    await session.commit([put('tip', 'session')], { sync: false });
    assert.equal(await waiting, false);
    assert.deepEqual((await storage.getMany([tip, bytes('c')])).map(text), ['session', undefined]);
  });

  test('onCommit, where the storage has it (shared writers), tells of commits; a sole writer has none', async (storage) => {
    if (storage.onCommit === undefined) {
      assert.equal(storage.capabilities.soleWriter, true, 'a storage many processes write must say when they commit');
      return;
    }
    let calls = 0;
    const stop = storage.onCommit(() => calls++);
    await commit(storage, [put('n', '1')]);
    for (let i = 0; i < 100 && calls === 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    stop();
    assert.ok(calls > 0, 'no onCommit call after a commit');
  });
}
