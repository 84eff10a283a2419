/**
 * `stateflow recover --into NEWDIR`: the operator's way out of a damaged store (store-leveldb
 * README "Recovering a damaged store"). A damaged store does not open and is never recovered in
 * place; this copies it to NEWDIR, lets LevelDB's recovery run on the copy, keeps the intact
 * prefix of the log, audits the copy and names exactly which transitions were lost. The original is only read. Exit 0 when
 * the copy audits clean (whether or not anything was lost: the report says), 5 when it does not.
 */
import path from 'node:path';
import type { Command } from 'commander';
import type { RecoveryReport } from '@stateflow/store-leveldb';
import type { CommandContext } from '../command-context.js';
import { count, emit } from '../internal/output.js';
import { ExitCode } from '../exit-codes.js';
import { withProgress } from '../internal/progress.js';
import { requireNoServer } from '../internal/store-access.js';
import { levelDir } from '../global-options.js';

/** Register `recover`. */
export function registerRecoverCommand(program: Command, ctx: CommandContext): void {
  program
    .command('recover')
    .description('copy a damaged store into a new directory, recover the copy and report the transitions lost (the original is never changed)')
    .requiredOption('--into <dir>', 'new, empty directory for the recovered copy')
    .action(async (local: { into: string }, command: Command) => {
      const options = ctx.options(command);
      // A copy taken while a server writes would not be the store as it stands.
      const dir = levelDir(options, 'recover', 'repair a PostgreSQL store with the database tools (backups, point-in-time recovery).');
      await requireNoServer(dir, 'recover');
      const { recoverStore } = await import('@stateflow/store-leveldb');
      // The store reports no progress of a recovery: the bar shows how long it has run.
      const report = await withProgress(ctx.io, 'recover', () => recoverStore(dir, path.resolve(ctx.io.cwd, local.into)));
      emit(ctx.io, options, report, () => describeRecovery(report));
      if (report.problems.length > 0) ctx.exitCode = ExitCode.CORRUPT;
    });
}

function describeRecovery(r: RecoveryReport): string {
  const lines = [`recovered ${r.from} into ${r.into} (the original was not changed)`];
  for (const d of r.damage) lines.push(`  damage: ${d.file} at byte ${d.offset}: ${d.detail}`);
  lines.push(`  kept: transitions 1–${r.tip} (hash chain verified)`);
  if (r.lost.length === 0) lines.push('  lost: none');
  for (const [first, last] of r.lost) {
    const dropped = r.dropped > 0 ? `; ${count(r.dropped, 'transition')} of them still readable but after a lost one, removed from the copy` : '';
    lines.push(`  lost: transitions ${first}–${last} (${count(last - first + 1, 'transition')}${dropped})`);
  }
  for (const stream of r.streamsRemoved) lines.push(`  removed: stream ${stream} (its retained history begins after the last kept transition)`);
  lines.push(r.problems.length === 0 ? '  audit of the copy: clean' : `  audit of the copy: ${count(r.problems.length, 'problem')}`);
  for (const p of r.problems) lines.push(`    ${p.code}${p.stream === undefined ? '' : ` ${p.stream}`}${p.key === undefined ? '' : ` ${p.key}`}: ${p.detail}`);
  return lines.join('\n');
}
