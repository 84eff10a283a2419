/**
 * `stateflow import-git <repo> <file> --stream S --at PATH`: the history of a JSON file in a
 * local git repository, oldest first along the first-parent line, imported like `import`
 * (cli README "Commands"). Runs the `git` command.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Command } from 'commander';
import { StateflowError, isJsonObject } from '@stateflow/core';
import type { CommandContext } from '../command-context.js';
import { importHistory, parsePlacement, type HistoryEntry, type ImportOptions } from '../internal/history-import.js';
import { checkImportTarget } from '../internal/import-target.js';
import { describeImport } from '../internal/import-output.js';
import { emit } from '../internal/output.js';
import { startProgress } from '../internal/progress.js';
import { withStore } from '../internal/store-access.js';

const run = promisify(execFile);

/** Largest file version read from git, in bytes. */
const MAX_FILE_BYTES = 256 * 1024 * 1024;

/** Register `import-git`. */
export function registerImportGitCommand(program: Command, ctx: CommandContext): void {
  program
    .command('import-git')
    .description("import every committed version of a JSON file in a local git repository (first-parent history, oldest first)")
    .argument('<repo>', 'path of the git repository (working tree or bare)')
    .argument('<file>', 'path of the JSON file inside the repository, from its root')
    .requiredOption('--stream <stream>', 'stream to write: global, cwd:/abs/dir, session:ID, or a free-form name like history:x')
    .requiredOption('--at <path>', "keys inside the stream's state where each version is placed; owner streams start with a plane, e.g. lazy.manifest")
    .option('--append', 'continue a stream that already has revisions')
    .action(async (repo: string, file: string, local: ImportOptions, command: Command) => {
      const options = ctx.options(command);
      const keys = parsePlacement(local.at);
      await checkImportTarget(local.stream, keys);
      const repoDir = path.resolve(ctx.io.cwd, repo);
      const commits = await fileCommits(repoDir, file);
      const report = await withStore(options, 'create', async (store) =>
        importHistory(store, local.stream, keys, versions(repoDir, file, commits), {
          progress: (total) => startProgress(ctx.io, 'import-git', total),
          append: local.append === true,
        }),
      );
      emit(ctx.io, options, report, () => describeImport(report));
    });
}

async function git(repoDir: string, args: string[]): Promise<string> {
  const { stdout } = await run('git', ['-C', repoDir, ...args], { maxBuffer: MAX_FILE_BYTES, encoding: 'utf8' });
  return stdout;
}

async function fileCommits(repoDir: string, file: string): Promise<string[]> {
  let out: string;
  try {
    out = await git(repoDir, ['log', '--first-parent', '--reverse', '--format=%H', '--', file]);
  } catch (err) {
    const stderr = String((err as { stderr?: unknown }).stderr ?? (err as Error).message).trim().split('\n')[0];
    throw new StateflowError('NOT_FOUND', `Cannot read the git history of ${repoDir}: ${stderr}. Pass the path of a git repository.`, { repo: repoDir }, { cause: err });
  }
  const commits = out.split('\n').filter((line) => line !== '');
  if (commits.length === 0) {
    throw new StateflowError('NOT_FOUND', `No commit of ${repoDir} touches ${file}: give the file's path from the repository root.`, {
      repo: repoDir,
      file,
    });
  }
  return commits;
}

async function* versions(repoDir: string, file: string, commits: string[]): AsyncGenerator<HistoryEntry> {
  for (const commit of commits) {
    const source = `commit ${commit.slice(0, 12)}`;
    const meta = { import: { repo: repoDir, file, commit } };
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
