/**
 * `stateflow audit`: replay and verify every stream, the hash chain, every checkpoint and head
 * (DESIGN.md "Tamper evidence"). Exit 0 when clean, 5 with every problem listed. `--archive FILE`
 * verifies a retention archive against the store instead (store README "Retention").
 */
import type { Command } from 'commander';
import type { AuditReport } from '@stateflow/store';
import type { CommandContext } from '../command-context.js';
import type { GlobalOptions } from '../global-options.js';
import { count, emit } from '../internal/output.js';
import { withProgress } from '../internal/progress.js';
import { withStore } from '../internal/store-access.js';
import { ExitCode } from '../exit-codes.js';

/** Register `audit`. */
export function registerAuditCommand(program: Command, ctx: CommandContext): void {
  program
    .command('audit')
    .description('verify the whole store by replay; exit 0 when clean, 5 when problems are found')
    .option('--archive <file>', 'verify a retention archive against the store instead (store README "Retention")')
    .action(async (local: { archive?: string }, command: Command) => {
      const options = ctx.options(command);
      if (local.archive !== undefined) return auditArchiveFile(ctx, options, local.archive);
      const report = await withProgress(ctx.io, 'audit', (progress) =>
        withStore(options, 'existing', (store) => store.audit({ onProgress: (done, total) => progress.update(done, total) })),
      );
      emit(ctx.io, options, report, () => describeAudit(report));
      if (report.problems.length > 0) ctx.exitCode = ExitCode.CORRUPT;
    });
}

async function auditArchiveFile(ctx: CommandContext, options: GlobalOptions, file: string): Promise<void> {
  const { auditArchive } = await import('@stateflow/store');
  const report = await withStore(options, 'existing', (store) => auditArchive(store, file));
  emit(ctx.io, options, report, () => {
    const summary = `archive ${report.name}: ${count(report.transitions, 'transition')}, ${count(Object.keys(report.streams).length, 'stream')}`;
    if (report.problems.length === 0) return `${summary}: clean`;
    return [`${summary}: ${count(report.problems.length, 'problem')}`, ...report.problems.map((p) => `  ${p.code}: ${p.detail}`)].join('\n');
  });
  if (report.problems.length > 0) ctx.exitCode = ExitCode.CORRUPT;
}

function describeAudit(report: AuditReport): string {
  const summary = `audited ${count(report.transitions, 'transition')}, ${count(report.streams, 'stream')}, ${count(report.checkpoints, 'checkpoint')}`;
  if (report.problems.length === 0) return `${summary}: clean`;
  const lines = report.problems.map(
    (p) => `  ${p.code}${p.stream === undefined ? '' : ` ${p.stream}`}${p.key === undefined ? '' : ` ${p.key}`}: ${p.detail}`,
  );
  return [`${summary}: ${count(report.problems.length, 'problem')}`, ...lines].join('\n');
}
