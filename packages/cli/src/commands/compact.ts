/**
 * `stateflow compact <stream> --keep N`: keep the newest N revisions of a stream; older ones are
 * deleted and the stream's origin moves forward (DESIGN.md "Retention").
 */
import type { Command } from 'commander';
import { positiveInt } from '../internal/arguments.js';
import type { CommandContext } from '../command-context.js';
import { emit } from '../internal/output.js';
import { withProgress } from '../internal/progress.js';
import { withStore } from '../internal/store-access.js';
import { requireKnownStream } from '../internal/known-stream.js';

/** Register `compact`. */
export function registerCompactCommand(program: Command, ctx: CommandContext): void {
  program
    .command('compact')
    .description("delete a stream's revisions older than the newest N (reads below the new origin then fail)")
    .argument('<stream>', 'stream id')
    .requiredOption('--keep <n>', 'number of newest revisions to keep', positiveInt)
    .action(async (stream: string, local: { keep: number }, command: Command) => {
      const options = ctx.options(command);
      const result = await withStore(options, 'existing', async (store) => {
        await requireKnownStream(store, stream);
        // The store reports no progress of a compaction: the bar shows how long it has run.
        return withProgress(ctx.io, 'compact', () => store.compact(stream, { keepRevisions: local.keep }));
      });
      emit(ctx.io, options, { stream, ...result }, () =>
        `compacted ${stream}: origin is now rev ${result.origin}, ${result.deleted} entries deleted`,
      );
    });
}
