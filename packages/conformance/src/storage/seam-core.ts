/**
 * The seam's behaviour every storage has (`@stateflow/store` `storage.ts` "The contract every
 * adapter keeps"): point and batched reads, ordered half-open iteration, write sessions (commit,
 * abort, one at a time, atomic, sync), snapshots, readers beside a writer, a closed storage, and
 * data across a reopen where the storage is persistent.
 */
import assert from 'node:assert/strict';
import type { StorageOp } from '@stateflow/store';
import { bytes, commit, del, keysOf, put, rejects, text } from './seam-support.js';
import type { SeamRegistry } from './seam-support.js';

/** Point reads and ordered, half-open iteration. */
export function readsAndIteration({ test }: SeamRegistry): void {
  test('get and getMany read what a commit wrote, undefined for absent keys', async (storage) => {
    assert.equal(await storage.get(bytes('a')), undefined);
    await commit(storage, [put('a', '1'), put('b', '2')]);
    assert.equal(text(await storage.get(bytes('a'))), '1');
    assert.deepEqual((await storage.getMany([bytes('b'), bytes('zz'), bytes('a')])).map(text), ['2', undefined, '1']);
    assert.deepEqual(await storage.getMany([]), []);
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
export function writeSessions({ test }: SeamRegistry): void {
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
export function snapshotsAndReaders({ test }: SeamRegistry): void {
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

/** Data across a reopen, where the storage is persistent (the initializer has `reopen`). */
export function persistence({ init, plain, skip }: SeamRegistry): void {
  const name = 'a persistent storage keeps every commit across a reopen';
  const { reopen } = init;
  if (reopen === undefined) {
    skip(name, 'the initializer has no reopen (not persistent)');
    return;
  }
  plain(name, async () => {
    let storage = await init.create();
    try {
      assert.equal(storage.capabilities.persistent, true);
      await commit(storage, [put('a', '1')]);
      await commit(storage, [put('b', '2')], true);
      storage = await reopen.call(init, storage);
      assert.deepEqual((await storage.getMany([bytes('a'), bytes('b')])).map(text), ['1', '2']);
    } finally {
      await init.destroy(storage);
    }
  });
}
