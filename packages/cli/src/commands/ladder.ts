/**
 * `stateflow ladder validate <file>` and `stateflow ladder run <file> --input TEXT [--session ID]
 * --model scripted:<file.jsonl> | openai:<model>` (slates README "API"), through
 * `@stateflow/slates`.
 */
import path from 'node:path';
import type { Command } from 'commander';
import type { CommandContext } from '../command-context.js';
import { emit } from '../internal/output.js';
import { withStore } from '../internal/store-access.js';
import { ExitCode } from '../exit-codes.js';

interface RunOptions {
  input: string;
  model: string;
}

/** Register `ladder validate` and `ladder run`. */
export function registerLadderCommand(program: Command, ctx: CommandContext): void {
  const ladder = program.command('ladder').description('validate or run a ladder config (YAML or JSON)');

  ladder
    .command('validate')
    .description('check a ladder config; prints every problem on its own line, exit 2 when there is any')
    .argument('<file>', 'ladder config file')
    .action(async (file: string, _local: unknown, command: Command) => {
      const options = ctx.options(command);
      const { validateLadderFile } = await import('@stateflow/slates');
      const problems = await validateLadderFile(path.resolve(ctx.io.cwd, file));
      emit(ctx.io, options, { problems }, () => (problems.length === 0 ? `${file}: valid` : problems.join('\n')));
      if (problems.length > 0) ctx.exitCode = ExitCode.USAGE;
    });

  ladder
    .command('run')
    .description('run a ladder once; with the global --session ID its slate writes persist in the store as one transition')
    .argument('<file>', 'ladder config file')
    .requiredOption('--input <text>', "the call's input (input.context)")
    .requiredOption('--model <spec>', 'scripted:<file.jsonl> (one {"content": …} per model call) or openai:<model>')
    .action(async (file: string, local: RunOptions, command: Command) => {
      const options = ctx.options(command);
      // The global --session names the ladder session (stream slate:<ladder>:<session>).
      const session = options.selection.session;
      const slates = await import('@stateflow/slates');
      const config = await slates.loadLadderFile(path.resolve(ctx.io.cwd, file));
      const model = await slates.modelFromSpec(local.model, { cwd: ctx.io.cwd, env: ctx.io.env });
      const result = await withStore(options, 'create', async (store) =>
        slates.runLadder({
          store,
          ladder: config,
          input: local.input,
          model,
          ...(session === undefined ? {} : { session }),
        }),
      );
      const { output, transition, evicted, refused } = result;
      // An aborted run says so (outcome "aborted", where, and why), never just `output: null`.
      const outcome = slates.runOutcome(result);
      const ended = outcome.kind === 'aborted' ? { outcome: 'aborted', aborted: { ...outcome.aborted, message: outcome.message } } : { outcome: 'completed' };
      emit(ctx.io, options, { ...ended, output, transition, slates: result.slates, evicted, refused }, () =>
        [
          outcome.kind === 'aborted' ? `(aborted) ${outcome.message}` : (output ?? '(no output)'),
          '',
          transition === null ? 'slates (nothing published):' : `slates (transition ${transition}):`,
          JSON.stringify(result.slates, null, 2),
          ...evicted.map((entry) => `evicted: ${JSON.stringify(entry)}`),
          ...refused.map((entry) => `refused: ${JSON.stringify(entry)}`),
        ].join('\n'),
      );
    });
}
