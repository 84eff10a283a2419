/**
 * `stateflow retain set <pattern> [--max-age 7d] [--max-revisions N] [--max-bytes 10MB] [--idle 30d]`,
 * `retain rm <pattern>`, `retain list`, `retain run [--dry-run] [--archive FILE]`: retention
 * policies per stream family and a run that applies them (store README "Retention"). A policy is
 * a transition on `stateflow:retention`; a run compacts each governed stream (and clears those
 * idle past their TTL), first writing what it removes to `--archive FILE` when given.
 */
import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import type { RetainReport, RetentionDeclaration, RetentionPolicy } from '@stateflow/store';
import type { CommandContext } from '../command-context.js';
import { byteSize, duration, formatDuration, positiveInt } from '../internal/arguments.js';
import { count, emit, table } from '../internal/output.js';
import { describePublish } from '../internal/publish-summary.js';
import { withStore } from '../internal/store-access.js';

interface SetFlags {
  maxAge?: number;
  maxRevisions?: number;
  maxBytes?: number;
  idle?: number;
}

const age = duration({ allowZero: false, allowForever: false });

/** The policy `retain set` declares. */
function policyOf(flags: SetFlags): RetentionPolicy {
  const policy: RetentionPolicy = {};
  if (flags.maxAge !== undefined) policy.maxAgeMs = flags.maxAge;
  if (flags.maxRevisions !== undefined) policy.maxRevisions = flags.maxRevisions;
  if (flags.maxBytes !== undefined) policy.maxBytes = flags.maxBytes;
  if (flags.idle !== undefined) policy.idleMs = flags.idle;
  if (Object.keys(policy).length === 0) throw new InvalidArgumentError('give at least one limit: --max-age, --max-revisions, --max-bytes or --idle.');
  return policy;
}

/** One policy's limits as typed: `max-age 7d, idle 30d`. */
export function describePolicy(p: RetentionDeclaration | RetentionPolicy): string {
  const parts: string[] = [];
  if (p.maxAgeMs !== undefined) parts.push(`max-age ${formatDuration(p.maxAgeMs)}`);
  if (p.maxRevisions !== undefined) parts.push(`max-revisions ${p.maxRevisions}`);
  if (p.maxBytes !== undefined) parts.push(`max-bytes ${p.maxBytes}`);
  if (p.idleMs !== undefined) parts.push(`idle ${formatDuration(p.idleMs)}`);
  return parts.join(', ');
}

/** Register `retain` and its subcommands. */
export function registerRetainCommand(program: Command, ctx: CommandContext): void {
  const retain = program.command('retain').description('retention policies per stream family and a run: retain set | rm | list | run');
  retain
    .command('set')
    .description('declare the retention policy of a stream family (replacing its policy)')
    .argument('<pattern>', 'a stream family: session:*, langgraph:*, cwd:/repo')
    .option('--max-age <duration>', 'keep revisions younger than this (7d, 12h)', age)
    .option('--max-revisions <n>', 'keep at most this many revisions per stream', positiveInt)
    .option('--max-bytes <size>', 'keep at most this many bytes of patches per stream (10MB)', byteSize)
    .option('--idle <duration>', 'drop a stream with no revision for this long (30d)', age)
    .action(async (pattern: string, flags: SetFlags, command: Command) => {
      const options = ctx.options(command);
      const policy = policyOf(flags);
      const { setRetention } = await import('@stateflow/store');
      const result = await withStore(options, 'existing', (store) => setRetention(store, pattern, policy));
      emit(ctx.io, options, { pattern, policy, result }, () => `retention ${pattern}: ${describePolicy(policy)}: ${describePublish(result, 'it already had that policy; nothing published')}`);
    });
  retain
    .command('rm')
    .description('remove the retention policy of a stream family (its history keeps it)')
    .argument('<pattern>', 'the stream family')
    .action(async (pattern: string, _flags: unknown, command: Command) => {
      const options = ctx.options(command);
      const { removeRetention } = await import('@stateflow/store');
      const result = await withStore(options, 'existing', (store) => removeRetention(store, pattern));
      emit(ctx.io, options, result, () => `removed retention ${pattern}: ${describePublish(result, 'there was none; nothing published')}`);
    });
  retain
    .command('list')
    .description('list the retention policies, in precedence order')
    .action(async (_flags: unknown, command: Command) => {
      const options = ctx.options(command);
      const { listRetention } = await import('@stateflow/store');
      const policies = await withStore(options, 'existing', (store) => listRetention(store));
      emit(ctx.io, options, { policies }, () => (policies.length === 0 ? 'no retention policies (stateflow retain set PATTERN --max-age 7d)' : table(['PATTERN', 'POLICY'], policies.map((p) => [p.pattern, describePolicy(p)]))));
    });
  retain
    .command('run')
    .description('apply the retention policies; --dry-run reports what a run would remove and changes nothing')
    .option('--dry-run', 'report, per family and in total, what a run would remove, and write nothing')
    .option('--archive <file>', 'first write what the run removes to FILE (JSON Lines; never overwritten)')
    .action(async (flags: { dryRun?: boolean; archive?: string }, command: Command) => {
      const options = ctx.options(command);
      const { retain: run } = await import('@stateflow/store');
      const report = await withStore(options, 'existing', (store) => run(store, { dryRun: flags.dryRun === true, ...(flags.archive === undefined ? {} : { archive: flags.archive }) }));
      emit(ctx.io, options, report, () => describeRun(report));
    });
}

function describeRun(report: RetainReport): string {
  const verb = report.dryRun ? 'would remove' : 'removed';
  const rows = report.families.map((f) => [f.pattern, String(f.streams), String(f.revisions), String(f.bytes)]);
  rows.push(['total', String(report.total.streams), String(report.total.revisions), String(report.total.bytes)]);
  const lines = [`${report.dryRun ? 'dry run: ' : ''}${verb} ${count(report.total.revisions, 'revision')} of ${count(report.total.streams, 'stream')}`, table(['FAMILY', 'STREAMS', 'REVISIONS', 'BYTES'], rows)];
  if (report.streams.length > 0) {
    lines.push(table(['STREAM', 'REV', 'ORIGIN', 'NEW ORIGIN', 'REVISIONS', 'BYTES'], report.streams.map((s) => [s.stream, String(s.rev), String(s.fromOrigin), s.expired ? `${s.origin} (expired)` : String(s.origin), String(s.revisions), String(s.bytes)])));
  }
  if (report.archive !== null) lines.push(`archived ${count(report.archive.transitions, 'transition')} to ${report.archive.name} (sha256 ${report.archive.digest})`);
  return lines.join('\n');
}
