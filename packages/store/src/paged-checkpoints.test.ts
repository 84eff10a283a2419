/**
 * Paged checkpoints (README "Paged checkpoints"): a checkpoint of a large state writes the pages
 * its tail touched and the directories naming them, a cold path read reads the root, one
 * directory and one page, compaction sweeps the pages and directories no retained checkpoint
 * names; and for random large states and patches (keys added, deleted, added again, array-index
 * keys, `__proto__`, a large object replaced whole, a second one appearing) every revision
 * reads — whole and by path, after a reopen with the history cache off — what folding
 * `applyPatch` over the inputs gives (the old code path, key order included), each stored net
 * patch is `netPatch` of its input, each transition's hash and stored bytes are those of the
 * transition built from the inputs alone, every paged checkpoint holds the state a
 * single-record checkpoint would, and the audit is clean.
 */
import { afterEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { MemoryLevel } from 'memory-level';
import { applyPatch, netPatch } from '@stateflow/core';
import type { JsonObject, JsonValue, PatchPathStep } from '@stateflow/core';
import { fcParams, rawWrite } from '@stateflow/test-kit';
import { openEventStore } from './internal/event-store.js';
import { asciiJson } from './internal/codec.js';
import { transitionHash } from './internal/hash.js';
import { Family, checkpointKey, familyRange, logKey, pageKey, parseKey } from './internal/keys.js';
import { readCheckpoint } from './internal/page-reads.js';
import { decodeCheckpointRoot, decodeDirectory, decodePage, encodeDirectory, encodePage, encodePagedRoot, packRefs, pageOf } from './internal/page-records.js';
import type { PageRef, RootObject } from './internal/page-records.js';
import { encodeTransition } from './internal/records.js';
import { openMemoryStorage } from './memory-storage.js';
import type { Storage } from './storage.js';
import type { Store, StoreOptions, Transition } from './types.js';

const STREAM = 'cwd:/paged';
const steps = (...keys: string[]): PatchPathStep[] => keys.map((key) => ({ kind: 'key', key }));

/** A memory store whose storage counts the page records and bytes read through it. */
async function countingStore(db: MemoryLevel<Uint8Array, Uint8Array>, options: StoreOptions): Promise<{ store: Store; reads: { pages: number; bytes: number } }> {
  const storage = await openMemoryStorage(db);
  const reads = { pages: 0, bytes: 0 };
  const count = (key: Uint8Array, value: Uint8Array | undefined): void => {
    if (key[0] === Family.page) reads.pages += 1;
    reads.bytes += value?.byteLength ?? 0;
  };
  const counted = new Proxy(storage, {
    get(target, name) {
      if (name === 'getSync' && target.getSync !== undefined) {
        return (key: Uint8Array) => {
          const value = target.getSync?.(key);
          count(key, value);
          return value;
        };
      }
      if (name === 'getMany') {
        return async (keys: Uint8Array[]) => {
          const values = await target.getMany(keys);
          keys.forEach((key, i) => count(key, values[i]));
          return values;
        };
      }
      const value: unknown = Reflect.get(target, name, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { store: await openEventStore(counted, options), reads };
}

/** The large objects of checkpoint `value` (at `rev`) and every page and directory it names (`rev/n`), its directories read from `storage`. */
async function namedBy(storage: Storage, key: Uint8Array, value: Uint8Array, rev: number): Promise<{ objects: readonly RootObject[]; named: Set<string>; pageRevs: number[] }> {
  const { objects } = decodeCheckpointRoot(key, value, STREAM, rev);
  const named = new Set<string>();
  const pageRevs: number[] = [];
  for (const o of objects) {
    expect(o.directories).toBe(true);
    for (const [r, n] of o.refs.list()) {
      named.add(`${r}/${n}`);
      const dir = pageKey(STREAM, r, n);
      for (const [pr, pn] of decodeDirectory(dir, await storage.get(dir), STREAM, o.count).list()) {
        named.add(`${pr}/${pn}`);
        pageRevs.push(pr);
      }
    }
  }
  return { objects, named, pageRevs };
}

/** An object of `n` members `<prefix><i>: 'value <i><pad>'` (a state above the size that gets paged checkpoints wants 64 KiB). */
const objectOf = (n: number, prefix = 'k', pad = ''): Record<string, JsonValue> => Object.fromEntries(Array.from({ length: n }, (_, i) => [`${prefix}${i}`, `value ${i}${pad}`]));
const PAD = ' '.repeat(60);

describe('paged checkpoints', () => {
  const db = (): MemoryLevel<Uint8Array, Uint8Array> => new MemoryLevel<Uint8Array, Uint8Array>({ keyEncoding: 'view', valueEncoding: 'view' });
  let store: Store | undefined;
  afterEach(async () => {
    await store?.close();
    store = undefined;
  });

  it('write only the pages a checkpoint interval touched and their directories, and a cold path read reads the root, a directory and a page', async () => {
    const data = db();
    ({ store } = await countingStore(data, { checkpointInterval: 4 }));
    const state = { lazy: { memory: objectOf(5_000), small: { a: 1 } } };
    await store.publish({ changes: { [STREAM]: state } });
    // Revision 1 checkpoints every page and directory; 5 and 9 each write the pages their 4 one-key patches touched and the directories naming those.
    for (let i = 0; i < 8; i++) await store.publish({ changes: { [STREAM]: { lazy: { memory: { [`k${i * 7}`]: `changed ${i}` } } } } });
    await store.close();
    const storage = await openMemoryStorage(data);
    const written = new Map<number, number>();
    for await (const [key] of storage.iterate(familyRange(Family.page))) {
      const k = parseKey(key);
      if (k.family === 'page') written.set(k.rev, (written.get(k.rev) ?? 0) + 1);
    }
    await storage.close();
    // 5,000 keys in 512 pages of about 10 members, named by 8 directories of 64.
    const touched = (from: number): number => {
      const pages = new Set(Array.from({ length: 4 }, (_, i) => pageOf(`k${(from + i) * 7}`, 512)));
      return pages.size + new Set([...pages].map((p) => Math.floor(p / 64))).size;
    };
    expect(written).toEqual(new Map([[1, 512 + 8], [5, touched(0)], [9, touched(4)]]));
    const reopened = await countingStore(data, { checkpointInterval: 4, cacheSize: 0 });
    store = reopened.store;
    expect(await store.valueAt(STREAM, 8, steps('lazy', 'memory', 'k21'))).toBe('changed 3');
    expect(await store.valueAt(STREAM, 8, steps('lazy', 'memory', 'k22'))).toBe('value 22');
    expect(await store.valueAt(STREAM, 8, steps('lazy', 'memory', 'absent'))).toBeUndefined();
    expect(await store.valueAt(STREAM, 8, steps('lazy', 'small', 'a'))).toBe(1);
    // Four reads: the root, a directory and a page each (none for the small object), plus the tail's
    // revision and log records: far less than the state.
    expect(reopened.reads.pages).toBe(3 * 2);
    expect(reopened.reads.bytes).toBeLessThan(asciiJson(state).byteLength / 12);
    const whole = await store.stateAt(STREAM, 8);
    expect(Object.keys((whole.lazy as { memory: JsonObject }).memory)).toEqual(Object.keys(state.lazy.memory));
    expect((await store.audit()).problems).toEqual([]);
  });

  it('compaction deletes the pages and directories no retained checkpoint names, and the rest still reads', async () => {
    const data = db();
    ({ store } = await countingStore(data, { checkpointInterval: 4 }));
    const states: JsonObject[] = [{}];
    const publish = async (input: JsonObject): Promise<void> => {
      await (store as Store).publish({ changes: { [STREAM]: input } });
      states.push(applyPatch(states.at(-1) as JsonObject, input));
    };
    await publish({ lazy: { memory: objectOf(4_000) } });
    for (let i = 0; i < 30; i++) await publish({ lazy: { memory: { [`k${i * 11}`]: `changed ${i}` } } });
    expect(await store.compact(STREAM, { keepRevisions: 6 })).toMatchObject({ origin: 26 });
    await store.close();
    store = undefined;
    const storage = await openMemoryStorage(data);
    const named = new Set<string>();
    const stored: string[] = [];
    for await (const [key, value] of storage.iterate(familyRange(Family.checkpoint))) {
      const k = parseKey(key);
      if (k.family !== 'checkpoint') continue;
      expect(k.n).toBeGreaterThanOrEqual(26);
      for (const ref of (await namedBy(storage, key, value, k.n)).named) named.add(ref);
      const { record } = await readCheckpoint(storage, key, value, STREAM, k.n);
      expect(JSON.stringify(record.state)).toBe(JSON.stringify(states[k.n]));
    }
    for await (const [key] of storage.iterate(familyRange(Family.page))) {
      const k = parseKey(key);
      if (k.family === 'page') stored.push(`${k.rev}/${k.n}`);
    }
    await storage.close();
    // Pages and directories written at revision 1 (the first checkpoint) that a retained one still names survive; the others are gone.
    expect([...named].some((ref) => ref.startsWith('1/'))).toBe(true);
    expect(new Set(stored)).toEqual(named);
    ({ store } = await countingStore(data, { checkpointInterval: 4, cacheSize: 0 }));
    for (let rev = 26; rev <= 31; rev++) expect(JSON.stringify(await store.stateAt(STREAM, rev))).toBe(JSON.stringify(states[rev]));
    expect((await store.audit()).problems).toEqual([]);
  });

  /** A change to the large objects: set, delete or nest a member; replace an object whole; add a second large object. */
  const change = fc.oneof(
    { weight: 12, arbitrary: fc.tuple(fc.constantFrom('memory', 'other'), fc.oneof(fc.integer({ min: 0, max: 1_300 }).map((i) => `k${i}`), fc.constantFrom('__proto__', '7', '12', 'x')), fc.oneof(fc.string({ maxLength: 4 }), fc.constant(null), fc.integer().map((n) => ({ n, deep: { list: [n] } })))).map(([object, key, value]) => ({ lazy: { [object]: { [key]: value } } })) },
    { weight: 1, arbitrary: fc.constantFrom('memory', 'other').map((object) => ({ lazy: { [object]: null } })) },
    { weight: 1, arbitrary: fc.integer({ min: 1_030, max: 1_200 }).map((n) => ({ lazy: { other: objectOf(n, 'o', PAD) } })) },
    { weight: 1, arbitrary: fc.integer().map((n) => ({ top: n, lazy: { small: { n } } })) },
  );

  it('give what the old code path gives, for random large states and patches', async () => {
    // Checkpoints across all runs: paged ones, those naming a directory an earlier checkpoint wrote, and those whose own new directory names a page an earlier one wrote.
    const seen = { paged: 0, sharedDirs: 0, sharedPages: 0 };
    const time = new Date(0);
    await fc.assert(
      fc.asyncProperty(fc.array(change, { minLength: 10, maxLength: 40 }), fc.integer({ min: 0, max: 1_000 }), async (patches, seed) => {
        const data = db();
        let s: Store = await openEventStore(await openMemoryStorage(data), { checkpointInterval: 4, clock: () => time });
        const states: JsonObject[] = [{}];
        const nets: JsonObject[] = [{}];
        // The transitions the inputs alone give: seq, time, net patch, hash chain.
        const transitions: Transition[] = [];
        const inputs: JsonObject[] = [{ lazy: { memory: objectOf(1_100, 'k', PAD) } }, ...patches];
        for (const input of inputs) {
          const r = await s.publish({ changes: { [STREAM]: input } });
          const before = states.at(-1) as JsonObject;
          if (r.status === 'accepted') {
            const net = netPatch(before, input);
            const body = { seq: transitions.length + 1, time: time.toISOString(), changes: [{ stream: STREAM, rev: nets.length, patch: net }] };
            const prevHash = transitions.at(-1)?.hash ?? '0'.repeat(64);
            transitions.push({ ...body, prevHash, hash: transitionHash(prevHash, body) });
            expect(JSON.stringify(r.transition)).toBe(JSON.stringify(transitions.at(-1)));
            nets.push(net);
            states.push(applyPatch(before, input));
          } else expect(netPatch(before, input)).toEqual({});
        }
        await s.close();
        s = await openEventStore(await openMemoryStorage(data), { checkpointInterval: 4, cacheSize: 0 });
        try {
          for (let rev = 1; rev < states.length; rev++) {
            const expected = states[rev] as JsonObject;
            for (const object of ['memory', 'other']) {
              const key = ['__proto__', '7', `k${(seed + rev * 37) % 1_300}`][rev % 3] as string;
              const members = (expected.lazy as Record<string, JsonValue> | undefined)?.[object];
              const want = members !== null && typeof members === 'object' && !Array.isArray(members) && Object.prototype.hasOwnProperty.call(members, key) ? members[key] : undefined;
              expect(await s.valueAt(STREAM, rev, steps('lazy', object, key))).toEqual(want);
            }
            expect(JSON.stringify(await s.stateAt(STREAM, rev))).toBe(JSON.stringify(expected));
            expect(JSON.stringify(await s.patchAt(STREAM, rev))).toBe(JSON.stringify(nets[rev]));
          }
          expect((await s.audit()).problems).toEqual([]);
        } finally {
          await s.close();
        }
        const storage = await openMemoryStorage(data);
        try {
          for await (const [key, value] of storage.iterate(familyRange(Family.checkpoint))) {
            const k = parseKey(key);
            if (k.family !== 'checkpoint') continue;
            const { record } = await readCheckpoint(storage, key, value, STREAM, k.n);
            expect(asciiJson(record.state).toString('latin1')).toBe(asciiJson(states[k.n] as JsonObject).toString('latin1'));
            const { objects, pageRevs } = await namedBy(storage, key, value, k.n);
            if (objects.length > 0) seen.paged += 1;
            if (objects.some((o) => o.refs.list().some(([r]) => r < k.n))) seen.sharedDirs += 1;
            if (pageRevs.some((r) => r < k.n)) seen.sharedPages += 1;
          }
          // Each transition is stored as its own encoding, whatever the checkpoints.
          for (const t of transitions) expect(Buffer.from((await storage.get(logKey(t.seq))) as Uint8Array).equals(encodeTransition(logKey(t.seq), t))).toBe(true);
        } finally {
          await storage.close();
        }
      }),
      fcParams({ share: 0.1 }),
    );
    expect(seen.paged).toBeGreaterThan(0);
    expect(seen.sharedDirs).toBeGreaterThan(0);
    expect(seen.sharedPages).toBeGreaterThan(0);
  }, 120_000);

  describe('the audit, page by page', () => {
    /** A store of a 5,000-key object and 12 one-key revisions (checkpoints sharing pages), closed: its data, checkpoint revisions and the latest one's root. */
    const seeded = async (): Promise<{ data: MemoryLevel<Uint8Array, Uint8Array>; revs: number[]; latest: { rev: number; object: RootObject; pages: PageRef[] } }> => {
      const data = db();
      const s = await openEventStore(await openMemoryStorage(data), { checkpointInterval: 4 });
      await s.publish({ changes: { [STREAM]: { lazy: { memory: objectOf(5_000) } } } });
      for (let i = 0; i < 12; i++) await s.publish({ changes: { [STREAM]: { lazy: { memory: { [`k${i}`]: `changed ${i}` } } } } });
      await s.close();
      const storage = await openMemoryStorage(data);
      const revs: number[] = [];
      for await (const [key] of storage.iterate(familyRange(Family.checkpoint))) {
        const k = parseKey(key);
        if (k.family === 'checkpoint') revs.push(k.n);
      }
      const rev = revs.at(-1) as number;
      const key = checkpointKey(STREAM, rev);
      const [object] = decodeCheckpointRoot(key, (await storage.get(key)) as Uint8Array, STREAM, rev).objects as [RootObject];
      const pages: PageRef[] = [];
      for (const ref of object.refs.list()) pages.push(...decodeDirectory(pageKey(STREAM, ...ref), await storage.get(pageKey(STREAM, ...ref)), STREAM, object.count).list());
      await storage.close();
      return { data, revs, latest: { rev, object, pages } };
    };
    /** Tamper with the records of `data` by `edit`, then audit it: the problems' codes and keys. */
    const auditAfter = async (data: MemoryLevel<Uint8Array, Uint8Array>, edit: (storage: Storage) => Promise<void>): Promise<string[]> => {
      const storage = await openMemoryStorage(data);
      await edit(storage);
      await storage.close();
      store = await openEventStore(await openMemoryStorage(data), { checkpointInterval: 4 });
      return (await store.audit()).problems.map((p) => `${p.code} ${p.key}`);
    };
    /** Rewrite page `ref` with its first member's value changed, resealed. */
    const tamperPage = async (storage: Storage, ref: PageRef): Promise<void> => {
      const key = pageKey(STREAM, ...ref);
      const [first, ...rest] = decodePage(key, await storage.get(key), STREAM);
      await rawWrite(storage, [{ type: 'put', key, value: encodePage(key, [[first?.[0] as string, first?.[1] as number, 'tampered'], ...rest]) }]);
    };

    it('is clean on checkpoints that share pages, and catches a page written by the first checkpoint at every checkpoint naming it', async () => {
      const { data, revs, latest } = await seeded();
      expect(revs.length).toBeGreaterThan(2);
      expect(await auditAfter(data, async () => {})).toEqual([]);
      await store?.close();
      const shared = latest.pages.find(([r]) => r === revs[0]) as PageRef;
      expect(await auditAfter(data, (s) => tamperPage(s, shared))).toEqual(revs.map((rev) => `CHECKPOINT_MISMATCH C/${STREAM}/${rev}`));
    });

    it('catches a page a later checkpoint wrote, and a page whose seal does not hold', async () => {
      const { data, latest } = await seeded();
      const own = latest.pages.find(([r]) => r === latest.rev) as PageRef;
      expect(await auditAfter(data, (s) => tamperPage(s, own))).toEqual([`CHECKPOINT_MISMATCH C/${STREAM}/${latest.rev}`]);
      await store?.close();
      const key = pageKey(STREAM, ...own);
      const problems = await auditAfter(data, async (s) => {
        const value = Buffer.from((await s.get(key)) as Uint8Array);
        value[0] = (value[0] as number) ^ 1;
        await rawWrite(s, [{ type: 'put', key, value }]);
      });
      expect(problems).toEqual([`RECORD_INVALID C/${STREAM}/${latest.rev}`]);
    });

    it('catches a directory naming its pages in another order, and a root whose outline differs', async () => {
      const { data, latest } = await seeded();
      const [dir] = latest.object.refs.list() as [PageRef];
      const dirKey = pageKey(STREAM, ...dir);
      const swapped = await auditAfter(data, async (s) => {
        const [a, b, ...rest] = decodeDirectory(dirKey, await s.get(dirKey), STREAM, latest.object.count).list() as [PageRef, PageRef, ...PageRef[]];
        await rawWrite(s, [{ type: 'put', key: dirKey, value: encodeDirectory(dirKey, packRefs([b, a, ...rest])) }]);
      });
      expect(swapped).toContain(`RECORD_INVALID C/${STREAM}/${latest.rev}`);
      await store?.close();
      const { data: fresh, latest: again } = await seeded();
      const key = checkpointKey(STREAM, again.rev);
      const root = await auditAfter(fresh, async (s) => {
        const { record, objects } = decodeCheckpointRoot(key, (await s.get(key)) as Uint8Array, STREAM, again.rev);
        const dirs = objects.map((o) => ({ path: o.path, next: o.next, count: o.count, dirs: o.refs.list() }));
        await rawWrite(s, [{ type: 'put', key, value: encodePagedRoot(key, { rev: record.rev, seq: record.seq, state: { ...record.state, extra: 1 }, objects: dirs }) }]);
      });
      expect(root).toEqual([`CHECKPOINT_MISMATCH C/${STREAM}/${again.rev}`]);
    });
  });
});
