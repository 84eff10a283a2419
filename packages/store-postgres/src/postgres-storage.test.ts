/**
 * The storage seam's contract on PostgreSQL beyond the shared storage suite (which checks the
 * byte order of random keys against memory-level on every backend,
 * `test/conformance/storage-postgres.test.ts`): a commit applies in order (a later op on a key wins)
 * and all at once; write sessions are one at a time across two storages over one schema;
 * an aborted session writes nothing; a snapshot does not see later commits.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IterateOptions, Storage, StorageReader } from '@stateflow/store';
import { freshPostgresUrl, testPostgres } from '@stateflow/test-kit';
import { parseTarget } from './store-url.js';
import { dropPostgresStore } from './open-postgres-store.js';
import { openPostgresStorage } from './postgres-storage.js';

const server = await testPostgres();

async function collect(reader: StorageReader, options: IterateOptions): Promise<string[]> {
  const out: string[] = [];
  for await (const [k, v] of reader.iterate(options)) out.push(`${Buffer.from(k).toString('hex')}=${Buffer.from(v).toString('hex')}`);
  return out;
}

async function put(storage: Storage, entries: [Uint8Array, Uint8Array][]): Promise<void> {
  const session = await storage.beginWrite();
  await session.commit(entries.map(([key, value]) => ({ type: 'put' as const, key, value })), { sync: false });
}

describe.skipIf('unavailable' in server)('the storage seam on PostgreSQL', () => {
  const url = freshPostgresUrl('seam');
  let pg: Storage;
  beforeAll(async () => {
    pg = await openPostgresStorage(parseTarget(url));
  });
  afterAll(async () => {
    await pg.close();
    await dropPostgresStore(url);
  });

  it('declares a shared, transactional, persistent backend', () => {
    expect(pg.capabilities).toEqual({ persistent: true, fsync: true, soleWriter: false, reopenAfterFailedWrite: false });
    expect(pg.location).toBe(parseTarget(url).location);
  });

  it('applies a commit in order, all at once: a later op on a key wins', async () => {
    const k = (s: string): Uint8Array => Buffer.from(`order/${s}`);
    const session = await pg.beginWrite();
    await session.commit(
      [
        { type: 'put', key: k('a'), value: Uint8Array.of(1) },
        { type: 'del', key: k('a') },
        { type: 'put', key: k('b'), value: Uint8Array.of(1) },
        { type: 'put', key: k('b'), value: Uint8Array.of(2) },
        { type: 'del', key: k('c') },
        { type: 'put', key: k('c'), value: Uint8Array.of(3) },
      ],
      { sync: true },
    );
    expect(await pg.get(k('a'))).toBeUndefined();
    expect([...((await pg.get(k('b'))) as Uint8Array)]).toEqual([2]);
    expect([...((await pg.get(k('c'))) as Uint8Array)]).toEqual([3]);
  });

  it('opens one write session at a time across two storages; an aborted one writes nothing', async () => {
    const other = await openPostgresStorage(parseTarget(url));
    try {
      const first = await pg.beginWrite();
      let secondBegan = false;
      const second = other.beginWrite().then((s) => {
        secondBegan = true;
        return s;
      });
      await new Promise((resolve) => setTimeout(resolve, 150));
      expect(secondBegan).toBe(false);
      await first.commit([{ type: 'put', key: Buffer.from('lock/first'), value: Uint8Array.of(1) }], { sync: false });
      const s2 = await second;
      expect(await other.get(Buffer.from('lock/first'))).toBeDefined();
      await s2.abort();
      const s3 = await pg.beginWrite();
      await s3.abort();
      expect(await pg.get(Buffer.from('lock/never'))).toBeUndefined();
    } finally {
      await other.close();
    }
  });

  it('gives a snapshot that does not see later commits', async () => {
    await put(pg, [[Buffer.from('snap/a'), Uint8Array.of(1)]]);
    const seen = await pg.snapshot(async (reader) => {
      const before = await collect(reader, { gte: Buffer.from('snap/'), lt: Buffer.from('snap0') });
      await put(pg, [[Buffer.from('snap/b'), Uint8Array.of(2)]]);
      const after = await collect(reader, { gte: Buffer.from('snap/'), lt: Buffer.from('snap0') });
      return { before, after, get: await reader.get(Buffer.from('snap/b')) };
    });
    expect(seen.after).toEqual(seen.before);
    expect(seen.get).toBeUndefined();
    expect(await pg.get(Buffer.from('snap/b'))).toBeDefined();
  });
});
