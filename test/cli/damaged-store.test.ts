/**
 * A damaged store from the command line (store README "Fail closed"): 40 fsync'd transitions are
 * published and the writer is killed (SIGKILL, so they are all still in LevelDB's write-ahead
 * log); then one byte at a third of the log is flipped. `stateflow audit`, `read`, `log` and
 * `export` fail with STORE_CORRUPT naming the log and the byte offset (exit 5) and leave every
 * byte of the directory as it was; `stateflow recover --into NEWDIR` copies the store, recovers
 * the copy and names the lost transitions, without touching the original. Also: an import of a
 * document nested 100,000 levels deep is a typed usage error (exit 2), not a stack overflow.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cp, readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, json, jsonLines, removeDir, startServe, stateflow, stopServe, tempDir } from './helpers.js';

let base: string;
let store: string;

/** Every file of `dir` (info log and LOCK included) → sha256. */
async function bytes(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const name of (await readdir(dir)).sort()) out[name] = createHash('sha256').update(await readFile(path.join(dir, name))).digest('hex');
  return out;
}

/**
 * Publish 40 transitions (fsync'd unless told otherwise) in a child process, then SIGKILL it.
 * `boot`: the boot id the child reports (`STATEFLOW_BOOT_ID`): another than this process's
 * makes the store look written before a reboot.
 */
async function writeAndKill(dir: string, options: { durability?: 'fsync' | 'buffered'; boot?: string } = {}): Promise<void> {
  const script = `
    import { openStore } from '@stateflow/store-leveldb';
    const store = await openStore(${JSON.stringify(dir)}, { durability: '${options.durability ?? 'fsync'}' });
    for (let i = 1; i <= 40; i++) await store.publish({ changes: { global: { ['k' + i]: 'v'.repeat(400), n: i } } });
    process.stdout.write('done\\n');
    setInterval(() => {}, 1000);
  `;
  const env = options.boot === undefined ? process.env : { ...process.env, STATEFLOW_BOOT_ID: options.boot };
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { cwd: path.join(REPO_ROOT, 'test'), env, stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => (d.toString().includes('done') ? resolve() : undefined));
    child.on('exit', (code) => reject(new Error(`writer exited early (${String(code)})`)));
  });
  child.kill('SIGKILL');
  await new Promise((resolve) => child.once('exit', resolve));
}

beforeAll(async () => {
  base = await tempDir();
  store = path.join(base, 'store');
  await writeAndKill(store);
  const log = (await readdir(store)).find((name) => name.endsWith('.log')) as string;
  const content = await readFile(path.join(store, log));
  content[Math.floor(content.length / 3)] ^= 0x04;
  await writeFile(path.join(store, log), content);
});

afterAll(async () => {
  await removeDir(base);
});

describe('a store whose write-ahead log is damaged', () => {
  it.each([['audit'], ['read', 'global'], ['log'], ['export']])('stateflow %s fails with STORE_CORRUPT (exit 5) and changes no byte', async (...args) => {
    const before = await bytes(store);
    const result = await stateflow(['--dir', store, ...args]);
    expect(result.code).toBe(5);
    expect(result.stderr).toMatch(/\d{6}\.log at byte \d+: write-ahead log damaged \(checksum mismatch\)/);
    expect(result.stderr).toContain('STORE_CORRUPT');
    expect(result.stderr).toContain(`stateflow recover --dir ${store} --into NEWDIR`);
    expect(await bytes(store)).toEqual(before);
  });

  it('stateflow recover --into copies it, recovers the copy, names the lost transitions, and leaves the original alone', async () => {
    const before = await bytes(store);
    const into = path.join(base, 'recovered');
    const result = await stateflow(['--dir', store, '--json', 'recover', '--into', into]);
    expect(result.code, result.stderr).toBe(0);
    const report = json(result) as { tip: number; lastSeqHeld: number; lost: number[][]; problems: unknown[] };
    expect(report.lastSeqHeld).toBe(40);
    expect(report.lost).toEqual([[report.tip + 1, 40]]);
    expect(report.problems).toEqual([]);
    expect(await bytes(store)).toEqual(before);

    const text = await stateflow(['--dir', store, 'recover', '--into', path.join(base, 'again')]);
    // "(25 transitions)", or "(25 transitions; N of them still readable but after a lost one, …)"
    // when later WAL blocks survived: where the flipped byte lands depends on the records' sizes.
    expect(text.stdout).toContain(`lost: transitions ${report.tip + 1}–40 (${40 - report.tip} transitions`);
    expect(text.stdout).toContain('audit of the copy: clean');

    const audit = await stateflow(['--dir', into, 'audit']);
    expect(audit.code).toBe(0);
    expect(audit.stdout).toContain(`audited ${report.tip} transitions`);
  });
});

describe('a store whose unsynced log tail a power loss left as zeros', () => {
  it('opens in stateflow log and stateflow serve, which say after which seq buffered transitions may be lost (the zeros name none); once', async () => {
    const dir = path.join(base, 'power-loss');
    await writeAndKill(dir, { durability: 'buffered', boot: 'a-boot-before-the-power-loss' });
    const log = (await readdir(dir)).find((name) => name.endsWith('.log')) as string;
    const content = await readFile(path.join(dir, log));
    // The file was extended but its last page never written: what an OS crash leaves.
    await writeFile(path.join(dir, log), Buffer.concat([content, Buffer.alloc(4_096)]));
    const copy = path.join(base, 'power-loss-serve');
    await cp(dir, copy, { recursive: true });

    const first = await stateflow(['--dir', dir, 'log', '--json']);
    expect(first.code, first.stderr).toBe(0);
    expect(jsonLines(first.stdout)).toHaveLength(40);
    expect(first.stderr).toMatch(/^stateflow: warning: The store was not closed before an OS crash or power loss.*no transition in the dropped bytes verifies; transitions after seq 40 acknowledged with buffered durability, if there were any, are lost.*stateflow-dropped.*\[BUFFERED_TRANSITIONS_LOST\]\n$/s);
    const again = await stateflow(['--dir', dir, 'log', '--json']);
    expect(again.stderr).toBe('');

    const { child, stderr } = await startServe(['--dir', copy, 'serve', '--port', '0'], {});
    await stopServe(child);
    expect(stderr).toContain('transitions after seq 40 acknowledged with buffered durability, if there were any, are lost');
    expect(stderr).toContain('[BUFFERED_TRANSITIONS_LOST]');
  });
});

describe('import of a document nested 100,000 levels deep', () => {
  it('is INPUT_INVALID too-deep (exit 2) and publishes nothing', async () => {
    const file = path.join(base, 'deep.jsonl');
    await writeFile(file, `{"rev":1,"doc":${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}}\n`);
    const dir = path.join(base, 'deep-store');
    const result = await stateflow(['--dir', dir, '--json', 'import', file, '--stream', 'global', '--at', 'lazy.doc']);
    expect(result.code, result.stderr).toBe(2);
    const error = (json(result) as { error: { code: string; details: { reason: string } } }).error;
    expect(error.code).toBe('INPUT_INVALID');
    expect(error.details.reason).toBe('too-deep');
    const log = await stateflow(['--dir', dir, '--json', 'log']);
    expect(log.stdout.trim() === '' || (json(log) as unknown[]).length === 0).toBe(true);
  });
});
