/**
 * `stateflow show <seq> [--stored] [--shape stored|current|N]`: one transition with its changes and hashes. A change of a
 * LangGraph checkpoint stream is shown decoded (the checkpoint and what it changed, as LangGraph
 * shows them); `--stored` shows it as stored. `--archive FILE`: a transition a retention run pruned
 * is read from that archive, once it verified against the store (`internal/archive-reads.ts`),
 * and shown as archived.
 */
import type { Command } from 'commander';
import { numberOrTag, shapeOption } from '../internal/arguments.js';
import type { ShapeSelector } from '@stateflow/store';
import type { NumberOrTag } from '../internal/arguments.js';
import { seqOf } from '../internal/tag-points.js';
import type { CommandContext } from '../command-context.js';
import { isCheckpointStream } from '../internal/langgraph-view.js';
import { emit } from '../internal/output.js';
import { withStore } from '../internal/store-access.js';

/** Register `show`. */
export function registerShowCommand(program: Command, ctx: CommandContext): void {
  program
    .command('show')
    .description('print one transition (seq, time, changes with net patches, hashes); LangGraph checkpoints decoded')
    .argument('<seq>', 'global sequence number of the transition, or a tag (the transition at its seq)', numberOrTag)
    .option('--stored', 'print changes of langgraph: streams as stored (mapped values, net patches) instead of decoded')
    .option('--shape <shape>', 'stored (default: as written), current (upcast to the latest version of the stream\'s shape) or a version N', shapeOption, 'stored')
    .option('--archive <file>', 'read a transition a retention run pruned from this archive (verified against the store first)')
    .action(async (point: NumberOrTag, local: { stored?: boolean; shape: ShapeSelector; archive?: string }, command: Command) => {
      const options = ctx.options(command);
      const shown = await withStore(options, 'existing', async (store) => {
        const seq = await seqOf(store, point);
        if (local.shape !== 'stored') {
          // The transition's changes re-expressed in the shape (store transitionsInShape).
          for await (const shaped of store.transitions({ from: seq, to: seq, shape: local.shape })) return shaped;
        }
        if (local.archive !== undefined) {
          const { transitionOrArchived, verifiedArchive } = await import('../internal/archive-reads.js');
          const archive = await verifiedArchive(store, ctx.io.cwd, local.archive);
          const transition = await transitionOrArchived(store, archive, seq);
          if (archive.transitions.includes(transition)) return transition;
        }
        const transition = await store.transition(seq);
        if (local.stored === true || !transition.changes.some((change) => isCheckpointStream(change.stream))) return transition;
        const { decodedTransition } = await import('../internal/langgraph-view.js');
        return decodedTransition(store, transition);
      });
      emit(ctx.io, options, shown);
    });
}
