import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ClassicLevel } from 'classic-level';
import { openMemoryStore } from '@stateflow/store';
import { openStore } from './open-store.js';
import { encodeRecord, formatKey } from './test-support/layout.js';
import { rejectionOf, removeDir, tempDir } from '@stateflow/test-kit';

async function rawDump(dir: string): Promise<string[]> {
  const db = new ClassicLevel<Buffer, Buffer>(dir, { keyEncoding: 'buffer', valueEncoding: 'buffer' });
  await db.open();
  const out: string[] = [];
  for await (const [k, v] of db.iterator()) out.push(`${k.toString('hex')}=${v.toString('hex')}`);
  await db.close();
  return out;
}

describe('openStore / openMemoryStore', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await tempDir('open');
  });
  afterEach(async () => {
    await removeDir(dir);
  });

  it('creates a store with a format record and reopens it with its data', async () => {
    const store = await openStore(dir);
    expect(store.location).toBe(dir);
    await store.publish({ changes: { global: { a: 1 } } });
    await store.close();
    const again = await openStore(dir);
    expect(again.lastSeq()).toBe(1);
    expect(await again.state('global')).toEqual({ a: 1 });
    await again.close();
    expect((await rawDump(dir)).some((e) => e.startsWith(`${formatKey().toString('hex')}=`))).toBe(true);
  });

  it('fails with STORE_LOCKED naming the directory while another store holds it', async () => {
    const store = await openStore(dir);
    const err = await rejectionOf(openStore(dir));
    expect(err.code).toBe('STORE_LOCKED');
    expect(err.details).toEqual({ dir, pid: process.pid });
    expect(err.message).toContain(dir);
    expect(err.message).toContain('another open store in this process');
    await store.close();
    const after = await openStore(dir);
    await after.close();
  });

  it('refuses an unknown format version with STORE_VERSION and rewrites nothing', async () => {
    const db = new ClassicLevel<Buffer, Buffer>(dir, { keyEncoding: 'buffer', valueEncoding: 'buffer' });
    await db.put(formatKey(), Buffer.from(encodeRecord({ format: 'stateflow-store', version: 99 })));
    await db.close();
    const before = await rawDump(dir);
    const err = await rejectionOf(openStore(dir));
    expect(err.code).toBe('STORE_VERSION');
    expect(err.details).toEqual({ found: 99, supported: 5 });
    expect(await rawDump(dir)).toEqual(before);
  });

  it('refuses a LevelDB directory holding foreign data with STORE_VERSION', async () => {
    const db = new ClassicLevel<string, string>(dir);
    await db.put('hello', 'world');
    await db.close();
    const err = await rejectionOf(openStore(dir));
    expect(err.code).toBe('STORE_VERSION');
    expect(err.details).toEqual({ found: null, supported: 5 });
    expect(await rawDump(dir)).toHaveLength(1);
  });

  it('validates options', async () => {
    expect((await rejectionOf(openMemoryStore({ checkpointInterval: 0 }))).code).toBe('INPUT_INVALID');
    expect((await rejectionOf(openMemoryStore({ retention: { keepRevisions: 0 } }))).code).toBe('INPUT_INVALID');
    const m = await openMemoryStore();
    expect(m.location).toBeNull();
    await m.close();
  });
});

describe('bad options when opening', () => {
  it.each([
    ['a number as dir', () => openStore(5 as never)],
    ['an empty dir', () => openStore('')],
  ])('%s → INPUT_INVALID', async (_, open) => {
    await expect(open()).rejects.toMatchObject({ code: 'INPUT_INVALID' });
  });
});
