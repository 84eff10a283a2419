/**
 * `recoverStore` (README "Fail closed": recovery runs only on request, on a copy, and names what
 * was lost): the damaged original is only read; the copy holds the intact prefix of the chain,
 * audits clean and takes new writes; the report names the lost seqs.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isStateflowError } from '@stateflow/core';
import { openStore } from './open-store.js';
import { recoverStore } from './recover-store.js';
import { collect, removeDir, tempDir } from '@stateflow/test-kit';
import { byteDump } from './test-support/files.js';
import { copyImage, crashImage, recordAt, type CrashImage } from './test-support/crash-image.js';

const cleanup: string[] = [];
afterAll(async () => {
  for (const dir of cleanup) await removeDir(dir);
});

/** A path inside a new temp directory (removed after the file) where a recovered copy goes. */
async function copyTarget(): Promise<string> {
  const dir = await tempDir('recovered');
  cleanup.push(dir);
  return path.join(dir, 'copy');
}

/** A copy of `image` with one byte of its log flipped at `fraction` of its length. */
async function flipped(image: CrashImage, fraction: number): Promise<{ dir: string; recordOffset: number }> {
  const dir = await copyImage(image);
  cleanup.push(dir);
  const file = path.join(dir, image.log);
  const bytes = await readFile(file);
  const at = Math.floor(bytes.length * fraction);
  bytes[at] = (bytes[at] as number) ^ 0x01;
  await writeFile(file, bytes);
  return { dir, recordOffset: recordAt(bytes, at) };
}

/** 40 fsync'd transitions over two streams; each ~`size` bytes. */
function history(size: number): Promise<CrashImage> {
  return crashImage(async (store) => {
    for (let i = 1; i <= 40; i++) {
      await store.publish({ changes: { [i % 2 === 0 ? 'global' : 'cwd:/w']: { [`k${i}`]: 'x'.repeat(size), n: i } }, id: `req-${i}` });
    }
  });
}

describe('recoverStore', () => {
  it('keeps the intact prefix, names every lost seq, and never changes the original (a one-block log)', async () => {
    const image = await history(300);
    cleanup.push(image.dir);
    const { dir, recordOffset } = await flipped(image, 1 / 3);
    const before = await byteDump(dir);
    const into = await copyTarget();
    const report = await recoverStore(dir, into);
    expect(await byteDump(dir)).toEqual(before);
    expect(report.damage).toEqual([expect.objectContaining({ file: image.log, offset: recordOffset })]);
    expect(report.lastSeqHeld).toBe(40);
    expect(report.tip).toBeGreaterThan(5);
    expect(report.lost).toEqual([[report.tip + 1, 40]]);
    expect(report.problems).toEqual([]);

    const store = await openStore(into);
    try {
      expect(store.lastSeq()).toBe(report.tip);
      expect((await collect(store.transitions())).map((t) => t.seq)).toEqual(Array.from({ length: report.tip }, (_, i) => i + 1));
      // The copy is a working store: its heads match its kept transitions, new writes continue the chain.
      const next = await store.publish({ changes: { global: { recovered: true } }, id: `req-${report.tip + 1}` });
      expect(next.status).toBe('accepted');
      expect(next.transition?.seq).toBe(report.tip + 1);
      expect((await store.audit()).problems).toEqual([]);
    } finally {
      await store.close();
    }
  });

  it('counts transitions that LevelDB still read after the damage as lost too (a multi-block log)', async () => {
    const image = await history(4_000);
    cleanup.push(image.dir);
    // Damage in the first block: LevelDB's recovery drops the rest of that block and reads the later ones.
    const { dir } = await flipped(image, 0.05);
    const report = await recoverStore(dir, await copyTarget());
    expect(report.lastSeqHeld).toBe(40);
    expect(report.lost).toEqual([[report.tip + 1, 40]]);
    expect(report.dropped).toBeGreaterThan(0);
    expect(report.problems).toEqual([]);
    const store = await openStore(report.into);
    expect(store.lastSeq()).toBe(report.tip);
    expect((await store.audit()).problems).toEqual([]);
    await store.close();
  });

  it('recovers an undamaged store whole', async () => {
    const image = await history(100);
    cleanup.push(image.dir);
    const report = await recoverStore(image.dir, await copyTarget());
    expect(report).toMatchObject({ damage: [], tip: 40, lastSeqHeld: 40, lost: [], dropped: 0, problems: [] });
  });

  it('refuses a target that is not empty or lies inside the store, and a store another process holds', async () => {
    const image = await history(10);
    cleanup.push(image.dir);
    const target = await copyTarget();
    await mkdir(target, { recursive: true });
    await writeFile(path.join(target, 'keep.txt'), 'mine');
    for (const into of [target, path.join(image.dir, 'inside')]) {
      const err = await recoverStore(image.dir, into).catch((e: unknown) => e);
      expect(isStateflowError(err, 'INPUT_INVALID') && err.details).toEqual({ field: 'into' });
    }
    expect(await readFile(path.join(target, 'keep.txt'), 'utf8')).toBe('mine');
    const held = await openStore(image.dir);
    try {
      const err = await recoverStore(image.dir, await copyTarget()).catch((e: unknown) => e);
      expect(isStateflowError(err, 'STORE_LOCKED')).toBe(true);
    } finally {
      await held.close();
    }
  });
});
