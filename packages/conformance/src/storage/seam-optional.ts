/**
 * What only some storages have, each registered when the initializer's manifest has it and
 * skipped with the reason when it has not: synchronous reads, several ranges in one call, named locks, conditional commits,
 * commit notifications, connection pools, repairs, read replicas.
 */
import assert from 'node:assert/strict';
import { readRangesByIterating } from '@stateflow/store';
import type { RangeRead, Storage } from '@stateflow/store';
import { bytes, commit, del, keysOf, put, text } from './seam-support.js';
import type { SeamRegistry } from './seam-support.js';

const SOLE_WRITER = 'the storage is its only writer';

/** The seam's optional members. */
export function optionalMembers(registry: SeamRegistry): void {
  const { needs } = registry;
  needs('getSync', 'the storage reads through get and getMany only', 'getSync reads what a commit wrote, undefined for an absent key', async (storage) => {
    const getSync = present(storage.getSync?.bind(storage), 'getSync');
    await commit(storage, [put('b', '2')]);
    assert.equal(text(getSync(bytes('b'))), '2');
    assert.equal(getSync(bytes('zz')), undefined);
    await commit(storage, [del('b')]);
    assert.equal(getSync(bytes('b')), undefined, 'a delete is seen at once');
  });
  needs('readRanges', 'the storage reads one range per iterate', 'readRanges gives what iterate gives for each range, in one call', rangesTogether);
  needs('lock', `no named locks: ${SOLE_WRITER}, so the store locks in memory`, 'named locks exclude each other; wait: false declines while held', namedLocks);
  needs('commitIf', 'no conditional commit: every write takes a write session', 'commitIf writes only when the value at the key is the one expected, as the one writer of its moment', conditionalCommits);
  needs('onCommit', `no commit notifications: ${SOLE_WRITER}`, 'onCommit tells of commits', async (storage) => {
    let calls = 0;
    const stop = present(storage.onCommit?.bind(storage), 'onCommit')(() => calls++);
    await commit(storage, [put('n', '1')]);
    for (let i = 0; i < 100 && calls === 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    stop();
    assert.ok(calls > 0, 'no onCommit call after a commit');
  });
  needs('connections', 'no connection pools', "connections() reports each pool's use within its maximum", async (storage) => {
    await commit(storage, [put('c', '1')]);
    const pools = present(storage.connections?.bind(storage), 'connections')();
    assert.ok(pools.length > 0, 'a storage with pools reports at least one');
    assert.equal(new Set(pools.map((p) => p.pool)).size, pools.length, 'pool names are unique');
    for (const p of pools) assert.ok(p.idle >= 0 && p.idle <= p.total && p.total <= p.max && p.waiting >= 0, `${p.pool}: ${JSON.stringify(p)}`);
  });
  needs('repairs', 'the storage never repairs on open', 'a fresh storage reports no repairs', async (storage) => {
    assert.deepEqual(present(storage.repairs, 'repairs'), []);
  });
  needs('replicas', 'no read replicas (none configured)', 'each read replica reads, and snapshots, what the storage committed', async (storage) => {
    await commit(storage, [put('r', '1')]);
    const replicas = present(storage.replicas, 'replicas');
    assert.ok(replicas.length > 0, 'the manifest counts replicas only where there is one');
    for (const replica of replicas) {
      assert.equal(typeof replica.location, 'string');
      let seen: string | undefined;
      for (let i = 0; i < 250 && seen === undefined; i++) {
        seen = text(await replica.get(bytes('r')));
        if (seen === undefined) await new Promise((resolve) => setTimeout(resolve, 20));
      }
      assert.equal(seen, '1', `${replica.location} never saw the commit`);
      assert.equal(await replica.snapshot(async (reader) => text(await reader.get(bytes('r')))), '1');
    }
  });
}

/** An optional member the manifest says the storage has (`name` for the message). */
function present<T>(value: T | undefined, name: string): T {
  assert.ok(value !== undefined, `the manifest says the storage has ${name}, and it has not`);
  return value;
}

async function namedLocks(storage: Storage): Promise<void> {
  const lock = present(storage.lock?.bind(storage), 'lock');
  const held = await lock('suite-lock', { wait: true });
  assert.ok(held !== null);
  assert.equal(await lock('suite-lock', { wait: false }), null);
  const other = await lock('another-name', { wait: false });
  assert.ok(other !== null, 'another name is free');
  await other.release();
  let acquired = false;
  const waiting = lock('suite-lock', { wait: true }).then((next) => {
    acquired = true;
    return next;
  });
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(acquired, false);
  await held.release();
  const next = await waiting;
  assert.ok(next !== null);
  await next.release();
}

async function conditionalCommits(storage: Storage): Promise<void> {
  const commitIf = present(storage.commitIf?.bind(storage), 'commitIf');
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
}

/**
 * One `readRanges` call against `readRangesByIterating` (its meaning in `iterate` calls): bounds,
 * direction, limits, empty ranges, and starts taken from an earlier range (`from`), after and
 * at the key found, below and above the range's own start, and when nothing was found.
 */
async function rangesTogether(storage: Storage): Promise<void> {
  const readRanges = present(storage.readRanges?.bind(storage), 'readRanges');
  await commit(storage, ['a', 'b1', 'b2', 'b3', 'c', 'd', 'x1', 'y1', 'y2', 'y3'].map((key) => put(key, `v${key}`)));
  const ranges: RangeRead[] = [
    { gte: bytes('b'), lt: bytes('c'), limit: 10 },
    { gte: bytes('b'), lt: bytes('c'), reverse: true, limit: 2 },
    { gte: bytes('a'), limit: 3 },
    { lt: bytes('c'), reverse: true, limit: 1 },
    { gte: bytes('x'), lt: bytes('y'), limit: 5 },
    { gte: bytes('a'), lt: bytes('e') },
    { gte: bytes('y'), lt: bytes('z'), limit: 5, from: { range: 0, prefix: 1 } },
    { gte: bytes('y'), lt: bytes('z'), limit: 5, from: { range: 1, prefix: 1, inclusive: true } },
    { gte: bytes('y2'), lt: bytes('z'), limit: 5, from: { range: 4, prefix: 1 } },
    { gte: bytes('y'), lt: bytes('z'), limit: 5, from: { range: 4, prefix: 1, inclusive: true } },
    { gte: bytes('y'), lt: bytes('z'), limit: 5, from: { range: 0, prefix: 0 } },
    { gte: bytes('b'), lt: bytes('z'), reverse: true, limit: 2, from: { range: 5, prefix: 1 } },
    { gte: bytes('y'), lt: bytes('z'), limit: 5, from: { range: 12, prefix: 1 } },
    { gte: bytes('q'), lt: bytes('r'), limit: 1 },
    { gte: bytes('y'), lt: bytes('z'), limit: 5, from: { range: 13, prefix: 1 } },
  ];
  const shown = (entries: readonly (readonly [Uint8Array, Uint8Array])[] | undefined): string[] => (entries ?? []).map(([key, value]) => `${text(key)}=${text(value)}`);
  const together = await readRanges(ranges);
  const alone = await readRangesByIterating(storage, ranges);
  assert.equal(together.length, ranges.length);
  for (const i of ranges.keys()) assert.deepEqual(shown(together[i]), shown(alone[i]), `range ${i}: ${JSON.stringify(ranges[i])}`);
  assert.deepEqual(shown(together[6]), ['y2=vy2', 'y3=vy3'], 'after the key found (b1, read as y1)');
  assert.deepEqual(shown(together[7]), ['y3=vy3'], 'at the key found (b3 of a reverse range, read as y3)');
  assert.deepEqual(await readRanges([]), []);
}
