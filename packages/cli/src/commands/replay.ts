/**
 * `stateflow replay <export.jsonl> --dir NEW` (or `--store postgres://…?schema=new`): rebuild a
 * store from a full export by appending every transition verbatim (same seq, time and hash),
 * verifying each hash, then auditing the result: a replay-based audit that runs on any machine
 * (DESIGN.md "Tamper evidence"). The store is built beside `--dir` (in a staging schema on
 * PostgreSQL) and moved into place only when every hash verified and the audit is clean: a
 * failed replay leaves the target exactly as it was.
 */
import path from 'node:path';
import type { Command } from 'commander';
import type { CommandContext } from '../command-context.js';
import { count, emit } from '../internal/output.js';
import { withProgress } from '../internal/progress.js';

/** Register `replay`. */
export function registerReplayCommand(program: Command, ctx: CommandContext): void {
  program
    .command('replay')
    .description('rebuild a store in --dir or --store (new or empty) from a full export; every hash is verified and the store audited before the target is written')
    .argument('<export>', 'a file written by "stateflow export"')
    .action(async (source: string, _local: unknown, command: Command) => {
      const options = ctx.options(command);
      const { replayExport } = await import('../internal/replay-export.js');
      const file = path.resolve(ctx.io.cwd, source);
      const report = await withProgress(ctx.io, 'replay', (progress) => replayExport(file, options, progress));
      emit(ctx.io, options, report, () =>
        `replayed ${count(report.transitions, 'transition')} into ${report.dir}: every hash verified, last hash ${report.hash}, audit clean`,
      );
    });
}
