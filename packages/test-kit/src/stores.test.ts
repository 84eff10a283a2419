import { access, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { storePerTest, testBackends } from './stores.js';

/** A stand-in store: its data is one file in its directory (or a value in memory). */
class FileStore {
  closed = false;
  constructor(readonly file: string | null) {}
  async close(): Promise<void> {
    this.closed = true;
  }
}

const opened: FileStore[] = [];
const backends = testBackends<FileStore, { mark?: string }>({
  memory: async () => {
    const store = new FileStore(null);
    opened.push(store);
    return store;
  },
  directory: async (dir, options) => {
    const file = path.join(dir, 'data');
    if (options?.mark !== undefined) await writeFile(file, options.mark);
    const store = new FileStore(file);
    opened.push(store);
    return store;
  },
});

describe('testBackends', () => {
  it('names memory-level and classic-level, with persistence as data', () => {
    expect(backends.map((b) => [b.name, b.persistent])).toEqual([
      ['memory-level', false],
      ['classic-level', true],
    ]);
  });

  it('a directory store reopens over the same directory and destroy removes it', async () => {
    const ts = await backends[1].open({ mark: 'first' });
    expect(ts.dir).not.toBeNull();
    const first = ts.store;
    const again = await ts.reopen({});
    expect(first.closed).toBe(true);
    expect(ts.store).toBe(again);
    expect(await readFile(path.join(ts.dir!, 'data'), 'utf8')).toBe('first');
    await ts.destroy();
    expect(again.closed).toBe(true);
    await expect(access(ts.dir!)).rejects.toThrow();
  });

  it('a memory store has no directory and refuses a reopen', async () => {
    const ts = await backends[0].open();
    expect(ts.dir).toBeNull();
    await expect(ts.reopen()).rejects.toThrow('cannot be reopened');
    await ts.destroy();
    expect(ts.store.closed).toBe(true);
  });
});

describe('storePerTest', () => {
  const seen: FileStore[] = [];
  storePerTest(backends[0], { beforeEach, afterEach }, (opened) => {
    seen.push(opened.store);
  });

  it('opens a store before the first test', () => {
    expect(seen).toHaveLength(1);
    expect(seen[0]?.closed).toBe(false);
  });

  it('destroys it after the test and opens a new one for the next', () => {
    expect(seen).toHaveLength(2);
    expect(seen[0]?.closed).toBe(true);
    expect(seen[1]).not.toBe(seen[0]);
  });
});
