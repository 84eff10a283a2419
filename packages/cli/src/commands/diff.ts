/**
 * `stateflow diff <stream> <revA> <revB>`: the patch that turns revision A of a stream into
 * revision B (store `diff`).
 */
import type { Command } from 'commander';
import { nonNegativeInt } from '../internal/arguments.js';
import type { CommandContext } from '../command-context.js';
import { emit } from '../internal/output.js';
import { withStore } from '../internal/store-access.js';
import { requireKnownStream } from '../internal/known-stream.js';

/** Register `diff`. */
export function registerDiffCommand(program: Command, ctx: CommandContext): void {
  program
    .command('diff')
    .description('print the patch that turns <stream> at <revA> into <stream> at <revB>')
    .argument('<stream>', 'stream id, e.g. global, cwd:/home/me/proj, session:s1')
    .argument('<revA>', 'from revision', nonNegativeInt)
    .argument('<revB>', 'to revision', nonNegativeInt)
    .action(async (stream: string, revA: number, revB: number, _local: unknown, command: Command) => {
      const options = ctx.options(command);
      const patch = await withStore(options, 'existing', async (store) => {
        await requireKnownStream(store, stream);
        return store.diff(stream, revA, revB);
      });
      emit(ctx.io, options, patch);
    });
}
