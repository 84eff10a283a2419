/**
 * `stateflow tag set NAME [--seq N | --stream S --rev R] [--move]`, `tag list`, `tag rm NAME`: name
 * a point of the history (store README "Tags"). A tag is a transition on the declaration stream
 * `stateflow:tags`; compaction and retention keep tagged revisions; `read`, `show`, `diff`, `log`
 * and `undo` take a tag where they take a revision or seq.
 */
import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import type { TagTarget } from '@stateflow/store';
import type { CommandContext } from '../command-context.js';
import { nonNegativeInt } from '../internal/arguments.js';
import { emit, table } from '../internal/output.js';
import { describePublish } from '../internal/publish-summary.js';
import { withStore } from '../internal/store-access.js';

interface SetFlags {
  seq?: number;
  stream?: string;
  rev?: number;
  move?: boolean;
}

/** The target `tag set` names: a seq (default the last), or a stream's revision. */
function targetOf(flags: SetFlags): TagTarget {
  if ((flags.stream === undefined) !== (flags.rev === undefined)) throw new InvalidArgumentError('--stream and --rev go together: a tag on a revision names both.');
  if (flags.stream !== undefined && flags.seq !== undefined) throw new InvalidArgumentError('a tag names a seq (--seq) or a revision (--stream, --rev), not both.');
  if (flags.stream !== undefined) return { stream: flags.stream, rev: flags.rev as number };
  return flags.seq === undefined ? {} : { seq: flags.seq };
}

/** Register `tag` and its subcommands. */
export function registerTagCommand(program: Command, ctx: CommandContext): void {
  const tag = program.command('tag').description('name a point of the history (a seq or a stream revision): tag set | list | rm');
  tag
    .command('set')
    .description('declare a tag at a seq (default the last) or a stream revision')
    .argument('<name>', 'the tag: [A-Za-z][A-Za-z0-9_.-]*, at most 128 characters')
    .option('--seq <n>', 'the global seq it names', nonNegativeInt)
    .option('--stream <id>', 'the stream of the revision it names (with --rev)')
    .option('--rev <n>', 'the revision it names (with --stream)', nonNegativeInt)
    .option('--move', 'move the tag when it exists (its old place stays in the tags’ history)')
    .action(async (name: string, flags: SetFlags, command: Command) => {
      const options = ctx.options(command);
      const target = targetOf(flags);
      const { setTag } = await import('@stateflow/store');
      const { tag: set, result } = await withStore(options, 'existing', (store) => setTag(store, name, target, { move: flags.move === true }));
      const where = set.stream === undefined ? `seq ${set.seq}` : `${set.stream} rev ${set.rev} (seq ${set.seq})`;
      emit(ctx.io, options, { tag: set, result }, () => `tag ${name} → ${where}: ${describePublish(result, 'it already pointed there; nothing published')}`);
    });
  tag
    .command('list')
    .description('list the tags')
    .action(async (_flags: unknown, command: Command) => {
      const options = ctx.options(command);
      const { listTags } = await import('@stateflow/store');
      const tags = await withStore(options, 'existing', (store) => listTags(store));
      emit(ctx.io, options, { tags }, () =>
        tags.length === 0 ? 'no tags (stateflow tag set NAME names the last seq)' : table(['TAG', 'SEQ', 'STREAM', 'REV'], tags.map((t) => [t.name, String(t.seq), t.stream ?? '-', t.rev === undefined ? '-' : String(t.rev)])),
      );
    });
  tag
    .command('rm')
    .description('remove a tag (its history keeps it)')
    .argument('<name>', 'the tag')
    .action(async (name: string, _flags: unknown, command: Command) => {
      const options = ctx.options(command);
      const { removeTag } = await import('@stateflow/store');
      const result = await withStore(options, 'existing', (store) => removeTag(store, name));
      emit(ctx.io, options, result, () => `removed tag ${name}: ${describePublish(result, '')}`);
    });
}
