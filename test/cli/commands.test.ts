/**
 * Every `stateflow` command end to end through the BUILT bin, on a LevelDB store in a temp
 * directory: results, `--json` output, error lines and exit codes (usage 2, not found 3,
 * conflict 4, corrupt 5).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyPatch, type JsonObject } from '@stateflow/core';
import { runCli, type CliIo } from '@stateflow/cli';
import { expectOk, json, jsonError, jsonLines, removeDir, REPO_ROOT, stateflow, tempDir, type RunResult } from './helpers.js';

let root: string;
let dir: string;
let proj: string;
let cwdStream: string;

/** `stateflow --dir <dir> ...args`. */
function sf(args: string[], input?: string): Promise<RunResult> {
  return stateflow(['--dir', dir, ...args], input === undefined ? {} : { input });
}

beforeAll(async () => {
  root = await tempDir();
  dir = path.join(root, 'store');
  proj = path.join(root, 'proj');
  cwdStream = `cwd:${proj}`;
});

afterAll(async () => {
  await removeDir(root);
});

describe('stateflow without a store', () => {
  it('prints help and version with exit 0', async () => {
    const help = expectOk(await stateflow(['--help']));
    for (const command of ['patch', 'read', 'baseline', 'log', 'show', 'diff', 'revert', 'fork', 'compact', 'audit', 'import', 'import-git', 'export', 'replay']) {
      expect(help.stdout).toContain(command);
    }
    expect(expectOk(await stateflow(['--version'])).stdout.trim()).toBe('0.1.0');
  });

  it('without a command prints the help of the program or of `ladder`, nothing else, with exit 2', async () => {
    for (const [args, usage] of [[[], 'Usage: stateflow [options] [command]'], [['ladder'], 'Usage: stateflow ladder [options] [command]']] as const) {
      const result = await stateflow([...args]);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr.split('\n')[0]).toBe(usage);
      expect(result.stderr).not.toContain('outputHelp');
      expect(result.stderr).not.toContain('[USAGE]');
    }
  });

  it('rejects an unknown command with one stderr line and exit 2', async () => {
    const result = await stateflow(['frobnicate']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/^stateflow: unknown command 'frobnicate'.*\[USAGE\]$/m);
  });

  it('fails reads on a missing store with NOT_FOUND (exit 3), as JSON under --json', async () => {
    const missing = path.join(root, 'nowhere');
    const human = await stateflow(['--dir', missing, 'log']);
    expect(human.code).toBe(3);
    expect(human.stderr).toContain(`No store at ${missing}`);
    const error = jsonError(await stateflow(['--dir', missing, '--json', 'read', 'cwd.lazy']), 3);
    expect(error.code).toBe('NOT_FOUND');
    expect(error.message).toContain('--dir');
  });

  it('runs in-process through runCli with injected streams', async () => {
    let out = '';
    let err = '';
    const io: CliIo = {
      stdout: { write: (s: string) => (out += s) },
      stderr: { write: (s: string) => (err += s) },
      stdin: process.stdin,
      env: {},
      cwd: root,
    };
    expect(await runCli(['--version'], io)).toBe(0);
    expect(out.trim()).toBe('0.1.0');
    // A word is a tag (store README "Tags"); a fraction is neither a seq nor a tag.
    expect(await runCli(['show', '1.5'], io)).toBe(2);
    expect(err).toMatch(/^stateflow: .*'1.5' is invalid for argument 'seq'.*\[USAGE\]\n$/);
  });
});

describe('stateflow on one store', () => {
  const seqHashes: string[] = [];

  it('patch: two scopes in one transition, inline', async () => {
    const patch = {
      global: { strategy: { style: 'small commits' } },
      cwd: { tactics: { next: 'write tests' }, lazy: { memory: ['first thought', 'second thought'] } },
    };
    const result = expectOk(await sf(['--global', '--cwd', proj, '--json', 'patch', JSON.stringify(patch)]));
    expect(json(result)).toEqual({
      state_updates: {
        effective: [
          { path: 'strategy.style', value: 'small commits' },
          { path: 'tactics.next', value: 'write tests' },
        ],
        selectors: { global: 'global[1]', cwd: 'cwd[1]' },
      },
    });
    // Read back: both scopes hold what was written, published as one transition.
    expect(json(expectOk(await sf(['--global', '--cwd', proj, '--json', 'read', 'global.strategy', 'cwd.tactics', 'cwd.lazy.memory'])))).toEqual({
      value: [{ style: 'small commits' }, { next: 'write tests' }, ['first thought', 'second thought']],
    });
    const log = jsonLines(expectOk(await sf(['--json', 'log'])).stdout) as Array<{ seq: number; changes: Array<{ stream: string; rev: number; patch: unknown }> }>;
    expect(log.map((t) => [t.seq, t.changes.map((c) => [c.stream, c.rev, c.patch])])).toEqual([
      [1, [['global', 1, patch.global], [cwdStream, 1, patch.cwd]]],
    ]);
  });

  it('patch: from @file and from stdin (-)', async () => {
    const file = path.join(root, 'patch.json');
    await writeFile(file, JSON.stringify({ lazy: { memory: { '[1]': 'corrected thought' } } }));
    expectOk(await sf(['--cwd', proj, 'patch', `@${file}`]));
    expectOk(await sf(['--cwd', proj, 'patch', '-'], JSON.stringify({ tactics: { next: 'ship' } })));
  });

  it('patch: bad JSON and invalid patches exit 2 and publish nothing', async () => {
    const badJson = jsonError(await sf(['--cwd', proj, '--json', 'patch', '{nope']), 2);
    expect(badJson.code).toBe('USAGE');
    expect(badJson.message).toContain('not valid JSON');
    const empty = jsonError(await sf(['--cwd', proj, '--json', 'patch', '{}']), 2);
    expect(['PATCH_INVALID', 'INPUT_INVALID']).toContain(empty.code);
    const badIndex = jsonError(await sf(['--cwd', proj, '--json', 'patch', '{"lazy":{"memory":{"[7]":"x"}}}']), 2);
    expect(badIndex.code).toBe('PATCH_INVALID');
    const missingFile = jsonError(await sf(['--cwd', proj, '--json', 'patch', `@${path.join(root, 'absent.json')}`]), 3);
    expect(missingFile.code).toBe('NOT_FOUND');
    expect(jsonLines(expectOk(await sf(['--json', 'log'])).stdout)).toHaveLength(3);
  });

  it('read: each projection prints exactly the read_state response', async () => {
    expect(json(expectOk(await sf(['--cwd', proj, '--json', 'read', 'cwd[1].lazy.memory'])))).toEqual({
      value: ['first thought', 'second thought'],
    });
    expect(json(expectOk(await sf(['--cwd', proj, '--json', 'read', 'cwd[1].lazy', '--projection', 'keys'])))).toEqual({
      meta: { type: 'object', size: 1 },
      keys: { memory: 'array' },
    });
    expect(json(expectOk(await sf(['--cwd', proj, '--json', 'read', 'cwd[2].lazy.memory', '--projection', 'patch'])))).toEqual({
      patch: { '[1]': 'corrected thought' },
    });
    // Human output is the same JSON, indented.
    const human = expectOk(await sf(['--cwd', proj, 'read', 'cwd.tactics']));
    expect(human.stdout).toBe(`${JSON.stringify({ value: { next: 'ship' } }, null, 2)}\n`);
  });

  it('read: several paths are one batch; flat paths bind to the sole owner', async () => {
    expect(json(expectOk(await sf(['--cwd', proj, '--json', 'read', 'cwd.tactics.next', 'cwd[1].tactics.next'])))).toEqual({
      value: ['ship', 'write tests'],
    });
    expect(json(expectOk(await sf(['--cwd', proj, '--json', 'read', 'lazy.memory[1]'])))).toEqual({ value: 'corrected thought' });
  });

  it('read: bad path exit 2, missing path exit 3, unselected owner exit 2', async () => {
    const syntax = jsonError(await sf(['--cwd', proj, '--json', 'read', 'cwd.lazy.*']), 2);
    expect(syntax.code).toBe('PATH_SYNTAX');
    expect(syntax.details).toMatchObject({ path: 'cwd.lazy.*', column: 10 });
    const human = await sf(['--cwd', proj, 'read', 'cwd.lazy.*']);
    expect(human.code).toBe(2);
    expect(human.stderr.trim().split('\n')).toHaveLength(1);
    expect(jsonError(await sf(['--cwd', proj, '--json', 'read', 'cwd.lazy.nothing']), 3).code).toBe('PATH_NOT_FOUND');
    expect(jsonError(await sf(['--cwd', proj, '--json', 'read', 'global.strategy']), 2).code).toBe('OWNER_NOT_SELECTED');
    expect(jsonError(await sf(['--cwd', proj, '--json', 'read', 'cwd.lazy', '--projection', 'all']), 2).code).toBe('USAGE');
  });

  it('baseline: hot effective state without lazy bodies', async () => {
    const result = expectOk(await sf(['--global', '--cwd', proj, '--json', 'baseline']));
    const text = result.stdout;
    expect(text).toContain('small commits');
    expect(text).toContain('ship');
    expect(text).not.toContain('corrected thought');
    expect(json(result)).toMatchObject({
      state: { strategy: { style: 'small commits' }, tactics: { next: 'ship' } },
      lazy_navigation: { available: true, path: 'effective.lazy', keys: { memory: 'array' } },
    });
  });

  it('log: a table, JSON Lines under --json, and --stream/--from/--to/--limit', async () => {
    const table = expectOk(await sf(['log'])).stdout.split('\n');
    expect(table[0]).toMatch(/^SEQ\s+TIME\s+WRITER\s+STREAM\s+REV\s+PATCH$/);
    expect(table[1]).toMatch(/^1\s+\d{4}-\d\d-\d\dT\S+\s+local cli stateflow\/\S+\s+global\s+1\s+\{"strategy":\{"style":"small commits"\}\}$/);
    expect(table[2]).toMatch(new RegExp(`^\\s+${cwdStream.replace(/[/.]/g, '\\$&')}\\s+1\\s+\\{`));
    const all = jsonLines(expectOk(await sf(['--json', 'log'])).stdout) as { seq: number; hash: string }[];
    expect(all.map((t) => t.seq)).toEqual([1, 2, 3]);
    seqHashes.push(...all.map((t) => t.hash));
    const seqs = async (args: string[]) =>
      (jsonLines(expectOk(await sf(['--json', 'log', ...args])).stdout) as { seq: number }[]).map((t) => t.seq);
    expect(await seqs(['--stream', 'global'])).toEqual([1]);
    expect(await seqs(['--from', '2', '--to', '3'])).toEqual([2, 3]);
    expect(await seqs(['--limit', '2'])).toEqual([1, 2]);
    expect(jsonError(await sf(['--json', 'log', '--limit', '0']), 2).code).toBe('USAGE');
  });

  it('show: one transition with its hashes; unknown seq exit 3; bad seq exit 2', async () => {
    const shown = json(expectOk(await sf(['--json', 'show', '2']))) as JsonObject;
    expect(shown).toMatchObject({
      seq: 2,
      changes: [{ stream: cwdStream, rev: 2, patch: { lazy: { memory: { '[1]': 'corrected thought' } } } }],
      prevHash: seqHashes[0],
      hash: seqHashes[1],
    });
    expect(jsonError(await sf(['--json', 'show', '99']), 3).code).toBe('TRANSITION_NOT_FOUND');
    expect(jsonError(await sf(['--json', 'show', '2.5']), 2).code).toBe('USAGE');
    expect(jsonError(await sf(['--json', 'show', 'two']), 3).code).toBe('TAG_NOT_FOUND');
  });

  it('diff: the patch from one revision to another', async () => {
    const patch = json(expectOk(await sf(['--json', 'diff', cwdStream, '1', '3']))) as JsonObject;
    const rev1 = { tactics: { next: 'write tests' }, lazy: { memory: ['first thought', 'second thought'] } };
    expect(applyPatch(rev1, patch)).toEqual({ tactics: { next: 'ship' }, lazy: { memory: ['first thought', 'corrected thought'] } });
    expect(jsonError(await sf(['--json', 'diff', cwdStream, '1', '9']), 3).code).toBe('REVISION_NOT_FOUND');
  });

  it('revert: restores an old revision as a new transition', async () => {
    const human = expectOk(await sf(['revert', cwdStream, '1']));
    expect(human.stdout).toBe(`reverted ${cwdStream} to rev 1: seq 4: ${cwdStream} rev 4\n`);
    expect(json(expectOk(await sf(['--cwd', proj, '--json', 'read', 'cwd.lazy.memory', 'cwd.tactics.next'])))).toEqual({
      value: [['first thought', 'second thought'], 'write tests'],
    });
  });

  it('fork: a new stream from an old revision', async () => {
    const result = json(expectOk(await sf(['--json', 'fork', cwdStream, 'session:s1', '--at', '2']))) as {
      status: string;
      transition: { seq: number };
    };
    expect(result.status).toBe('accepted');
    expect(result.transition.seq).toBe(5);
    expect(json(expectOk(await sf(['--session', 's1', '--json', 'read', 'session.lazy.memory[1]'])))).toEqual({
      value: 'corrected thought',
    });
  });

  it('audit: clean store exits 0 with a summary', async () => {
    const human = expectOk(await sf(['audit']));
    expect(human.stdout).toMatch(/^audited 5 transitions, 3 streams, \d+ checkpoints?: clean\n$/);
    expect(json(expectOk(await sf(['--json', 'audit'])))).toMatchObject({ transitions: 5, streams: 3, problems: [] });
  });

  it('export and replay: same hashes and states in a new directory', async () => {
    const exported = expectOk(await sf(['export'])).stdout;
    const transitions = jsonLines(exported) as { seq: number; hash: string }[];
    expect(transitions.map((t) => t.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(transitions.every((t) => /^[0-9a-f]{64}$/.test(t.hash))).toBe(true);
    expect(jsonLines(expectOk(await sf(['export', '--stream', 'global'])).stdout)).toHaveLength(1);
    const file = path.join(root, 'export.jsonl');
    await writeFile(file, exported);
    const copy = path.join(root, 'copy');
    const replayed = json(expectOk(await stateflow(['--dir', copy, '--json', 'replay', file]))) as JsonObject;
    expect(replayed).toMatchObject({ transitions: 5, lastSeq: 5, hash: transitions[4]?.hash, problems: 0 });
    expect(expectOk(await stateflow(['--dir', copy, 'export'])).stdout).toBe(exported);
    expect(expectOk(await stateflow(['--dir', copy, '--session', 's1', 'read', 'session.lazy'])).stdout).toBe(
      expectOk(await sf(['--session', 's1', 'read', 'session.lazy'])).stdout,
    );
  });

  it('replay: refuses a non-empty directory (2) and a tampered export (5)', async () => {
    const file = path.join(root, 'export.jsonl');
    expect(jsonError(await stateflow(['--dir', dir, '--json', 'replay', file]), 2).code).toBe('USAGE');
    const lines = (await readFile(file, 'utf8')).trim().split('\n');
    const second = JSON.parse(lines[1] ?? '') as { changes: { patch: JsonObject }[] };
    second.changes[0] = { ...second.changes[0], patch: { lazy: { memory: { '[1]': 'forged thought' } } } } as never;
    lines[1] = JSON.stringify(second);
    const tampered = path.join(root, 'tampered.jsonl');
    await writeFile(tampered, `${lines.join('\n')}\n`);
    const error = jsonError(await stateflow(['--dir', path.join(root, 'forged'), '--json', 'replay', tampered]), 5);
    expect(error.code).toBe('STORE_CORRUPT');
    expect(error.message).toMatch(/^Line 2 of /);
    const notExport = path.join(root, 'not-export.jsonl');
    await writeFile(notExport, '{"rev":1}\n');
    expect(jsonError(await stateflow(['--dir', path.join(root, 'forged2'), '--json', 'replay', notExport]), 2).code).toBe('INPUT_INVALID');
  });

  it('compact: history below the new origin is gone (exit 3)', async () => {
    const result = json(expectOk(await sf(['--json', 'compact', cwdStream, '--keep', '1']))) as { origin: number };
    expect(result.origin).toBe(4);
    expect(jsonError(await sf(['--cwd', proj, '--json', 'read', 'cwd[1].lazy.memory']), 3).code).toBe('HISTORY_NOT_RETAINED');
    expect(json(expectOk(await sf(['--cwd', proj, '--json', 'read', 'cwd[4].tactics.next'])))).toEqual({ value: 'write tests' });
    expect(jsonError(await sf(['--json', 'compact', cwdStream]), 2).code).toBe('USAGE');
    expect(expectOk(await sf(['audit'])).stdout).toMatch(/: clean\n$/);
  });

  it('replay: an export of a compacted store is refused with a hint (exit 2)', async () => {
    const exported = expectOk(await sf(['export'])).stdout;
    expect((jsonLines(exported) as { seq: number }[]).map((t) => t.seq)).toEqual([1, 5]);
    const file = path.join(root, 'compacted.jsonl');
    await writeFile(file, exported);
    const error = jsonError(await stateflow(['--dir', path.join(root, 'from-compacted'), '--json', 'replay', file]), 2);
    expect(error.code).toBe('INPUT_INVALID');
    expect(error.message).toContain('replay needs a full export');
  });

  it('uses $STATEFLOW_DIR when --dir is absent', async () => {
    const result = await stateflow(['--json', 'log', '--limit', '1'], { env: { STATEFLOW_DIR: dir } });
    expect((jsonLines(expectOk(result).stdout)[0] as { seq: number }).seq).toBe(1);
  });

  it('a store held by another process fails with STORE_LOCKED (exit 4)', async () => {
    const holder = await holdStore(dir);
    try {
      const error = jsonError(await sf(['--json', 'log']), 4);
      expect(error.code).toBe('STORE_LOCKED');
    } finally {
      holder.kill('SIGTERM');
    }
  });
});

/** Start a child process that opens the store at `storeDir` and keeps it open until killed. */
async function holdStore(storeDir: string): Promise<ChildProcess> {
  await mkdir(storeDir, { recursive: true });
  const script = `const { openStore } = await import('@stateflow/store-leveldb'); await openStore(${JSON.stringify(storeDir)}); console.log('open'); setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { cwd: path.join(REPO_ROOT, 'test'), stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.stdout?.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`store holder exited with ${code}`)));
  });
  return child;
}
