/**
 * `stateflow audit`: replay and verify every stream, the hash chain, every checkpoint and head
 * (DESIGN.md "Tamper evidence"). Exit 0 when clean, 5 with every problem listed.
 */
import type { Command } from 'commander';
import type { AuditReport } from '@stateflow/store';
import type { CommandContext } from '../command-context.js';
import { count, emit } from '../internal/output.js';
import { withProgress } from '../internal/progress.js';
import { withStore } from '../internal/store-access.js';
import { ExitCode } from '../exit-codes.js';

/** Register `audit`. */
export function registerAuditCommand(program: Command, ctx: CommandContext): void {
  program
    .command('audit')
    .description('verify the whole store by replay; exit 0 when clean, 5 when problems are found')
    .action(async (_local: unknown, command: Command) => {
      const options = ctx.options(command);
      const report = await withProgress(ctx.io, 'audit', (progress) =>
        withStore(options, 'existing', (store) => store.audit({ onProgress: (done, total) => progress.update(done, total) })),
      );
      emit(ctx.io, options, report, () => describeAudit(report));
      if (report.problems.length > 0) ctx.exitCode = ExitCode.CORRUPT;
    });
}

function describeAudit(report: AuditReport): string {
  const summary = `audited ${count(report.transitions, 'transition')}, ${count(report.streams, 'stream')}, ${count(report.checkpoints, 'checkpoint')}`;
  if (report.problems.length === 0) return `${summary}: clean`;
  const lines = report.problems.map(
    (p) => `  ${p.code}${p.stream === undefined ? '' : ` ${p.stream}`}${p.key === undefined ? '' : ` ${p.key}`}: ${p.detail}`,
  );
  return [`${summary}: ${count(report.problems.length, 'problem')}`, ...lines].join('\n');
}
