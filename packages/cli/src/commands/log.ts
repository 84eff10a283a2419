/**
 * `stateflow log [--stream S] [--from SEQ|TAG] [--to SEQ|TAG] [--limit N] [--writer NAME] [--tool NAME]`:
 * the transition log as a table with each transition's writer (`meta.writer`, with the MCP tool
 * whose call wrote it), or JSON Lines of transitions under `--json` (DESIGN.md "Store model");
 * `--writer` keeps one writer's, `--tool` one tool's calls.
 */
import type { Command } from 'commander';
import type { ShapeSelector, Transition } from '@stateflow/store';
import { numberOrTag, shapeOption, positiveInt } from '../internal/arguments.js';
import type { NumberOrTag } from '../internal/arguments.js';
import { seqOf } from '../internal/tag-points.js';
import type { CommandContext } from '../command-context.js';
import { clip, table } from '../internal/output.js';
import { withStore } from '../internal/store-access.js';
import { isUnknownStream, unknownStreamMessage } from '../internal/known-stream.js';
import { writeLine } from '../internal/stream-output.js';
import { calledTool, writerLabel, writtenBy } from '../internal/writer-label.js';

/** Widest patch summary shown in the table, in characters. */
const PATCH_COLUMN = 72;

interface LogOptions {
  stream?: string;
  from?: NumberOrTag;
  to?: NumberOrTag;
  limit?: number;
  writer?: string;
  tool?: string;
  shape: ShapeSelector;
}

/** Register `log`. */
export function registerLogCommand(program: Command, ctx: CommandContext): void {
  program
    .command('log')
    .description('list transitions, oldest first (one table row per changed stream)')
    .option('--stream <stream>', 'only transitions that changed this stream, e.g. cwd:/home/me/proj')
    .option('--from <seq>', 'first seq to list (inclusive, as in stateflow watch), or a tag', numberOrTag)
    .option('--to <seq>', 'last seq to list (inclusive), or a tag', numberOrTag)
    .option('--limit <n>', 'list at most n transitions', positiveInt)
    .option('--writer <name>', "only transitions this writer wrote: its MCP client's name (with or without /version), user, surface or ladder")
    .option('--shape <shape>', 'stored (default: as written), current (upcast to the latest version of the stream\'s shape) or a version N', shapeOption, 'stored')
    .option('--tool <name>', 'only transitions an MCP tool call wrote with this tool (meta.writer.tool), e.g. patch_state')
    .action(async (local: LogOptions, command: Command) => {
      const options = ctx.options(command);
      await withStore(options, 'existing', async (store) => {
        const range: { from?: number; to?: number; stream?: string; shape?: ShapeSelector } = { shape: local.shape };
        if (local.from !== undefined) range.from = await seqOf(store, local.from);
        if (local.to !== undefined) range.to = await seqOf(store, local.to);
        if (local.stream !== undefined) range.stream = local.stream;
        const rows: string[][] = [];
        let count = 0;
        for await (const transition of store.transitions(range)) {
          if (local.writer !== undefined && !writtenBy(transition, local.writer)) continue;
          if (local.tool !== undefined && !calledTool(transition, local.tool)) continue;
          if (local.limit !== undefined && count >= local.limit) break;
          count++;
          if (options.json) await writeLine(ctx.io.stdout, JSON.stringify(transition));
          else rows.push(...tableRows(transition));
        }
        if (count === 0 && local.stream !== undefined && (await isUnknownStream(store, local.stream))) {
          ctx.io.stderr.write(`stateflow: ${unknownStreamMessage(local.stream)}\n`);
        }
        if (!options.json) {
          ctx.io.stdout.write(
            count === 0 ? 'No transitions match.\n' : `${table(['SEQ', 'TIME', 'WRITER', 'STREAM', 'REV', 'PATCH'], rows)}\n`,
          );
        }
      });
    });
}

function tableRows(transition: Transition): string[][] {
  return transition.changes.map((change, i) => [
    i === 0 ? String(transition.seq) : '',
    i === 0 ? transition.time : '',
    i === 0 ? writerLabel(transition) : '',
    change.stream,
    String(change.rev),
    clip(JSON.stringify(change.patch), PATCH_COLUMN),
  ]);
}
