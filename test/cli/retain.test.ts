/**
 * `stateflow retain` and `audit --archive` end to end through the BUILT bin on a LevelDB store in
 * a temp directory (store README "Retention"): policies set, listed and removed; a dry run that
 * changes no byte of the store's files; a run with an archive; the archive audited clean, then
 * found changed (exit 5); bad arguments exit 2 and write nothing.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openArchive } from '@stateflow/store';
import { openStore } from '@stateflow/store-leveldb';
import { expectOk, json, jsonError, removeDir, stateflow, tempDir } from './helpers.js';

let root: string;

beforeAll(async () => {
  root = await tempDir();
});

afterAll(async () => {
  await removeDir(root);
});

/**
 * The data of a LevelDB directory: each table file (`.ldb`) with its bytes, and the bytes of its
 * write-ahead logs (`.log`) together. An open rotates the log and writes a new MANIFEST, so their
 * names and the MANIFEST change with no data written; a write would land in the log.
 */
async function files(dir: string): Promise<{ tables: Record<string, string>; logs: string }> {
  const tables: Record<string, string> = {};
  let logs = '';
  for (const name of (await readdir(dir)).sort()) {
    if (name.endsWith('.ldb')) tables[name] = (await readFile(path.join(dir, name))).toString('hex');
    if (name.endsWith('.log')) logs += (await readFile(path.join(dir, name))).toString('hex');
  }
  return { tables, logs };
}

describe('stateflow retain', () => {
  it('sets, lists and removes policies; a dry run changes no byte; a run archives what it removes, and audit --archive verifies it', async () => {
    const dir = path.join(root, 'store');
    const store = await openStore(dir, { checkpointInterval: 4 });
    for (let n = 1; n <= 12; n++) await store.publish({ changes: { 'session:a': { n }, 'cwd:/r': { n } } });
    await store.close();
    const sf = (args: string[]) => stateflow(['--dir', dir, ...args]);
    expect(expectOk(await sf(['retain', 'set', 'session:*', '--max-revisions', '3', '--max-age', '7d'])).stdout).toMatch(/^retention session:\*: max-age 7d, max-revisions 3: /);
    expectOk(await sf(['retain', 'set', 'langgraph:*', '--idle', '30d', '--max-bytes', '1MB']));
    expect(json(expectOk(await sf(['--json', 'retain', 'list'])))).toEqual({
      policies: [
        { pattern: 'langgraph:*', maxBytes: 1024 ** 2, idleMs: 30 * 86_400_000 },
        { pattern: 'session:*', maxAgeMs: 7 * 86_400_000, maxRevisions: 3 },
      ],
    });
    expectOk(await sf(['retain', 'rm', 'langgraph:*']));
    expect(expectOk(await sf(['retain', 'list'])).stdout).toBe('PATTERN    POLICY\nsession:*  max-age 7d, max-revisions 3\n');

    const before = await files(dir);
    const dry = json(expectOk(await sf(['--json', 'retain', 'run', '--dry-run']))) as { total: unknown; streams: unknown[] };
    expect(await files(dir)).toEqual(before);
    expect(dry.total).toEqual({ streams: 1, revisions: 10, bytes: 7 * 9 + 8 });
    expect(dry.streams).toEqual([{ stream: 'session:a', family: 'session:*', rev: 12, fromOrigin: 0, origin: 10, revisions: 10, bytes: 7 * 9 + 8, expired: false }]);

    const archive = path.join(root, 'run-1.jsonl');
    const run = expectOk(await sf(['retain', 'run', '--archive', archive]));
    expect(run.stdout).toMatch(/^removed 10 revisions of 1 stream\n/);
    expect(run.stdout).toMatch(/archived 10 transitions to run-1\.jsonl \(sha256 [0-9a-f]{64}\)\n$/);
    expect((await openArchive(archive)).stateAt('session:a', 5)).toEqual({ n: 5 });
    expect(expectOk(await sf(['audit'])).stdout).toMatch(/: clean\n$/);
    expect(expectOk(await sf(['audit', '--archive', archive])).stdout).toBe('archive run-1.jsonl: 10 transitions, 1 stream: clean\n');
    await writeFile(archive, (await readFile(archive, 'utf8')).replace('"n":5', '"n":6'));
    const changed = await sf(['audit', '--archive', archive]);
    expect(changed.code).toBe(5);
    expect(changed.stdout).toMatch(/DIGEST_MISMATCH/);
    const reopened = await openStore(dir);
    expect(await reopened.head('session:a')).toMatchObject({ rev: 12, origin: 10 });
    expect(await reopened.state('session:a')).toEqual({ n: 12 });
    await reopened.close();
  });

  it('refuses bad arguments with exit 2, writing nothing', async () => {
    const dir = path.join(root, 'bad');
    const store = await openStore(dir);
    await store.publish({ changes: { 'session:a': { n: 1 } } });
    await store.close();
    const sf = (args: string[]) => stateflow(['--dir', dir, ...args]);
    expect((await sf(['retain', 'set', 'session:*'])).code).toBe(2);
    expect((await sf(['retain', 'set', 'session:*', '--max-bytes', '10XB'])).code).toBe(2);
    expect(jsonError(await sf(['--json', 'retain', 'set', 'a**', '--max-revisions', '2']), 2)).toMatchObject({ code: 'RETENTION_INVALID', details: { pattern: 'a**', reason: 'pattern' } });
    expect(json(expectOk(await sf(['--json', 'retain', 'list'])))).toEqual({ policies: [] });
  });
});
