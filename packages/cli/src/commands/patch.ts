/**
 * `stateflow patch <json | @file | ->`: one `patch_state` call; prints its receipt
 * (seed "patch_state and arrays"; cli README "Commands"). In human mode one more line on stderr says what was
 * published: `published transition 7 (cwd rev 3, global rev 2)` or `no change`.
 */
import type { Command } from 'commander';
import type { Store, Transition } from '@stateflow/store';
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
      const { receipt, transition } = await withRuntime(options, 'create', async (runtime, store) => {
        const before = store.lastSeq();
        const result = await runtime.patchState({ patch });
        return { receipt: result, transition: await publishedSince(store, before) };
      });
      emit(ctx.io, options.json, receipt);
      if (!options.json) ctx.io.stderr.write(`${describePublished(transition)}\n`);
    });
}

/**
 * The transition the call published, if any. This process holds the store (LevelDB's lock), and
 * one `patch_state` call publishes at most one transition, so it is the one after `before`.
 */
async function publishedSince(store: Store, before: number): Promise<Transition | null> {
  const last = store.lastSeq();
  return last === before ? null : store.transition(last);
}

/** "published transition 7 (cwd rev 3, global rev 2)", or "no change". */
function describePublished(transition: Transition | null): string {
  if (transition === null) return 'no change';
  const revs = transition.changes.map((change) => `${change.stream.split(':')[0]} rev ${change.rev}`).join(', ');
  return `published transition ${transition.seq} (${revs})`;
}
