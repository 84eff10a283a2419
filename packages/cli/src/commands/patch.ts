/**
 * `stateflow patch <json | @file | ->`: one `patch_state` call; prints its receipt
 * (seed "patch_state and arrays"; issue 7).
 */
import type { Command } from 'commander';
import type { CommandContext } from '../internal/context.js';
import { readJsonArgument } from '../internal/json-input.js';
import { emit } from '../internal/output.js';
import { withRuntime } from '../internal/runtime.js';

/** Register `patch`. */
export function registerPatchCommand(program: Command, ctx: CommandContext): void {
  program
    .command('patch')
    .description('apply a patch_state patch for the selected owners and print the receipt')
    .argument('<patch>', 'the patch as JSON, @file to read a file, or - to read stdin')
    .action(async (source: string, _options: unknown, command: Command) => {
      const options = ctx.options(command);
      const patch = await readJsonArgument(source, ctx.io, 'patch');
      const receipt = await withRuntime(options, 'create', async (runtime) => runtime.patchState({ patch }));
      emit(ctx.io, options.json, receipt);
    });
}
