/**
 * Opening without creating (`createIfMissing: false`), a lost log record failing closed in
 * `transitions()`, and a directory without write access named as such. All on disk
 * (classic-level in a temp directory).
 */
import { spawnSync } from 'node:child_process';
import { chmod, mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ClassicLevel } from 'classic-level';
import { openStore } from './open-store.js';
import { translateLevelError } from '@stateflow/store';
import { logKey } from './test-support/layout.js';
import { rejectionOf, removeDir, tempDir } from '@stateflow/test-kit';

async function drain<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

let dir: string;
beforeEach(async () => {
  dir = await tempDir('open-existing');
});
afterEach(async () => {
  await chmod(dir, 0o755).catch(() => undefined);
  await removeDir(dir);
});

describe('openStore with createIfMissing: false', () => {
  it('fails with NOT_FOUND and creates nothing for a missing directory', async () => {
    const missing = path.join(dir, 'absent');
    const err = await rejectionOf(openStore(missing, { createIfMissing: false }));
    expect(err.code).toBe('NOT_FOUND');
    expect(err.details).toEqual({ dir: missing });
    expect(err.message).toBe(`No Stateflow store at ${missing} (no LevelDB CURRENT file); nothing was created`);
    expect(await readdir(dir)).toEqual([]);
  });

  it('fails with NOT_FOUND and writes nothing into a directory of other files', async () => {
    await writeFile(path.join(dir, 'notes.txt'), 'hello');
    expect((await rejectionOf(openStore(dir, { createIfMissing: false }))).code).toBe('NOT_FOUND');
    expect(await readdir(dir)).toEqual(['notes.txt']);
  });

  it('a store path that is a file is STORE_IO saying so, with or without createIfMissing, and the file is left alone', async () => {
    const file = path.join(dir, 'a-file');
    await writeFile(file, 'not a store');
    for (const options of [{ createIfMissing: false }, {}]) {
      const err = await rejectionOf(openStore(file, options));
      expect(err.code).toBe('STORE_IO');
      expect(err.message).toBe(`Store ${file} is a file, not a directory: open a store directory (a missing one is created)`);
    }
    expect(await readFile(file, 'utf8')).toBe('not a store');
  });

  it('fails with NOT_FOUND for an empty LevelDB database (no format record) and does not add one', async () => {
    const db = new ClassicLevel(dir);
    await db.open();
    await db.close();
    const err = await rejectionOf(openStore(dir, { createIfMissing: false }));
    expect(err.code).toBe('NOT_FOUND');
    expect(err.message).toContain('without a Stateflow format record');
    const again = new ClassicLevel(dir);
    await again.open();
    expect(await drain(again.keys())).toEqual([]);
    await again.close();
  });

  it('opens an existing store', async () => {
    const store = await openStore(dir);
    await store.publish({ changes: { global: { a: 1 } } });
    await store.close();
    const existing = await openStore(dir, { createIfMissing: false });
    expect(await existing.state('global')).toEqual({ a: 1 });
    await existing.close();
  });

  it('rejects a createIfMissing that is not a boolean', async () => {
    const err = await rejectionOf(openStore(dir, { createIfMissing: 'no' as never }));
    expect(err.code).toBe('INPUT_INVALID');
    expect(err.details).toEqual({ field: 'createIfMissing' });
  });
});

describe('transitions() on a log with a lost record', () => {
  it('fails closed with STORE_CORRUPT naming the missing seq instead of skipping it', async () => {
    const store = await openStore(dir);
    for (let i = 1; i <= 4; i++) await store.publish({ changes: { global: { n: i } } });
    await store.close();
    const raw = new ClassicLevel<Uint8Array, Uint8Array>(dir, { keyEncoding: 'view', valueEncoding: 'view' });
    await raw.open();
    await raw.del(logKey(2));
    await raw.close();

    const reopened = await openStore(dir);
    try {
      const all = await rejectionOf(drain(reopened.transitions()));
      expect(all.code).toBe('STORE_CORRUPT');
      expect(all.details).toMatchObject({ key: expect.stringContaining('2'), detail: 'transition is missing from the log' });
      expect((await rejectionOf(drain(reopened.transitions({ from: 2, to: 3 })))).code).toBe('STORE_CORRUPT');
      // A lost record at the end of the range is found too.
      expect((await rejectionOf(drain(reopened.transitions({ from: 1, to: 2 })))).code).toBe('STORE_CORRUPT');
      // The stream's seq index still names seq 2: following it fails closed as well.
      expect((await rejectionOf(drain(reopened.transitions({ stream: 'global' })))).code).toBe('STORE_CORRUPT');
      // Ranges that do not include the lost record still read.
      expect((await drain(reopened.transitions({ from: 3 }))).map((t) => t.seq)).toEqual([3, 4]);
    } finally {
      await reopened.close();
    }
  });
});

describe('a store directory without write access', () => {
  const expected = (storeDir: string) =>
    `Stateflow needs write access to ${storeDir} even to read: LevelDB takes a lock and replays its log on open`;

  it('translates LevelDB permission and read-only failures to STORE_IO that says so', () => {
    for (const reason of ['Permission denied', 'Read-only file system']) {
      const levelError = Object.assign(new Error('Database failed to open'), {
        code: 'LEVEL_DATABASE_NOT_OPEN',
        cause: Object.assign(new Error(`IO error: /s/LOCK: ${reason}`), { code: 'LEVEL_IO_ERROR' }),
      });
      const err = translateLevelError(levelError, '/s');
      expect(err.code).toBe('STORE_IO');
      expect(err.message.startsWith(expected('/s'))).toBe(true);
      expect(err.message).toContain(reason);
      expect(err.details).toMatchObject({ location: '/s', reason: 'no-write-access' });
    }
  });

  it('names the cause when a real unprivileged process opens a read-only store directory', async () => {
    const storeDir = path.join(dir, 'store');
    await mkdir(storeDir);
    const store = await openStore(storeDir);
    await store.publish({ changes: { global: { a: 1 } } });
    await store.close();
    await chmod(dir, 0o755);
    await chmod(storeDir, 0o555);
    // Root ignores permissions: open as the unprivileged user "nobody" (setpriv) in that case.
    const script = `import(${JSON.stringify(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../dist/index.js'))}).then(({ openStore }) => openStore(process.argv[1])).then(() => console.log('{"opened":true}'), (e) => console.log(JSON.stringify(e.toJSON())))`;
    const asRoot = process.getuid?.() === 0;
    const run = asRoot
      ? spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, '-e', script, storeDir], { encoding: 'utf8' })
      : spawnSync(process.execPath, ['-e', script, storeDir], { encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout) as { code: string; message: string; details: unknown };
    expect(result.code).toBe('STORE_IO');
    expect(result.message.startsWith(expected(storeDir))).toBe(true);
    expect(result.details).toMatchObject({ location: storeDir, reason: 'no-write-access' });
  });
});
