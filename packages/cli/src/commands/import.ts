/**
 * `stateflow import <history.jsonl> --stream S --at PATH`: each line `{rev, doc, …}` of a JSON
 * Lines history becomes one transition placing `doc` at PATH of stream S (cli README "Commands": import).
 */
import path from 'node:path';
import type { Command } from 'commander';
import { StateflowError, isJsonObject, type JsonObject } from '@stateflow/core';
import type { CommandContext } from '../command-context.js';
import { importHistory, parsePlacement, type HistoryEntry, type ImportOptions } from '../internal/history-import.js';
import { checkImportTarget } from '../internal/import-target.js';
import { describeImport } from '../internal/import-output.js';
import { readJsonLines } from '../internal/json-lines.js';
import { emit } from '../internal/output.js';
import { startProgress } from '../internal/progress.js';
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
      const keys = parsePlacement(local.at);
      await checkImportTarget(local.stream, keys);
      const file = path.resolve(ctx.io.cwd, history);
      const report = await withStore(options, 'create', async (store) =>
        importHistory(store, local.stream, keys, historyEntries(file), {
          progress: (total) => startProgress(ctx.io, 'import', total),
          append: local.append === true,
        }),
      );
      emit(ctx.io, options, report, () => describeImport(report));
    });
}

async function* historyEntries(file: string): AsyncGenerator<HistoryEntry> {
  const name = path.basename(file);
  for await (const { line, value } of readJsonLines(file)) {
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
