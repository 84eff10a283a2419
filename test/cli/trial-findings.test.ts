/**
 * What a new-user trial and an adversarial tester found, end to end through the BUILT bin on
 * LevelDB stores in temp directories: failed replays change no byte, reads never create a store,
 * import follows the owner and plane rules and refuses to continue a stream by accident, a lost
 * log record fails export closed, file system mistakes and read-only stores get actionable
 * messages, unknown streams are named as such, and `patch` says what it published.
 */
import { spawnSync } from 'node:child_process';
import { chmod, mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClassicLevel } from 'classic-level';
import { BIN, expectOk, json, jsonError, jsonLines, removeDir, runProcess, stateflow, tempDir } from './helpers.js';

let root: string;

beforeAll(async () => {
  root = await tempDir();
});

afterAll(async () => {
  await chmod(root, 0o700).catch(() => undefined);
  await removeDir(root);
});

/** A store at `dir` with `n` transitions, each changing `lazy.n` of the cwd owner `/p`. */
async function storeWith(dir: string, n: number): Promise<void> {
  for (let i = 1; i <= n; i++) expectOk(await stateflow(['--dir', dir, '--cwd', '/p', 'patch', JSON.stringify({ lazy: { n: i } })]));
}

/** Every entry under `dir`, recursively, as sorted relative paths. */
async function tree(dir: string): Promise<string[]> {
  return ((await readdir(dir, { recursive: true })) as string[]).sort();
}

describe('replay changes no byte when it fails', () => {
  let exported: string;
  let tampered: string;

  beforeAll(async () => {
    const source = path.join(root, 'replay-source');
    await storeWith(source, 3);
    exported = path.join(root, 'replay-export.jsonl');
    await writeFile(exported, expectOk(await stateflow(['--dir', source, 'export'])).stdout);
    const lines = (await readFile(exported, 'utf8')).trim().split('\n');
    expect(lines).toHaveLength(3);
    lines[1] = lines[1]?.replace('"n":2', '"n":22') ?? '';
    tampered = path.join(root, 'replay-tampered.jsonl');
    await writeFile(tampered, `${lines.join('\n')}\n`);
  });

  it('leaves an absent --dir absent (and no staging directory or created parent behind)', async () => {
    const parent = path.join(root, 'replay-absent');
    await mkdir(parent);
    const target = path.join(parent, 'deeper', 'copy');
    const error = jsonError(await stateflow(['--dir', target, '--json', 'replay', tampered]), 5);
    expect(error.code).toBe('STORE_CORRUPT');
    expect(error.message).toMatch(/^Line 2 of /);
    expect(await readdir(parent)).toEqual([]);
  });

  it('leaves an empty --dir empty, then replays into it once the export is intact', async () => {
    const target = path.join(root, 'replay-empty');
    await mkdir(target);
    expect((await stateflow(['--dir', target, 'replay', tampered])).code).toBe(5);
    expect(await readdir(target)).toEqual([]);
    expect(await readdir(root)).not.toContainEqual(expect.stringContaining('.building-'));
    const report = json(expectOk(await stateflow(['--dir', target, '--json', 'replay', exported]))) as { transitions: number; dir: string };
    expect(report).toMatchObject({ transitions: 3, dir: target, problems: 0 });
    expect(expectOk(await stateflow(['--dir', target, 'audit'])).stdout).toMatch(/^audited 3 transitions, .*: clean\n$/);
  });
});

describe('reading commands need an existing Stateflow store and create nothing', () => {
  it('gives NOT_FOUND for a directory of other files and leaves it as it was', async () => {
    const dir = path.join(root, 'not-a-store');
    await mkdir(dir);
    await writeFile(path.join(dir, 'notes.txt'), 'mine');
    for (const args of [['read', 'cwd'], ['log'], ['audit'], ['export'], ['baseline'], ['show', '1']]) {
      const result = await stateflow(['--dir', dir, ...args]);
      expect(result.code, args.join(' ')).toBe(3);
      expect(result.stderr).toBe(
        `stateflow: No store at ${dir}: pass --dir (or set STATEFLOW_DIR) to an existing store, or create one with "stateflow patch" or "stateflow import". [NOT_FOUND]\n`,
      );
    }
    expect(await tree(dir)).toEqual(['notes.txt']);
  });

  it('gives NOT_FOUND for a LevelDB database that is not a Stateflow store, adding no format record', async () => {
    const dir = path.join(root, 'plain-leveldb');
    const db = new ClassicLevel(dir);
    await db.open();
    await db.close();
    expect(jsonError(await stateflow(['--dir', dir, '--json', 'log']), 3).code).toBe('NOT_FOUND');
    const again = new ClassicLevel(dir);
    await again.open();
    const keys: unknown[] = [];
    for await (const key of again.keys()) keys.push(key);
    await again.close();
    expect(keys).toEqual([]);
  });

  it('does not create a missing directory', async () => {
    const dir = path.join(root, 'never-made');
    expect((await stateflow(['--dir', dir, 'read', 'cwd'])).code).toBe(3);
    expect(await readdir(root)).not.toContain('never-made');
  });
});

describe('import follows the owner and plane rules', () => {
  let history: string;

  beforeAll(async () => {
    history = path.join(root, 'history.jsonl');
    await writeFile(history, ['{"rev":1,"doc":{"v":1}}', '{"rev":2,"doc":{"v":2}}'].join('\n'));
  });

  const importInto = (dir: string, stream: string, at: string, ...more: string[]) =>
    stateflow(['--dir', dir, '--json', 'import', history, '--stream', stream, '--at', at, ...more]);

  it('rejects malformed owner streams with STREAM_INVALID (exit 2) before creating anything', async () => {
    const dir = path.join(root, 'import-bad-stream');
    for (const stream of ['cwd', 'cwd:', 'cwd:relative/dir', 'session:', 'global:x', 'session']) {
      const error = jsonError(await importInto(dir, stream, 'lazy.h'), 2);
      expect(error.code, stream).toBe('STREAM_INVALID');
      expect(error.message).toContain('owner streams are global, cwd:/abs/dir');
    }
    const unnormalized = jsonError(await importInto(dir, 'cwd:/a/../b', 'lazy.h'), 2);
    expect(unnormalized.message).toContain('did you mean cwd:/b?');
    expect(await readdir(root)).not.toContain('import-bad-stream');
  });

  it('requires --at to start with a plane of the owner (response only for a session)', async () => {
    const dir = path.join(root, 'import-planes');
    const notPlane = jsonError(await importInto(dir, 'global', 'manifest.x'), 2);
    expect(notPlane.code).toBe('USAGE');
    expect(notPlane.message).toBe(
      '--at "manifest.x" must start with a plane of the global owner (intents, strategy, tactics, artifacts, lazy), e.g. --at lazy.history; streams other than global, cwd: and session: take any --at.',
    );
    expect(jsonError(await importInto(dir, 'cwd:/p', 'response.x'), 2).code).toBe('USAGE');
    expect(json(expectOk(await importInto(dir, 'session:s1', 'response.x')))).toMatchObject({ imported: 2 });
    expect(json(expectOk(await importInto(dir, 'cwd:/p', 'artifacts.h')))).toMatchObject({ imported: 2 });
    // Other streams are free-form.
    expect(json(expectOk(await importInto(dir, 'history:x', 'anything.h')))).toMatchObject({ imported: 2, from: 1, to: 2 });
  });

  it('refuses a stream that already has revisions (CONFLICT, exit 4) unless --append is given', async () => {
    const dir = path.join(root, 'import-twice');
    expectOk(await importInto(dir, 'history:x', 'h'));
    const human = await stateflow(['--dir', dir, 'import', history, '--stream', 'history:x', '--at', 'h']);
    expect(human.code).toBe(4);
    expect(human.stderr).toBe('stateflow: Stream history:x already has 2 revisions; pass --append to continue it. [CONFLICT]\n');
    expect(jsonLines(expectOk(await stateflow(['--dir', dir, '--json', 'log'])).stdout)).toHaveLength(2);
    const more = path.join(root, 'history-more.jsonl');
    await writeFile(more, ['{"rev":3,"doc":{"v":2}}', '{"rev":4,"doc":{"v":4}}'].join('\n'));
    const appended = json(expectOk(await stateflow(['--dir', dir, '--json', 'import', more, '--stream', 'history:x', '--at', 'h', '--append'])));
    expect(appended).toMatchObject({ imported: 1, from: 3, to: 3, skipped: [{ source: 'line 1 (rev 3)', reason: 'equal to the previous document' }] });
  });
});

describe('a lost log record', () => {
  it('fails export and log closed with STORE_CORRUPT (exit 5) instead of skipping it', async () => {
    const dir = path.join(root, 'lost-record');
    await storeWith(dir, 4);
    const db = new ClassicLevel<Uint8Array, Uint8Array>(dir, { keyEncoding: 'view', valueEncoding: 'view' });
    await db.open();
    // Key of L/2: "L" then the seq as 8 big-endian bytes (packages/store README "Storage layout").
    const key = Buffer.alloc(9);
    key.write('L');
    key.writeUIntBE(2, 3, 6);
    expect(await db.get(key)).toBeDefined();
    await db.del(key);
    await db.close();
    const exported = await stateflow(['--dir', dir, 'export']);
    expect(exported.code, exported.stderr).toBe(5);
    expect((jsonLines(exported.stdout) as { seq: number }[]).map((t) => t.seq)).toEqual([1]);
    expect(exported.stderr).toMatch(/transition is missing from the log.*\[STORE_CORRUPT\]\n$/);
    const log = await stateflow(['--dir', dir, '--json', 'log']);
    expect(log.code).toBe(5);
    expect(jsonLines(log.stdout).at(-1)).toMatchObject({ error: { code: 'STORE_CORRUPT' } });
  });
});

describe('file system mistakes get actionable messages', () => {
  it('a directory where a file is expected is USAGE (exit 2) naming it', async () => {
    const dir = path.join(root, 'fs-store');
    await storeWith(dir, 1);
    const folder = path.join(root, 'a-folder');
    await mkdir(folder);
    const expected = `stateflow: ${folder} is a directory: pass the path of a file. [USAGE]\n`;
    for (const args of [
      ['--dir', path.join(root, 'fs-replayed'), 'replay', folder],
      ['--dir', dir, 'import', folder, '--stream', 'history:x', '--at', 'h'],
      ['--dir', dir, 'patch', `@${folder}`],
    ]) {
      const result = await stateflow(args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toBe(expected);
    }
  });

  it('a store path that is a file is USAGE (exit 2) saying so, for reading and writing commands and serve alike', async () => {
    const file = path.join(root, 'a-file');
    await writeFile(file, 'not a store');
    const expected = `stateflow: The store ${file} is a file, not a directory: pass --dir (or set STATEFLOW_DIR) to a store directory; stateflow creates a missing one. [USAGE]\n`;
    for (const args of [['log'], ['audit'], ['patch', '{"lazy":{"n":1}}'], ['serve', '--port', '0']]) {
      const result = await stateflow(['--dir', file, ...args]);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr, args.join(' ')).toBe(expected);
    }
    expect(await readFile(file, 'utf8')).toBe('not a store');
  });

  it('a missing file is NOT_FOUND (exit 3) naming it', async () => {
    const missing = path.join(root, 'no-such.jsonl');
    const result = await stateflow(['--dir', path.join(root, 'fs-replayed2'), 'replay', missing]);
    expect(result.code).toBe(3);
    expect(result.stderr).toBe(`stateflow: No such file or directory: ${missing}; check the path. [NOT_FOUND]\n`);
  });
});

describe('a store directory without write access', () => {
  it('says Stateflow needs write access even to read', async () => {
    const dir = path.join(root, 'read-only');
    await storeWith(dir, 1);
    await chmod(root, 0o755);
    await chmod(dir, 0o555);
    const args = [BIN, '--dir', dir, '--cwd', '/p', 'read', 'cwd'];
    // Root ignores permissions: run the bin as the unprivileged user "nobody" (setpriv) then.
    const result =
      process.getuid?.() === 0
        ? spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, ...args], { encoding: 'utf8', cwd: root })
        : spawnSync(process.execPath, args, { encoding: 'utf8', cwd: root });
    await chmod(dir, 0o755);
    expect(result.status, result.stderr).toBe(1);
    expect(result.stderr).toMatch(
      new RegExp(`^stateflow: Stateflow needs write access to ${dir.replace(/[/.]/g, '\\$&')} even to read: LevelDB takes a lock and replays its log on open \\(.*Permission denied\\).*\\[STORE_IO\\]\\n$`),
    );
  });
});

describe('messages', () => {
  let dir: string;

  beforeAll(async () => {
    dir = path.join(root, 'messages');
    await storeWith(dir, 2);
  });

  it('diff of a stream with no revisions says it is unknown and shows the id forms (exit 3)', async () => {
    for (const stream of ['cwd', 'nope:x']) {
      const result = await stateflow(['--dir', dir, 'diff', stream, '1', '2']);
      expect(result.code).toBe(3);
      expect(result.stderr).toBe(
        `stateflow: Stream ${stream} is unknown (it has no revisions): stream ids look like global, cwd:/abs/dir or session:ID (or a name like history:x); run "stateflow log" to list the streams of this store. [NOT_FOUND]\n`,
      );
    }
    expect(jsonError(await stateflow(['--dir', dir, '--json', 'diff', 'cwd:/p', '1', '9']), 3).code).toBe('REVISION_NOT_FOUND');
  });

  it('log --stream with no match adds the same hint on stderr', async () => {
    const result = expectOk(await stateflow(['--dir', dir, 'log', '--stream', 'cwd']));
    expect(result.stdout).toBe('No transitions match.\n');
    expect(result.stderr).toContain('Stream cwd is unknown (it has no revisions): stream ids look like global, cwd:/abs/dir or session:ID');
    expect(result.stderr).toContain('run "stateflow log"');
  });

  it('compact of an unknown stream is NOT_FOUND, not a success', async () => {
    expect(jsonError(await stateflow(['--dir', dir, '--json', 'compact', 'nosuch', '--keep', '1']), 3).code).toBe('NOT_FOUND');
  });

  it('a number too large to use exactly is refused quoting the text given', async () => {
    const error = jsonError(await stateflow(['--dir', dir, '--json', 'compact', 'cwd:/p', '--keep', '99999999999999999999']), 2);
    expect(error.code).toBe('USAGE');
    expect(error.message).toContain("'99999999999999999999' is invalid");
    expect(error.message).not.toContain('1e+20');
  });

  it('an empty --cwd, --session or --dir is USAGE', async () => {
    for (const option of ['--cwd', '--session', '--dir']) {
      const error = jsonError(await stateflow(['--json', option, '', 'read', 'cwd']), 2);
      expect(error.code, option).toBe('USAGE');
      expect(error.message).toContain('got an empty string');
    }
  });

  it('a command\'s --help lists the global options; import\'s line format reads the same everywhere', async () => {
    const diffHelp = expectOk(await stateflow(['diff', '--help'])).stdout;
    expect(diffHelp).toContain('Global Options:');
    expect(diffHelp).toMatch(/--store <location>\s+the store: a postgres:\/\/ URL or a LevelDB directory/);
    expect(diffHelp).toMatch(/--dir <dir>\s+LevelDB store directory/);
    const importHelp = expectOk(await stateflow(['import', '--help'])).stdout.replace(/\s+/g, ' ');
    expect(importHelp).toContain('one {"rev": 1, "doc": {...}} object per line');
    expect(importHelp).not.toContain('{"rev", "doc"}');
    expect(importHelp).toContain('--append');
  });
});

describe('patch says what it published', () => {
  it('prints the receipt on stdout and one line on stderr in human mode', async () => {
    const dir = path.join(root, 'patch-line');
    const patch = JSON.stringify({ global: { strategy: { s: 1 } }, cwd: { lazy: { n: 1 } } });
    const first = expectOk(await stateflow(['--dir', dir, '--global', '--cwd', '/p', 'patch', patch]));
    expect(first.stderr).toBe('published transition 1 (global rev 1, cwd rev 1)\n');
    const receipt = json(first);
    expect(first.stdout).toBe(`${JSON.stringify(receipt, null, 2)}\n`);
    const again = expectOk(await stateflow(['--dir', dir, '--global', '--cwd', '/p', 'patch', patch]));
    expect(again.stderr).toBe('no change\n');
    const machine = expectOk(await stateflow(['--dir', dir, '--cwd', '/p', '--json', 'patch', '{"lazy":{"n":2}}']));
    expect(machine.stderr).toBe('');
    expect(jsonLines(machine.stdout)).toHaveLength(1);
  });
});

describe('the staging directory of replay', () => {
  it('is a sibling of --dir and gone after success', async () => {
    const source = path.join(root, 'staging-source');
    await storeWith(source, 1);
    const file = path.join(root, 'staging.jsonl');
    await writeFile(file, expectOk(await stateflow(['--dir', source, 'export'])).stdout);
    const parent = path.join(root, 'staging-parent');
    await mkdir(parent);
    expectOk(await runProcess(process.execPath, [BIN, '--dir', path.join(parent, 'copy'), 'replay', file]));
    expect(await readdir(parent)).toEqual(['copy']);
  });
});
