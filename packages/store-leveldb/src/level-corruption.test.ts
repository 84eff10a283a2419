/**
 * LevelDB's own corruption errors (`LEVEL_CORRUPTION`, "Corruption: …") surface as
 * STORE_CORRUPT with the Level error as `cause`, never as STORE_IO. Disk only: memory-level has
 * no files to damage and never reports corruption.
 */
import { readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ClassicLevel } from 'classic-level';
import { openStore } from './open-store.js';
import { rejectionOf, removeDir, tempDir } from '@stateflow/test-kit';

/** XOR `length` bytes of `file` from `offset` (all of the rest when `length` is omitted). */
async function damage(file: string, offset: number, length?: number): Promise<void> {
  const bytes = await readFile(file);
  const end = length === undefined ? bytes.length : Math.min(bytes.length, offset + length);
  for (let i = offset; i < end; i++) bytes[i] = (bytes[i] as number) ^ 0x5a;
  await writeFile(file, bytes);
}

describe('LevelDB corruption on classic-level', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await tempDir('level-corrupt');
    const store = await openStore(dir, { checkpointInterval: 4 });
    // Compressible values, so LevelDB stores snappy-compressed blocks and damage is detected
    // by decompression rather than read as different keys.
    for (let i = 0; i < 60; i++) await store.publish({ changes: { global: { [`k${i % 7}`]: 'x'.repeat(200) + i } } });
    await store.close();
    // One raw open folds the write-ahead log into a table file.
    const db = new ClassicLevel(dir);
    await db.open();
    await db.close();
    expect((await readdir(dir)).some((f) => f.endsWith('.ldb'))).toBe(true);
  });
  afterEach(async () => {
    await removeDir(dir);
  });

  it('a damaged MANIFEST fails the open with STORE_CORRUPT (cause LEVEL_DATABASE_NOT_OPEN ← LEVEL_CORRUPTION)', async () => {
    const manifest = (await readdir(dir)).find((f) => f.startsWith('MANIFEST-')) as string;
    await damage(path.join(dir, manifest), 10);
    const err = await rejectionOf(openStore(dir));
    expect(err.code).toBe('STORE_CORRUPT');
    expect(err.details).toEqual({ detail: expect.stringMatching(/^LevelDB reports corruption: Corruption: /) });
    expect((err.cause as { cause?: { code?: string } }).cause?.code).toBe('LEVEL_CORRUPTION');
  });

  it('a damaged table block fails reads with STORE_CORRUPT (cause LEVEL_CORRUPTION)', async () => {
    const table = (await readdir(dir)).find((f) => f.endsWith('.ldb')) as string;
    await damage(path.join(dir, table), 100, 30);
    // The first block holds the lowest keys (checkpoints, family `C`): opening reads the format
    // record and heads only; a full audit iterates every block.
    const store = await openStore(dir);
    try {
      const err = await rejectionOf(store.audit());
      expect(err.code).toBe('STORE_CORRUPT');
      expect((err.cause as { code?: string }).code).toBe('LEVEL_CORRUPTION');
      expect(err.message).toContain('Corruption:');
    } finally {
      await store.close();
    }
  });
});
