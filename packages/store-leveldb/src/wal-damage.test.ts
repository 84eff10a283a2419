/**
 * Damage to LevelDB's files (README "Fail closed"): the write-ahead log anywhere but its torn
 * tail, a missing log, a truncated table, a missing MANIFEST, a garbage or missing CURRENT are
 * STORE_CORRUPT naming the file and byte offset, and the directory is byte for byte what it was
 * (LevelDB never opens it: its recovery would drop the damaged records and rewrite the files).
 * The torn tail a crash leaves still opens, with every transition before it (the crash policy's
 * other rules, after a reboot, are `crash-policy.test.ts`'s).
 */
import { appendFile, readFile, readdir, rm, truncate, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from './open-store.js';
import { refusedCorrupt } from './test-support/files.js';
import { afterReboot, copyImage, crashImage, recordAt, type CrashImage } from './test-support/crash-image.js';
import { removeDir } from '@stateflow/test-kit';

let image: CrashImage;
let logBytes: Buffer;
const cleanup: string[] = [];

beforeAll(async () => {
  // 40 fsync'd transitions of ~2 KB: a write-ahead log of three 32 KiB blocks.
  image = await crashImage(async (store) => {
    for (let i = 1; i <= 40; i++) await store.publish({ changes: { global: { [`k${i}`]: `v${i} `.repeat(500), n: i } }, meta: { i } });
  });
  logBytes = await readFile(path.join(image.dir, image.log));
  cleanup.push(image.dir);
});

afterAll(async () => {
  for (const dir of cleanup) await removeDir(dir);
});

async function damaged(damage: (dir: string) => Promise<void>): Promise<string> {
  const dir = await copyImage(image);
  cleanup.push(dir);
  await damage(dir);
  return dir;
}

/** Open `dir`, expecting STORE_CORRUPT saying how to recover; the directory must be byte for byte unchanged. */
async function refused(dir: string, options?: { createIfMissing: boolean }): Promise<Record<string, unknown>> {
  const err = await refusedCorrupt(dir, () => openStore(dir, options));
  expect(err.message).toContain('stateflow recover');
  return err.details as Record<string, unknown>;
}

describe('a cleanly closed store', () => {
  it('has an empty write-ahead log: its data is in tables', async () => {
    const dir = await damaged(async () => undefined);
    const store = await openStore(dir);
    await store.publish({ changes: { global: { more: true } } });
    await store.close();
    const logs = (await readdir(dir)).filter((name) => name.endsWith('.log'));
    expect(logs).toHaveLength(1);
    expect((await readFile(path.join(dir, logs[0] as string))).length).toBe(0);
    const reopened = await openStore(dir);
    expect(reopened.lastSeq()).toBe(41);
    expect((await reopened.audit()).problems).toEqual([]);
    await reopened.close();
  });
});

describe('the torn tail of a crash', () => {
  it('opens with every transition before it: the last record cut short', async () => {
    const lastRecord = recordAt(logBytes, logBytes.length - 1);
    const dir = await damaged((d) => truncate(path.join(d, image.log), lastRecord + 20));
    const store = await openStore(dir);
    expect(store.lastSeq()).toBe(39);
    expect((await store.audit()).problems).toEqual([]);
    await store.close();
  });

  it('zeros after the last record (a file extended but never written: a power loss) open after a reboot, naming the seq from which buffered ones may be lost', async () => {
    const dir = await damaged((d) => appendFile(path.join(d, image.log), Buffer.alloc(3_000)));
    // No process crash leaves zeros: on this boot they are damage.
    expect(await refused(dir)).toMatchObject({ file: image.log, offset: logBytes.length });
    const store = await afterReboot(() => openStore(dir));
    expect(store.lastSeq()).toBe(40);
    expect(store.notices.map((n) => n.details)).toEqual([{ fromSeq: 41, throughSeq: null, file: image.log, offset: logBytes.length, keptIn: [expect.stringContaining(`${image.log}.from-${logBytes.length}`)] }]);
    await store.close();
  });
});

describe('damage to the write-ahead log', () => {
  for (const fraction of [0.02, 1 / 3, 0.5, 2 / 3, 0.9]) {
    it(`a byte flipped at ${Math.round(fraction * 100)}% of the log is STORE_CORRUPT naming the log and the record's offset`, async () => {
      const at = Math.floor(logBytes.length * fraction);
      const dir = await damaged(async (d) => {
        const bytes = Buffer.from(logBytes);
        bytes[at] = (bytes[at] as number) ^ 0x10;
        await writeFile(path.join(d, image.log), bytes);
      });
      const details = await refused(dir);
      expect(details).toMatchObject({ file: image.log, offset: recordAt(logBytes, at) });
    });
  }

  it('a deleted log that the MANIFEST expects is STORE_CORRUPT', async () => {
    const dir = await damaged((d) => rm(path.join(d, image.log)));
    expect(await refused(dir)).toMatchObject({ file: image.log, offset: 0 });
  });

  it('a deleted log after a clean close is STORE_CORRUPT', async () => {
    const dir = await damaged(async () => undefined);
    const store = await openStore(dir);
    await store.close();
    const log = (await readdir(dir)).find((name) => name.endsWith('.log')) as string;
    await rm(path.join(dir, log));
    expect(await refused(dir)).toMatchObject({ file: log, offset: 0 });
  });
});

describe('damage to the other LevelDB files', () => {
  async function closedCopy(): Promise<string> {
    const dir = await damaged(async () => undefined);
    await (await openStore(dir)).close();
    return dir;
  }

  it('a table truncated to half is STORE_CORRUPT naming it', async () => {
    const dir = await closedCopy();
    const table = (await readdir(dir)).find((name) => name.endsWith('.ldb')) as string;
    const size = (await readFile(path.join(dir, table))).length;
    await truncate(path.join(dir, table), Math.floor(size / 2));
    expect(await refused(dir)).toMatchObject({ file: table, offset: Math.floor(size / 2) });
  });

  it('a deleted MANIFEST is STORE_CORRUPT naming it', async () => {
    const dir = await closedCopy();
    const manifest = (await readdir(dir)).find((name) => name.startsWith('MANIFEST-')) as string;
    await rm(path.join(dir, manifest));
    expect(await refused(dir)).toMatchObject({ file: manifest });
  });

  it('a garbage CURRENT is STORE_CORRUPT', async () => {
    const dir = await closedCopy();
    await writeFile(path.join(dir, 'CURRENT'), 'not a manifest name');
    expect(await refused(dir)).toMatchObject({ file: 'CURRENT', offset: 0 });
  });

  it('a deleted CURRENT beside LevelDB files is STORE_CORRUPT, never a new empty database', async () => {
    const dir = await closedCopy();
    await rm(path.join(dir, 'CURRENT'));
    expect(await refused(dir)).toMatchObject({ file: 'CURRENT' });
    expect(await refused(dir, { createIfMissing: false })).toMatchObject({ file: 'CURRENT' });
  });
});
