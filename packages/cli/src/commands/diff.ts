/**
 * `stateflow diff <stream> <revA> <revB> [--stored] [--shape stored|current|N]`: the patch that turns revision A of a
 * stream into revision B (store `diff`). On a LangGraph checkpoint stream, what changed between
 * the two checkpoints, decoded as LangGraph shows them; `--stored` gives the stored patch.
 * `--archive FILE`: revisions below the stream's origin are read from that retention archive,
 * once it verified against the store (`internal/archive-reads.ts`); the patch is then the stored one.
 */
import type { Command } from 'commander';
import { numberOrTag, shapeOption } from '../internal/arguments.js';
import type { ShapeSelector } from '@stateflow/store';
import type { NumberOrTag } from '../internal/arguments.js';
import { stateAtPoint } from '../internal/tag-points.js';
import type { CommandContext } from '../command-context.js';
import { isCheckpointStream } from '../internal/langgraph-view.js';
import { emit } from '../internal/output.js';
import { withStore } from '../internal/store-access.js';
import { requireKnownStream } from '../internal/known-stream.js';

/** Register `diff`. */
export function registerDiffCommand(program: Command, ctx: CommandContext): void {
  program
    .command('diff')
    .description('print the patch that turns <stream> at <revA> into <stream> at <revB>; LangGraph checkpoints decoded')
    .argument('<stream>', 'stream id, e.g. global, cwd:/home/me/proj, session:s1, langgraph:chat-1')
    .argument('<revA>', 'from revision, or a tag', numberOrTag)
    .argument('<revB>', 'to revision, or a tag', numberOrTag)
    .option('--stored', 'on a langgraph: stream, print the stored patch (mapped values) instead of the decoded change')
    .option('--shape <shape>', 'stored (default: as written), current (upcast to the latest version of the stream\'s shape) or a version N', shapeOption, 'stored')
    .option('--archive <file>', 'read revisions a retention run pruned from this archive (verified against the store first); prints the stored patch')
    .action(async (stream: string, revA: NumberOrTag, revB: NumberOrTag, local: { stored?: boolean; shape: ShapeSelector; archive?: string }, command: Command) => {
      const options = ctx.options(command);
      const patch = await withStore(options, 'existing', async (store) => {
        await requireKnownStream(store, stream);
        if (local.archive !== undefined) {
          const [{ diff }, { stateAtOrArchived, verifiedArchive }] = await Promise.all([import('@stateflow/core'), import('../internal/archive-reads.js')]);
          const archive = await verifiedArchive(store, ctx.io.cwd, local.archive);
          return diff(await stateAtOrArchived(store, archive, stream, revA, local.shape), await stateAtOrArchived(store, archive, stream, revB, local.shape));
        }
        if (typeof revA !== 'number' || typeof revB !== 'number' || local.shape !== 'stored') {
          const { diff } = await import('@stateflow/core');
          return diff(await stateAtPoint(store, stream, revA, local.shape), await stateAtPoint(store, stream, revB, local.shape));
        }
        if (local.stored === true || !isCheckpointStream(stream)) return store.diff(stream, revA, revB);
        const { decodedDiff } = await import('../internal/langgraph-view.js');
        return decodedDiff(store, stream, revA, revB);
      });
      emit(ctx.io, options, patch);
    });
}
