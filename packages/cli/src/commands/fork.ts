/**
 * `stateflow fork <from> <to> [--at REV]`: create stream `to` from `from`'s state (store `fork`).
 */
import type { Command } from 'commander';
import { nonNegativeInt } from '../internal/arguments.js';
import type { CommandContext } from '../command-context.js';
import { emit } from '../internal/output.js';
import { describePublish } from '../internal/publish-summary.js';
import { withStore } from '../internal/store-access.js';
import { requireKnownStream } from '../internal/known-stream.js';

/** Register `fork`. */
export function registerForkCommand(program: Command, ctx: CommandContext): void {
  program
    .command('fork')
    .description("create stream <to> from <from>'s state at its head or at --at REV, as one transition")
    .argument('<from>', 'source stream id')
    .argument('<to>', 'new stream id')
    .option('--at <rev>', 'revision of <from> to fork from (default: its head)', nonNegativeInt)
    .action(async (from: string, to: string, local: { at?: number }, command: Command) => {
      const options = ctx.options(command);
      const result = await withStore(options, 'existing', async (store) => {
        await requireKnownStream(store, from);
        return store.fork(from, to, local.at === undefined ? {} : { at: local.at });
      });
      emit(ctx.io, options, result, () =>
        `forked ${from}${local.at === undefined ? '' : ` at rev ${local.at}`} to ${to}: ${describePublish(result, 'source state is empty; nothing published')}`,
      );
    });
}
