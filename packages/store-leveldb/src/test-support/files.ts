/**
 * A LevelDB directory's files, for tests that assert nothing changed them (byte for byte).
 */
import { createHash } from 'node:crypto';
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'vitest';
import { isStateflowError, type StateflowError } from '@stateflow/core';
import type { Store } from '@stateflow/store';

/** sha256 over every file of a directory (names and contents), except LevelDB's info logs. */
export async function hashDir(dir: string): Promise<string> {
  const hash = createHash('sha256');
  for (const name of (await readdir(dir)).sort()) {
    if (name === 'LOG' || name === 'LOG.old') continue;
    hash.update(name).update(await readFile(path.join(dir, name)));
  }
  return hash.digest('hex');
}

/**
 * A full byte dump of a directory: every file (LevelDB's info log and LOCK included) by name →
 * sha256 of its bytes. Two equal dumps mean the directory is byte for byte the same.
 */
export async function byteDump(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const name of (await readdir(dir)).sort()) out[name] = createHash('sha256').update(await readFile(path.join(dir, name))).digest('hex');
  return out;
}

/**
 * Run `open` on the store in `dir`, expecting `STORE_CORRUPT`; the directory must be byte for byte
 * unchanged (a store that opens is closed, and the test fails).
 */
export async function refusedCorrupt(dir: string, open: () => Promise<Store>): Promise<StateflowError<'STORE_CORRUPT'>> {
  const before = await byteDump(dir);
  const err = await open().then(
    async (store) => {
      await store.close();
      return null;
    },
    (e: unknown) => e,
  );
  expect(await byteDump(dir)).toEqual(before);
  if (!isStateflowError(err, 'STORE_CORRUPT')) throw new Error(`expected STORE_CORRUPT, got ${String(err)}`);
  return err;
}
