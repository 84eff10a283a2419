/**
 * `stateflow revert <stream> <rev>`: publish a new transition that restores the stream's state
 * at `rev`; history is never rewritten (store `revert`).
 */
import type { Command } from 'commander';
import { nonNegativeInt } from '../internal/arguments.js';
import type { CommandContext } from '../command-context.js';
import { emit } from '../internal/output.js';
import { describePublish } from '../internal/publish-summary.js';
import { withStore } from '../internal/store-access.js';
import { requireKnownStream } from '../internal/known-stream.js';

/** Register `revert`. */
export function registerRevertCommand(program: Command, ctx: CommandContext): void {
  program
    .command('revert')
    .description("restore a stream's state at an earlier revision as a new transition")
    .argument('<stream>', 'stream id, e.g. cwd:/home/me/proj')
    .argument('<rev>', 'revision whose state to restore', nonNegativeInt)
    .action(async (stream: string, rev: number, _local: unknown, command: Command) => {
      const options = ctx.options(command);
      const result = await withStore(options, 'existing', async (store) => {
        await requireKnownStream(store, stream);
        return store.revert(stream, rev);
      });
      emit(ctx.io, options, result, () =>
        `reverted ${stream} to rev ${rev}: ${describePublish(result, 'already in that state; nothing published')}`,
      );
    });
}
