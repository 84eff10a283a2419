/**
 * Where document histories come from (cli README "Commands": `import`, `import-git`): a JSON
 * Lines file (`{"rev": N, "doc": {...}}` per line) or a JSON file's first-parent history in a
 * local git repository (the `git` command). Each yields {@link HistoryEntry}s oldest first and
 * advances a progress sink as it reads: bytes of the file, or commits.
 */
import { execFile } from 'node:child_process';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { StateflowError, isJsonObject, type JsonObject } from '@stateflow/core';
import type { HistoryEntry } from './history-import.js';
import { readJsonLines } from './json-lines.js';
import type { Progress } from './progress.js';

const run = promisify(execFile);

/** Largest file version read from git, in bytes. */
const MAX_FILE_BYTES = 256 * 1024 * 1024;

/**
 * The entries of a JSON Lines history file, with `meta.import` `{ file, line, rev?, commit?,
 * date? }`; `progress` counts the file's bytes read.
 * @throws INPUT_INVALID naming the line when a line is not JSON or has no `doc` object
 */
export async function* jsonLinesHistory(file: string, progress: Progress): AsyncGenerator<HistoryEntry> {
  const name = path.basename(file);
  const { size } = await stat(file);
  progress.phase('import: reading', { unit: 'bytes', total: size });
  for await (const { line, value } of readJsonLines(file, (bytes) => progress.update(bytes))) {
    if (!isJsonObject(value) || !isJsonObject(value['doc'])) {
      throw new StateflowError(
        'INPUT_INVALID',
        `Line ${line} of ${file} has no "doc" object: each line must look like {"rev": 1, "doc": {...}}.`,
        { field: `line ${line}`, reason: 'doc' },
      );
    }
    const meta: JsonObject = { file: name, line };
    for (const key of ['rev', 'commit', 'date']) {
      const field = value[key];
      if (typeof field === 'string' || typeof field === 'number') meta[key] = field;
    }
    const rev = typeof value['rev'] === 'number' ? ` (rev ${value['rev']})` : '';
    yield { source: `line ${line}${rev}`, doc: value['doc'], meta: { import: meta } };
  }
}

/** A commit of a file's history: its hash and its committer date (ISO 8601 with offset, git's `%cI`). */
export interface FileCommit {
  commit: string;
  date: string;
}

/**
 * The commits of `repoDir` along the first-parent line that touch `file` (relative to the
 * repository root), oldest first, each with its committer date.
 * @throws NOT_FOUND `{ repo }` when `repoDir` is not a git repository, or no commit touches `file`
 */
export async function fileCommits(repoDir: string, file: string): Promise<FileCommit[]> {
  let out: string;
  try {
    out = await git(repoDir, ['log', '--first-parent', '--reverse', '--format=%H %cI', '--', file]);
  } catch (err) {
    const stderr = String((err as { stderr?: unknown }).stderr ?? (err as Error).message).trim().split('\n')[0];
    throw new StateflowError('NOT_FOUND', `Cannot read the git history of ${repoDir}: ${stderr}. Pass the path of a git repository.`, { repo: repoDir }, { cause: err });
  }
  const commits = out
    .split('\n')
    .filter((line) => line !== '')
    .map((line): FileCommit => {
      const [commit = '', date = ''] = line.split(' ');
      return { commit, date };
    });
  if (commits.length === 0) {
    throw new StateflowError('NOT_FOUND', `No commit of ${repoDir} touches ${file}: give the file's path from the repository root.`, {
      repo: repoDir,
      file,
    });
  }
  return commits;
}

/**
 * The versions of `file` at `commits`, with `meta.import` `{ repo, file, commit, date }` (`date`:
 * the committer date, as `import` stores a history line's `date`); a commit where
 * the file is absent, not JSON, or not an object is an unusable entry saying so. `progress`
 * counts the commits read.
 */
export async function* gitHistory(repoDir: string, file: string, commits: FileCommit[], progress: Progress): AsyncGenerator<HistoryEntry> {
  progress.phase('import-git: reading', { total: commits.length });
  for (const [i, { commit, date }] of commits.entries()) {
    progress.update(i + 1);
    const source = `commit ${commit.slice(0, 12)}`;
    const meta = { import: { repo: repoDir, file, commit, date } };
    let text: string;
    try {
      text = await git(repoDir, ['show', `${commit}:${file}`]);
    } catch {
      yield { source, unusable: 'the file is absent at this commit', meta };
      continue;
    }
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch {
      yield { source, unusable: 'the file is not valid JSON at this commit', meta };
      continue;
    }
    yield isJsonObject(doc) ? { source, doc, meta } : { source, unusable: 'the file is not a JSON object at this commit', meta };
  }
}

async function git(repoDir: string, args: string[]): Promise<string> {
  const { stdout } = await run('git', ['-C', repoDir, ...args], { maxBuffer: MAX_FILE_BYTES, encoding: 'utf8' });
  return stdout;
}
