/**
 * `stateflow import-git <repo> <file> --stream S --at PATH`: the history of a JSON file in a
 * local git repository, oldest first along the first-parent line, imported like `import`
 * (cli README "Commands"). Runs the `git` command.
 */
import path from 'node:path';
import type { Command } from 'commander';
import type { CommandContext } from '../command-context.js';
import type { ImportOptions } from '../internal/history-import.js';
import { describeImport } from '../internal/import-output.js';
import { emit } from '../internal/output.js';
import { withProgress } from '../internal/progress.js';
import { withStore } from '../internal/store-access.js';

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
      const [{ importHistory, parsePlacement }, { checkImportTarget }, { fileCommits, gitHistory }] = await Promise.all([
        import('../internal/history-import.js'),
        import('../internal/import-target.js'),
        import('../internal/history-sources.js'),
      ]);
      const keys = parsePlacement(local.at);
      await checkImportTarget(local.stream, keys);
      const repoDir = path.resolve(ctx.io.cwd, repo);
      const report = await withProgress(ctx.io, 'import-git', async (progress) => {
        const commits = await fileCommits(repoDir, file);
        return withStore(options, 'create', async (store) =>
          importHistory(store, local.stream, keys, gitHistory(repoDir, file, commits, progress), { progress, command: 'import-git', append: local.append === true }),
        );
      });
      emit(ctx.io, options, report, () => describeImport(report));
    });
}
