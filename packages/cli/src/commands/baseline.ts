/**
 * `stateflow baseline`: the baseline snapshot an agent receives at iteration start (hot
 * effective state, `lazy_navigation`, recent transitions; seed "Baseline lazy hint").
 */
import type { Command } from 'commander';
import type { CommandContext } from '../command-context.js';
import { emit } from '../internal/output.js';

/** Register `baseline`. */
export function registerBaselineCommand(program: Command, ctx: CommandContext): void {
  program
    .command('baseline')
    .description('print the baseline snapshot of the selected owners')
    .action(async (_options: unknown, command: Command) => {
      const options = ctx.options(command);
      const { withRuntime } = await import('../internal/runtime.js');
      const snapshot = await withRuntime(options, 'existing', async (runtime) => runtime.baseline());
      emit(ctx.io, options, snapshot);
    });
}
