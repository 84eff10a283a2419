/**
 * `stateflow undo --writer FIELD=VALUE[,…] --since SEQ|TIME|TAG [--stream S]… [--prefer ours|theirs]
 * [--resolve STREAM#PATH=VALUE]… [--dry-run]`: remove the effects of one writer's transitions
 * since a point as one transition (store `undo`). Open conflicts are printed as a table, as
 * `merge` prints them, and end the run with the conflict exit code (4), whether they refused an
 * undo (`UNDO_CONFLICT`) or a dry run shows them.
 */
import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { WRITER_MATCH_FIELDS, isStateflowError, isTagName } from '@stateflow/core';
import type { MergeResolution, WriterMatch } from '@stateflow/core';
import { resolutionValue } from '../internal/resolution-value.js';
import type { UndoInput, UndoSince } from '@stateflow/store';
import type { CommandContext } from '../command-context.js';
import { exitCodeFor } from '../exit-codes.js';
import { describePublish } from '../internal/publish-summary.js';
import { emit } from '../internal/output.js';
import { undoReport } from '../internal/undo-report.js';
import { withStore } from '../internal/store-access.js';

interface UndoFlags {
  writer: WriterMatch;
  since: UndoSince;
  stream: string[];
  prefer?: 'ours' | 'theirs';
  resolve: Record<string, Record<string, MergeResolution>>;
  dryRun?: boolean;
}

/** `user=agent-7,surface=mcp-http`; a bare value is the user. */
export function writerSpec(text: string): WriterMatch {
  const match: WriterMatch = {};
  for (const part of text.split(',')) {
    const at = part.indexOf('=');
    const [field, value] = at === -1 ? ['user', part] : [part.slice(0, at), part.slice(at + 1)];
    if (!(WRITER_MATCH_FIELDS as readonly string[]).includes(field) || value === '') {
      throw new InvalidArgumentError(`expected FIELD=VALUE[,FIELD=VALUE…] with FIELD one of ${WRITER_MATCH_FIELDS.join(', ')} (a bare value is the user), got ${JSON.stringify(part)}.`);
    }
    match[field as keyof WriterMatch] = value;
  }
  return match;
}

/** A seq (digits), an ISO 8601 time (starts with a digit), or a tag (starts with a letter). */
export function sinceSpec(text: string): UndoSince {
  if (/^(0|[1-9][0-9]*)$/.test(text)) return Number(text);
  if (isTagName(text)) return { tag: text };
  if (/^[0-9]/.test(text) && !Number.isNaN(Date.parse(text))) return { time: text };
  throw new InvalidArgumentError('expected a seq (12), an ISO 8601 time (2026-12-02T10:00:00Z) or a tag (before-cleanup).');
}

/** One `--resolve STREAM#PATH=VALUE`: the stream and the conflict path as the table prints them. */
function resolution(text: string, previous: Record<string, Record<string, MergeResolution>>): Record<string, Record<string, MergeResolution>> {
  const hash = text.indexOf('#/');
  const at = text.indexOf('=', hash);
  if (hash < 1 || at === -1) throw new InvalidArgumentError('expected STREAM#PATH=VALUE, as in global#/plan=theirs (the stream and the path as the table prints them).');
  const [stream, path, raw] = [text.slice(0, hash), text.slice(hash + 1, at), text.slice(at + 1)];
  const value = resolutionValue(raw, `${stream}#${path}`);
  const paths = { ...previous[stream] };
  if (Object.hasOwn(paths, path)) throw new InvalidArgumentError(`${stream}#${path} is resolved twice.`);
  Object.defineProperty(paths, path, { value, enumerable: true, writable: true, configurable: true });
  return Object.defineProperty({ ...previous }, stream, { value: paths, enumerable: true, writable: true, configurable: true });
}

/** `ours` or `theirs`. */
function side(value: string): 'ours' | 'theirs' {
  if (value !== 'ours' && value !== 'theirs') throw new InvalidArgumentError('expected ours (keep the later writes) or theirs (as before the undone writes).');
  return value;
}

/** Register `undo`. */
export function registerUndoCommand(program: Command, ctx: CommandContext): void {
  program
    .command('undo')
    .description("remove the effects of one writer's transitions since a seq, time or tag, as one transition (conflicts exit 4)")
    .requiredOption('--writer <spec>', `whose writes: FIELD=VALUE[,…] with FIELD ${WRITER_MATCH_FIELDS.join(', ')} (a bare value is the user)`, writerSpec)
    .requiredOption('--since <point>', 'after this seq, from this ISO 8601 time, or after this tag', sinceSpec)
    .option('--stream <id>', 'only this stream (repeat for more; default every stream the writer changed)', (s: string, all: string[]) => [...all, s], [])
    .option('--prefer <side>', 'settle every conflict --resolve does not name: ours (keep the later writes) or theirs (as before the undone writes)', side)
    .option('--resolve <stream#path=value>', 'settle one conflict: STREAM#PATH as the table prints them = ours, theirs or a JSON value (null deletes); repeat for more', resolution, {})
    .option('--dry-run', 'print what the undo would publish and its conflicts; publish nothing')
    .action(async (local: UndoFlags, command: Command) => {
      const options = ctx.options(command);
      const input: UndoInput = { writer: local.writer, since: local.since };
      if (local.stream.length > 0) input.streams = local.stream;
      if (local.prefer !== undefined) input.prefer = local.prefer;
      if (Object.keys(local.resolve).length > 0) input.resolve = local.resolve;
      if (local.dryRun === true) input.dryRun = true;
      let result;
      try {
        result = await withStore(options, 'existing', (store) => store.undo(input));
      } catch (err) {
        if (!options.json && isStateflowError(err, 'UNDO_CONFLICT')) ctx.io.stdout.write(undoReport({ ...err.details, writer: local.writer, patches: null }));
        throw err;
      }
      if (result.status === 'duplicate') {
        emit(ctx.io, options, result, () => `undone before with this id: ${describePublish(result, '')}`);
        return;
      }
      if (result.status === 'preview') {
        emit(ctx.io, options, result, () => undoReport(result).trimEnd());
        if (result.conflicts.some((c) => c.resolution === undefined)) ctx.exitCode = exitCodeFor('UNDO_CONFLICT');
        return;
      }
      const what = `undid ${result.undone.length} transition${result.undone.length === 1 ? '' : 's'} after seq ${result.since}`;
      const settled = result.conflicts.length === 0 ? '' : `; ${result.conflicts.length} conflict${result.conflicts.length === 1 ? '' : 's'} resolved`;
      emit(ctx.io, options, result, () => `${what}: ${describePublish(result, 'nothing of theirs is left to undo; nothing published')}${settled}`);
    });
}
