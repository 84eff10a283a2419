/**
 * `stateflow import-git` on a temporary git repository with a scripted history of a JSON file:
 * first-parent line oldest first, equal documents skipped, unparsable and deleted versions
 * reported as skipped, each distinct document one revision.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonObject } from '@stateflow/core';
import { expectOk, json, removeDir, runProcess, stateflow, tempDir } from './helpers.js';

let root: string;
let repo: string;

async function git(...args: string[]): Promise<string> {
  const result = await runProcess('git', ['-C', repo, '-c', 'user.name=Test', '-c', 'user.email=test@example.com', '-c', 'commit.gpgsign=false', ...args]);
  expect(result.code, result.stderr).toBe(0);
  return result.stdout.trim();
}

async function commitFile(content: string | null, message: string): Promise<void> {
  const file = path.join(repo, 'config', 'app.json');
  if (content === null) await rm(file);
  else await writeFile(file, content);
  await git('add', '-A');
  await git('commit', '-q', '-m', message);
}

const v1 = { name: 'demo', version: '1.0.0' };
const v2 = { name: 'demo', version: '1.1.0', dependencies: { left: '^1.0.0' } };
const v5 = { name: 'demo', version: '2.0.0', tags: ['a', 'b'], dependencies: { left: '^2.0.0' } };
const v8 = { name: 'demo', version: '2.1.0', tags: ['a', 'c'] };
const side1 = { ...v8, version: '3.0.0-beta.1' };
const side2 = { ...v8, version: '3.0.0', tags: ['a', 'c', 'd'] };
/** The documents of the first-parent line, in order, without skipped versions. */
const revisions = [v1, v2, v5, v8, side2];

let commits: string[];
/** Each first-parent commit's committer date, as git prints it (`%cI`). */
let dates: string[];

beforeAll(async () => {
  root = await tempDir();
  repo = path.join(root, 'repo');
  await mkdir(path.join(repo, 'config'), { recursive: true });
  await git('init', '-q', '-b', 'main');
  await commitFile(JSON.stringify(v1), 'v1');
  await commitFile(JSON.stringify(v2, null, 2), 'v2');
  await commitFile(`${JSON.stringify(v2, null, 4)}\n`, 'reformat only');
  await commitFile('{ "name": "demo", ', 'broken JSON');
  await commitFile(JSON.stringify(v5), 'v5');
  await writeFile(path.join(repo, 'README.md'), 'unrelated\n');
  await git('add', '-A');
  await git('commit', '-q', '-m', 'unrelated file');
  await commitFile(null, 'delete');
  await commitFile(JSON.stringify(v8), 'v8 re-added');
  await git('checkout', '-q', '-b', 'side');
  await commitFile(JSON.stringify(side1), 'side beta');
  await commitFile(JSON.stringify(side2), 'side final');
  await git('checkout', '-q', 'main');
  await git('merge', '-q', '--no-ff', '-m', 'merge side', 'side');
  commits = (await git('log', '--first-parent', '--reverse', '--format=%H', '--', 'config/app.json')).split('\n');
  dates = (await git('log', '--first-parent', '--reverse', '--format=%cI', '--', 'config/app.json')).split('\n');
});

afterAll(async () => {
  await removeDir(root);
});

describe('stateflow import-git', () => {
  it('imports the first-parent history oldest first, one revision per distinct document', async () => {
    const dir = path.join(root, 'store');
    const report = json(
      expectOk(await stateflow(['--dir', dir, '--json', 'import-git', repo, 'config/app.json', '--stream', 'cwd:/app', '--at', 'lazy.config'])),
    ) as JsonObject;
    const short = (i: number) => `commit ${commits[i]?.slice(0, 12)}`;
    expect(commits).toHaveLength(8);
    expect(report).toEqual({
      stream: 'cwd:/app',
      at: 'lazy.config',
      from: 1,
      to: 5,
      imported: 5,
      skipped: [
        { source: short(2), reason: 'equal to the previous document' },
        { source: short(3), reason: 'the file is not valid JSON at this commit' },
        { source: short(5), reason: 'the file is absent at this commit' },
      ],
    });
    const read = json(
      expectOk(await stateflow(['--dir', dir, '--cwd', '/app', '--json', 'read', ...revisions.map((_, i) => `cwd[${i + 1}].lazy.config`)])),
    );
    expect(read).toEqual({ value: revisions });
    const shown = json(expectOk(await stateflow(['--dir', dir, '--json', 'show', '5']))) as { meta: JsonObject };
    expect(shown.meta).toEqual({ import: { repo, file: 'config/app.json', commit: commits[7], date: dates[7] }, writer: { user: 'local', surface: 'cli', client: expect.stringMatching(/^stateflow\//) } });
    expect(dates[7]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d([+-]\d\d:\d\d|Z)$/);
    const human = expectOk(await stateflow(['--dir', path.join(root, 'store2'), 'import-git', repo, 'config/app.json', '--stream', 'cwd:/app', '--at', 'lazy.config']));
    expect(human.stdout.split('\n')[0]).toBe('imported 5 revisions into cwd:/app at lazy.config: rev 1..5; skipped 3');
  });

  it('fails with exit 3 for a directory that is not a repository or a file never committed', async () => {
    const notRepo = await stateflow(['--dir', path.join(root, 's3'), '--json', 'import-git', root, 'x.json', '--stream', 'global', '--at', 'lazy.x']);
    expect(notRepo.code).toBe(3);
    expect((json(notRepo) as { error: { code: string } }).error.code).toBe('NOT_FOUND');
    const neverCommitted = await stateflow(['--dir', path.join(root, 's3'), 'import-git', repo, 'absent.json', '--stream', 'global', '--at', 'lazy.x']);
    expect(neverCommitted.code).toBe(3);
    expect(neverCommitted.stderr).toContain('No commit of');
  });

  it('a file that never parses imports nothing, says so and exits 2 (INPUT_INVALID)', async () => {
    await writeFile(path.join(repo, 'broken.json'), '{ "never": ');
    await git('add', '-A');
    await git('commit', '-q', '-m', 'broken file');
    await writeFile(path.join(repo, 'broken.json'), '[1, 2]');
    await git('add', '-A');
    await git('commit', '-q', '-m', 'an array, not an object');
    const dir = path.join(root, 's5');
    const result = await stateflow(['--dir', dir, '--json', 'import-git', repo, 'broken.json', '--stream', 'global', '--at', 'lazy.x']);
    expect(result.code).toBe(2);
    const error = (json(result) as { error: { code: string; details: JsonObject; message: string } }).error;
    expect(error.code).toBe('INPUT_INVALID');
    expect(error.details).toEqual({ field: 'history', reason: 'no document' });
    expect(error.message).toContain('none of the 2 entries');
    const human = await stateflow(['--dir', dir, 'import-git', repo, 'broken.json', '--stream', 'global', '--at', 'lazy.x']);
    expect(human.code).toBe(2);
    expect(human.stderr).toMatch(/^stateflow: Nothing to import: .*the file is not valid JSON at this commit; .*the file is not a JSON object at this commit\)/);
    const log = await stateflow(['--dir', dir, '--json', 'log']);
    expect(log.code, log.stderr).toBe(0);
    expect(log.stdout).toBe('');
  });

  it('rejects --at paths that are not plain keys with exit 2', async () => {
    for (const at of ['cwd.lazy.config', 'lazy.list[0]', 'lazy..x']) {
      const result = await stateflow(['--dir', path.join(root, 's4'), '--json', 'import-git', repo, 'config/app.json', '--stream', 'global', '--at', at]);
      expect(result.code, at).toBe(2);
      expect((json(result) as { error: { code: string } }).error.code).toBe('USAGE');
    }
  });
});
