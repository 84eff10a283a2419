/**
 * `stateflow show <seq>`: one transition with its changes and hashes.
 */
import type { Command } from 'commander';
import { nonNegativeInt } from '../internal/arguments.js';
import type { CommandContext } from '../command-context.js';
import { emit } from '../internal/output.js';
import { withStore } from '../internal/store-access.js';

/** Register `show`. */
export function registerShowCommand(program: Command, ctx: CommandContext): void {
  program
    .command('show')
    .description('print one transition (seq, time, changes with net patches, hashes)')
    .argument('<seq>', 'global sequence number of the transition', nonNegativeInt)
    .action(async (seq: number, _local: unknown, command: Command) => {
      const options = ctx.options(command);
      const transition = await withStore(options, 'existing', async (store) => store.transition(seq));
      emit(ctx.io, options, transition);
    });
}
