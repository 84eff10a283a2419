/**
 * `stateflow import <history.jsonl> --stream S --at PATH`: each line `{rev, doc, …}` of a JSON
 * Lines history becomes one transition placing `doc` at PATH of stream S (cli README "Commands": import).
 */
import path from 'node:path';
import type { Command } from 'commander';
import type { CommandContext } from '../command-context.js';
import type { ImportOptions } from '../internal/history-import.js';
import { describeImport } from '../internal/import-output.js';
import { emit } from '../internal/output.js';
import { withProgress } from '../internal/progress.js';
import { withStore } from '../internal/store-access.js';

/** Register `import`. */
export function registerImportCommand(program: Command, ctx: CommandContext): void {
  program
    .command('import')
    .description('import a JSON Lines document history (oldest first) as one transition per distinct doc')
    .argument('<history>', 'JSON Lines file, one {"rev": 1, "doc": {...}} object per line')
    .requiredOption('--stream <stream>', 'stream to write: global, cwd:/abs/dir, session:ID, or a free-form name like history:x')
    .requiredOption('--at <path>', "keys inside the stream's state where each doc is placed; owner streams start with a plane, e.g. lazy.history")
    .option('--append', 'continue a stream that already has revisions')
    .action(async (history: string, local: ImportOptions, command: Command) => {
      const options = ctx.options(command);
      const [{ importHistory, parsePlacement }, { checkImportTarget }, { jsonLinesHistory }] = await Promise.all([
        import('../internal/history-import.js'),
        import('../internal/import-target.js'),
        import('../internal/history-sources.js'),
      ]);
      const keys = parsePlacement(local.at);
      await checkImportTarget(local.stream, keys);
      const file = path.resolve(ctx.io.cwd, history);
      const report = await withProgress(ctx.io, 'import', (progress) =>
        withStore(options, 'create', async (store) =>
          importHistory(store, local.stream, keys, jsonLinesHistory(file, progress), { progress, command: 'import', append: local.append === true }),
        ),
      );
      emit(ctx.io, options, report, () => describeImport(report));
    });
}
