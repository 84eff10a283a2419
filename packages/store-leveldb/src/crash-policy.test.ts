/**
 * The crash policy (README "Durability contract"), on crash images: the files of a store copied
 * while it was open, damaged the way each kind of crash (or disk) damages them. A process crash
 * (the log was written on this boot) leaves only a torn tail; after a reboot (an OS crash or
 * power loss: `afterReboot`), what was never synced may be garbled, and the store opens with
 * the longest prefix that verifies, names the seq from which buffered transitions were lost and
 * keeps the dropped bytes — unless a synced record follows the damage. Every refusal leaves the
 * directory byte for byte as it was.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, readdir, readlink, rm, symlink, truncate, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isStateflowError } from '@stateflow/core';
import { openStore } from './open-store.js';
import { collect, removeDir } from '@stateflow/test-kit';
import { byteDump, refusedCorrupt } from './test-support/files.js';
import { afterReboot, copyImage, crashImage, recordAt, type CrashImage } from './test-support/crash-image.js';
import type { Store, StoreNotice } from '@stateflow/store';

const here = path.dirname(fileURLToPath(import.meta.url));
let image: CrashImage;
let logBytes: Buffer;
const cleanup: string[] = [];

/** Seqs 1–10 fsync, 11–20 buffered, 21 fsync, 22–30 buffered (~2 KB patches, with checkpoints ~330 KB of log), 31–35 small and buffered. */
const SYNCED = new Set([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 21]);

beforeAll(async () => {
  image = await crashImage(async (store) => {
    for (let i = 1; i <= 30; i++) {
      await store.publish({ changes: { global: { [`k${i}`]: `v${i} `.repeat(500), n: i } }, durability: SYNCED.has(i) ? 'fsync' : 'buffered' });
    }
    for (let i = 31; i <= 35; i++) await store.publish({ changes: { tail: { n: i } }, durability: 'buffered' });
  });
  logBytes = await readFile(path.join(image.dir, image.log));
  cleanup.push(image.dir);
});

afterAll(async () => {
  for (const dir of cleanup) await removeDir(dir);
});

/** Byte offset of the physical record holding transition `seq` (found by its `L` key's bytes, independently of the store's reader). */
function recordOf(seq: number): number {
  const key = Buffer.alloc(9);
  key[0] = 0x4c;
  key.writeUIntBE(seq, 3, 6);
  const at = logBytes.indexOf(key);
  if (at < 0) throw new Error(`no L/${seq} in the log`);
  return recordAt(logBytes, at);
}

async function damaged(damage: (log: Buffer) => Buffer | Promise<void>): Promise<string> {
  const dir = await copyImage(image);
  cleanup.push(dir);
  const result = await damage(Buffer.from(logBytes));
  if (result instanceof Buffer) await writeFile(path.join(dir, image.log), result);
  return dir;
}

const flipAt = (offset: number) => (log: Buffer): Buffer => {
  log[offset + 20] = (log[offset + 20] as number) ^ 0x10;
  return log;
};

/** Open `dir`, expecting STORE_CORRUPT; the directory must be byte for byte unchanged. */
async function refused(dir: string, open: () => Promise<Store> = () => openStore(dir)): Promise<Record<string, unknown>> {
  return (await refusedCorrupt(dir, open)).details as Record<string, unknown>;
}

async function failureCode(open: Promise<Store>): Promise<string | null> {
  return open.then(
    async (store) => {
      await store.close();
      return null;
    },
    (err: unknown) => (isStateflowError(err) ? err.code : String(err)),
  );
}

async function seqs(store: Store): Promise<number[]> {
  return (await collect(store.transitions())).map((t) => t.seq);
}

describe('after a process crash (the log was written on this boot)', () => {
  it('damage with records that verify after it is STORE_CORRUPT, and nothing changes', async () => {
    const dir = await damaged(flipAt(recordOf(25)));
    expect(await refused(dir)).toMatchObject({ file: image.log, offset: recordOf(25), detail: expect.stringContaining('this boot') });
  });

  it('a length made to run past the end of the file, with records that verify after it, is STORE_CORRUPT (not a torn tail)', async () => {
    // The first transition whose record starts in the log's last 32 KiB block, with others after it.
    const lastBlock = Math.floor((logBytes.length - 1) / 32_768);
    const seq = [...Array(34).keys()].map((i) => i + 1).find((s) => Math.floor(recordOf(s) / 32_768) === lastBlock) as number;
    expect(seq).toBeLessThan(35);
    const at = recordOf(seq);
    const dir = await damaged((log) => {
      log.writeUInt16LE(log.length - at, at + 4);
      return log;
    });
    expect(await refused(dir)).toMatchObject({ file: image.log, offset: at });
  });

  it('a complete last record that does not verify is damage (an acknowledged transition), not a torn tail', async () => {
    const at = recordOf(35);
    const dir = await damaged(flipAt(at));
    expect(await refused(dir)).toMatchObject({ file: image.log, offset: at });
    const store = await afterReboot(() => openStore(dir));
    try {
      expect(store.lastSeq()).toBe(34);
      expect(store.notices[0]?.details).toMatchObject({ fromSeq: 35, throughSeq: null });
    } finally {
      await store.close();
    }
  });

  it('a last record whose length was made longer, its checksum verifying over the bytes there, is damage, not a torn tail (issue 37 P1)', async () => {
    const at = recordOf(35);
    const dir = await damaged((log) => {
      log.writeUInt16LE(log.readUInt16LE(at + 4) + 1, at + 4);
      return log;
    });
    expect(await refused(dir)).toMatchObject({ file: image.log, offset: at, detail: expect.stringContaining('verifies over the bytes present') });
  });

  it.each([
    ['no record start', () => Buffer.from('stray bytes, no record at all')],
    ['a FULL header whose batch does not continue the sequence', () => {
      const stray = Buffer.alloc(7 + 20);
      stray.writeUInt16LE(200, 4);
      stray[6] = 1;
      stray.writeBigUInt64LE(7n, 7);
      return stray;
    }],
  ])('stray bytes after the last record (%s) are damage after a process crash; after a reboot the notice names no lost transition (issue 37 P4)', async (_, stray) => {
    const dir = await damaged((log) => Buffer.concat([log, stray()]));
    expect(await refused(dir)).toMatchObject({ file: image.log, offset: logBytes.length, detail: expect.stringContaining('not a write cut short') });
    const store = await afterReboot(() => openStore(dir));
    try {
      expect(store.lastSeq()).toBe(35);
      expect(store.notices[0]?.details).toMatchObject({ fromSeq: 36, throughSeq: null, offset: logBytes.length });
      expect(store.notices[0]?.message).toContain('no transition in the dropped bytes verifies');
      expect(store.notices[0]?.message).not.toMatch(/from seq 36|transitions 36/);
    } finally {
      await store.close();
    }
  });

  it('a torn tail opens with every transition before it and no notice', async () => {
    const dir = await damaged(async () => undefined);
    await truncate(path.join(dir, image.log), recordOf(30) + 100);
    const store = await openStore(dir);
    try {
      expect(store.lastSeq()).toBe(29);
      expect(store.notices).toEqual([]);
      expect((await store.audit()).problems).toEqual([]);
    } finally {
      await store.close();
    }
  });
});

describe('after an OS crash or power loss (the log was written on an earlier boot)', () => {
  it('damage in the unsynced tail drops it: the store opens with the prefix, names the lost seqs and keeps the bytes', async () => {
    const at = recordOf(25);
    const dir = await damaged(flipAt(at));
    const store = await afterReboot(() => openStore(dir));
    let notice: StoreNotice | undefined;
    try {
      expect(store.lastSeq()).toBe(24);
      expect(await seqs(store)).toEqual(Array.from({ length: 24 }, (_, i) => i + 1));
      notice = store.notices[0];
      expect(store.notices).toHaveLength(1);
      expect(notice?.code).toBe('BUFFERED_TRANSITIONS_LOST');
      expect(notice?.details).toEqual({ fromSeq: 25, throughSeq: 35, file: image.log, offset: at, keptIn: [path.join(dir, 'stateflow-dropped', `${image.log}.from-${at}`)] });
      expect(notice?.message).toContain('transitions 25…35');
      expect((await store.audit()).problems).toEqual([]);
      expect((await store.publish({ changes: { global: { after: true } } })).transition?.seq).toBe(25);
    } finally {
      await store.close();
    }
    // Nothing is destroyed: the dropped bytes are the log's from the damaged record on.
    expect(await readFile(notice?.details.keptIn[0] as string)).toEqual(logBytes.subarray(at).map((b, i) => (i === 20 ? b ^ 0x10 : b)));
    // Opened again (on this boot): no notice, the same transitions and the one after.
    const again = await openStore(dir);
    try {
      expect(again.notices).toEqual([]);
      expect(again.lastSeq()).toBe(25);
      expect((await again.audit()).problems).toEqual([]);
    } finally {
      await again.close();
    }
  });

  it('a zeroed page in the unsynced tail (pages written out of order) is dropped the same way', async () => {
    const at = recordOf(26);
    const dir = await damaged((log) => log.fill(0, at, at + 4_096));
    const store = await afterReboot(() => openStore(dir));
    try {
      expect(store.lastSeq()).toBe(25);
      expect(store.notices[0]?.details).toMatchObject({ fromSeq: 26, throughSeq: 35, offset: at });
      expect((await store.audit()).problems).toEqual([]);
    } finally {
      await store.close();
    }
  });

  it('a torn tail drops the torn record and says buffered transitions after the prefix may be lost', async () => {
    const dir = await damaged(async () => undefined);
    await truncate(path.join(dir, image.log), recordOf(30) + 100);
    const store = await afterReboot(() => openStore(dir));
    try {
      expect(store.lastSeq()).toBe(29);
      expect(store.notices[0]?.details).toMatchObject({ fromSeq: 30, throughSeq: null, offset: recordOf(30) });
    } finally {
      await store.close();
    }
  });

  it('a garbled last synced record with only buffered records after it is STORE_CORRUPT, not dropped as buffered (issue 37 P2)', async () => {
    // Seq 21 is the last fsync'd one; 22–35 are buffered, and their marks say "synced through 21".
    const dir = await damaged(flipAt(recordOf(21)));
    expect(await refused(dir, () => afterReboot(() => openStore(dir)))).toMatchObject({
      file: image.log,
      offset: recordOf(21),
      detail: expect.stringContaining('every transition through 21 was synced'),
    });
  });

  it('damage with a synced record after it is STORE_CORRUPT: synced data is never dropped', async () => {
    // Seq 21 was fsync'd after the buffered seq 15: everything before it was on stable storage.
    const dir = await damaged(flipAt(recordOf(15)));
    expect(await refused(dir, () => afterReboot(() => openStore(dir)))).toMatchObject({
      file: image.log,
      offset: recordOf(15),
      detail: expect.stringContaining('before a synced record (transition 21)'),
    });
  });

  it('damage to a synced record with synced records after it is STORE_CORRUPT', async () => {
    const dir = await damaged(flipAt(recordOf(5)));
    expect(await refused(dir, () => afterReboot(() => openStore(dir)))).toMatchObject({ file: image.log, offset: recordOf(5) });
  });
});

describe('refused opens leave the directory byte for byte as it was', () => {
  it('a leftover journal of buffered commits is refused with what to do; an empty one is removed', async () => {
    const dir = await damaged(async () => undefined);
    await writeFile(path.join(dir, 'stateflow-journal'), Buffer.alloc(100, 1));
    const before = await byteDump(dir);
    const err = await openStore(dir).then(
      () => null,
      (e: unknown) => e,
    );
    expect(isStateflowError(err, 'STORE_VERSION') && err.details).toEqual({ found: 'stateflow-journal', supported: 5 });
    expect((err as Error).message).toContain('Open and close the store once with that build');
    expect(await byteDump(dir)).toEqual(before);
    // Not a regular file (a symlink to /dev/zero once hung the open): refused, not read.
    await rm(path.join(dir, 'stateflow-journal'));
    await symlink('/dev/zero', path.join(dir, 'stateflow-journal'));
    expect(await failureCode(openStore(dir))).toBe('STORE_VERSION');
    expect(await readlink(path.join(dir, 'stateflow-journal'))).toBe('/dev/zero');
    await rm(path.join(dir, 'stateflow-journal'));
    await writeFile(path.join(dir, 'stateflow-journal'), '');
    const store = await openStore(dir);
    await store.close();
    expect(await readdir(dir)).not.toContain('stateflow-journal');
  });

  it.each([
    ['deleted', (lock: string) => rm(lock)],
    ['deleted and touched again', async (lock: string) => {
      await rm(lock);
      await writeFile(lock, '');
    }],
    ['replaced by a symlink', async (lock: string) => {
      await rm(lock);
      await writeFile(`${lock}.elsewhere`, '');
      await symlink(`${lock}.elsewhere`, lock);
    }],
  ])('a LOCK %s while another process holds the store is STORE_LOCKED naming that process', async (_, replace) => {
    const built = path.resolve(here, '..', 'dist', 'index.js');
    if (!existsSync(built)) throw new Error(`${built} is missing: build first (npx tsc -b packages/store)`);
    const dir = await damaged(async () => undefined);
    const holder = spawn(process.execPath, [path.join(here, 'test-support', 'crash-child.mjs'), dir, 'hold'], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      await new Promise<void>((resolve, reject) => {
        holder.stdout.on('data', (d: Buffer) => (d.toString().includes('ready') ? resolve() : undefined));
        holder.on('exit', () => reject(new Error('holder exited early')));
      });
      await replace(path.join(dir, 'LOCK'));
      const before = await byteDump(dir);
      const err = await openStore(dir).then(
        async (store) => {
          await store.close();
          return null;
        },
        (e: unknown) => e,
      );
      expect(isStateflowError(err, 'STORE_LOCKED') && err.details).toEqual({ dir, pid: holder.pid });
      expect((err as Error).message).toContain('never delete LOCK');
      expect(await byteDump(dir)).toEqual(before);
    } finally {
      holder.kill('SIGKILL');
      await new Promise((resolve) => holder.once('exit', resolve));
    }
  });
});

describe('an emptied log and an unfinished creation (issue 37 P3)', () => {
  it('a log cut to 0 bytes is not a new empty store: STORE_CORRUPT, or NOT_FOUND without createIfMissing, and no byte changes', async () => {
    const dir = await damaged(async () => undefined);
    await truncate(path.join(dir, image.log), 0);
    expect(await refused(dir)).toMatchObject({ file: image.log, offset: 0, detail: expect.stringContaining('write-ahead log was emptied') });
    const before = await byteDump(dir);
    expect(await failureCode(openStore(dir, { createIfMissing: false }))).toBe('NOT_FOUND');
    expect(await byteDump(dir)).toEqual(before);
  });

  it('a creation cut short (its marker left, CURRENT not yet written) is no store: NOT_FOUND changes nothing, an open creates the store anew', async () => {
    const dir = await damaged(async () => undefined);
    for (const name of await readdir(dir)) if (name !== 'LOCK' && name !== 'LOG') await rm(path.join(dir, name));
    await writeFile(path.join(dir, 'MANIFEST-000001'), Buffer.alloc(41));
    await writeFile(path.join(dir, 'stateflow-creating'), '');
    const before = await byteDump(dir);
    expect(await failureCode(openStore(dir, { createIfMissing: false }))).toBe('NOT_FOUND');
    expect(await byteDump(dir)).toEqual(before);
    const store = await openStore(dir);
    try {
      expect(store.lastSeq()).toBe(0);
      expect((await store.publish({ changes: { a: { n: 1 } } })).transition?.seq).toBe(1);
    } finally {
      await store.close();
    }
    expect(await readdir(dir)).not.toContain('stateflow-creating');
    const again = await openStore(dir);
    expect(again.lastSeq()).toBe(1);
    await again.close();
  });
});
