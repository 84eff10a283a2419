/**
 * `stateflow patch <json | @file | ->`: one `patch_state` call; prints its receipt
 * (seed "patch_state and arrays"; cli README "Commands"). In human mode one more line on stderr says what was
 * published: `published transition 7 (cwd rev 3, global rev 2)` or `no change`.
 */
import type { Command } from 'commander';
import type { Transition } from '@stateflow/store';
import type { CommandContext } from '../command-context.js';
import { emit } from '../internal/output.js';

/** Register `patch`. */
export function registerPatchCommand(program: Command, ctx: CommandContext): void {
  program
    .command('patch')
    .description('apply a patch_state patch for the selected owners and print the receipt')
    .argument('<patch>', 'the patch as JSON, @file to read a file, or - to read stdin')
    .action(async (source: string, _options: unknown, command: Command) => {
      const options = ctx.options(command);
      const [{ readJsonArgument }, { withRuntime }] = await Promise.all([import('../internal/json-input.js'), import('../internal/runtime.js')]);
      const patch = await readJsonArgument(source, ctx.io, 'patch');
      let transition: Transition | null = null;
      const receipt = await withRuntime(options, 'create', (runtime) =>
        runtime.patchState({ patch }, { onPublished: (published) => (transition = published) }),
      );
      emit(ctx.io, options, receipt);
      if (!options.json) ctx.io.stderr.write(`${describePublished(transition)}\n`);
    });
}

/** "published transition 7 (cwd rev 3, global rev 2)", or "no change". */
function describePublished(transition: Transition | null): string {
  if (transition === null) return 'no change';
  const revs = transition.changes.map((change) => `${change.stream.split(':')[0]} rev ${change.rev}`).join(', ');
  return `published transition ${transition.seq} (${revs})`;
}
