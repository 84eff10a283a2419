/**
 * `stateflow merge <from> <into> [--prefer ours|theirs] [--resolve PATH=VALUE]… [--dry-run]`:
 * bring what `from` changed since the two streams' merge base into `into`, as one transition
 * (store `merge`). Open conflicts are printed as a table in the manner of `git status` and end
 * the run with the conflict exit code (4), whether they refused a merge (`MERGE_CONFLICT`) or a
 * dry run shows them.
 */
import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { isStateflowError } from '@stateflow/core';
import type { MergeResolution } from '@stateflow/core';
import { resolutionValue } from '../internal/resolution-value.js';
import type { MergeInput } from '@stateflow/store';
import type { CommandContext } from '../command-context.js';
import { exitCodeFor } from '../exit-codes.js';
import { describePublish } from '../internal/publish-summary.js';
import { requireKnownStream } from '../internal/known-stream.js';
import { emit } from '../internal/output.js';
import { mergeReport } from '../internal/merge-report.js';
import { withStore } from '../internal/store-access.js';

interface MergeFlags {
  prefer?: 'ours' | 'theirs';
  resolve: Record<string, MergeResolution>;
  dryRun?: boolean;
}

/** `ours` or `theirs`. */
function side(value: string): 'ours' | 'theirs' {
  if (value !== 'ours' && value !== 'theirs') throw new InvalidArgumentError('expected ours (keep <into>) or theirs (take <from>).');
  return value;
}

/**
 * One `--resolve PATH=VALUE`, added to those before it: PATH is a conflict's RFC 6901 pointer as
 * the table prints it (it ends at the first `=`), VALUE is `ours`, `theirs` or any JSON value
 * (`null` deletes the path; the string "ours" is `'"ours"'`).
 */
function resolution(text: string, previous: Record<string, MergeResolution>): Record<string, MergeResolution> {
  const at = text.indexOf('=');
  if (at < 1 || !text.startsWith('/')) throw new InvalidArgumentError('expected PATH=VALUE with PATH a conflict path as the table prints it (/a/b).');
  const path = text.slice(0, at);
  const raw = text.slice(at + 1);
  if (Object.hasOwn(previous, path)) throw new InvalidArgumentError(`${path} is resolved twice.`);
  const value = resolutionValue(raw, path);
  return Object.defineProperty({ ...previous }, path, { value, enumerable: true, writable: true, configurable: true });
}

/** Register `merge`. */
export function registerMergeCommand(program: Command, ctx: CommandContext): void {
  program
    .command('merge')
    .description("bring what <from> changed since its merge base with <into> into <into>, as one transition (a three-way merge; conflicts exit 4)")
    .argument('<from>', 'the stream whose changes are brought in ("theirs")')
    .argument('<into>', 'the stream that receives them ("ours")')
    .option('--prefer <side>', 'settle every conflict --resolve does not name: ours (keep <into>) or theirs (take <from>)', side)
    .option('--resolve <path=value>', 'settle one conflict: its path as the table prints it = ours, theirs or a JSON value (null deletes); repeat for more', resolution, {})
    .option('--dry-run', 'print what the merge would publish and its conflicts; publish nothing')
    .action(async (from: string, into: string, local: MergeFlags, command: Command) => {
      const options = ctx.options(command);
      const input: MergeInput = { from, into, ...(local.prefer === undefined ? {} : { prefer: local.prefer }), ...(local.dryRun === true ? { dryRun: true } : {}) };
      if (Object.keys(local.resolve).length > 0) input.resolve = local.resolve;
      let result;
      try {
        result = await withStore(options, 'existing', async (store) => {
          await requireKnownStream(store, from);
          await requireKnownStream(store, into);
          return store.merge(input);
        });
      } catch (err) {
        // The table first (on stdout, where `git status` prints it), then the one error line.
        if (!options.json && isStateflowError(err, 'MERGE_CONFLICT')) ctx.io.stdout.write(mergeReport({ ...err.details, patch: null }));
        throw err;
      }
      if (result.status === 'duplicate') {
        emit(ctx.io, options, result, () => `merged ${from} into ${into} before with this id: ${describePublish(result, '')}`);
        return;
      }
      if (result.status === 'preview') {
        emit(ctx.io, options, result, () => mergeReport(result).trimEnd());
        if (result.conflicts.some((c) => c.resolution === undefined)) ctx.exitCode = exitCodeFor('MERGE_CONFLICT');
        return;
      }
      const what = `merged ${from} rev ${result.fromRev} into ${into} (merge base ${result.base.stream}@${result.base.rev})`;
      const settled = result.conflicts.length === 0 ? '' : `; ${result.conflicts.length} conflict${result.conflicts.length === 1 ? '' : 's'} resolved`;
      emit(ctx.io, options, result, () => `${what}: ${describePublish(result, `${into} already holds every change; nothing published`)}${settled}`);
    });
}
