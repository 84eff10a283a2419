/**
 * `stateflow read <path>... [--projection value|keys|patch] [--shape current|stored|N]`: one `read_state` call; prints
 * exactly its response (seed "Progressive read_state").
 */
import { Option, type Command } from 'commander';
import type { CommandContext } from '../command-context.js';
import { emit } from '../internal/output.js';
import { shapeOption } from '../internal/arguments.js';

/** Register `read`. */
export function registerReadCommand(program: Command, ctx: CommandContext): void {
  program
    .command('read')
    .description('read one path, or several as one batch, with read_state and print the response')
    .argument('<paths...>', "read_state paths, e.g. 'cwd.lazy.plan' or 'cwd[3].lazy.memory[0:2]'")
    .addOption(new Option('--projection <projection>', 'what to return').choices(['value', 'keys', 'patch']).default('value'))
    .option('--shape <shape>', "current (default, as read_state: upcast to the latest version of the stream's shape), stored (as written) or a version N", shapeOption, 'current')
    .action(async (paths: string[], local: { projection: 'value' | 'keys' | 'patch'; shape: 'stored' | 'current' | number }, command: Command) => {
      const options = ctx.options(command);
      const input = paths.length === 1 ? { path: paths[0], projection: local.projection, shape: local.shape } : { paths, projection: local.projection, shape: local.shape };
      const { withRuntime } = await import('../internal/runtime.js');
      const response = await withRuntime(options, 'existing', async (runtime) => runtime.readState(input));
      emit(ctx.io, options, response);
    });
}
