/**
 * A retention run (README "Retention"): apply the declared policies (`retention.ts`) to every
 * stream they govern, or with `dryRun` only report what a run would remove. A run writes nothing
 * but ordinary store operations — a compaction per stream (`Store.compact`: the hash chain stays
 * verifiable across its pruned stubs, tagged revisions stay) and, for a stream idle past its
 * policy's `idleMs`, first one transition that clears its state (meta `{ retention: { expired } }`)
 * — so it works over any {@link Store} and the store stays writable meanwhile.
 */
import { StateflowError, isStateflowError } from '@stateflow/core';
import type { JsonObject } from '@stateflow/core';
import { DECLARATION_STREAMS } from './declarations.js';
import { policiesOf } from './internal/retention-declarations.js';
import { bytesBelow, planRetention, runPace } from './internal/retention-plan.js';
import type { StreamPlan } from './internal/retention-plan.js';
import { compareFamilies } from './stream-family.js';
import { listArchives } from './archive.js';
import { archiveRecordOf } from './internal/archive-declarations.js';
import type { ArchiveRange, ArchiveRecord } from './internal/archive-declarations.js';
import { archiveName, writeArchive } from './internal/archive-file.js';
import { retryOnConflict } from './conflict-retry.js';
import type { Store, StreamId } from './types.js';

/** Options of {@link retain}. */
export interface RetainOptions {
  /** Report what a run would remove and write nothing (default `false`). */
  dryRun?: boolean;
  /** The time policies are applied as of (default: now); ms since the epoch or a Date. */
  now?: number | Date;
  /** Metadata of the transitions that clear expired streams and record the archive, beside `retention`. */
  meta?: JsonObject;
  /**
   * First write what the run removes to this file (JSON Lines, created, never overwritten; its
   * base name is the archive's name) and record it on `stateflow:archives`: README "Retention".
   * Ignored by a dry run.
   */
  archive?: string;
}

/** What a run removed (or, dry, would remove) of one stream. */
export interface RetainedStream {
  stream: StreamId;
  /** The pattern of the policy that governs it. */
  family: string;
  /** Its head revision before the run. */
  rev: number;
  /** Its origin before the run. */
  fromOrigin: number;
  /** Its origin after the run: the oldest revision readable (`rev + 1` when it expired). */
  origin: number;
  /** Revisions no longer readable: `origin − fromOrigin`. */
  revisions: number;
  /** UTF-8 bytes (JSON) of the net patches no longer stored. */
  bytes: number;
  /** Whether it was idle past the policy's `idleMs`, so its state was cleared. */
  expired: boolean;
}

/** Totals of removal: streams with anything removed, revisions, bytes. */
export interface RetentionTotals {
  streams: number;
  revisions: number;
  bytes: number;
}

/** Report of {@link retain}. */
export interface RetainReport {
  dryRun: boolean;
  /** The time applied, ISO 8601. */
  now: string;
  /**
   * Per declared policy, in precedence order: what the run removed (or would remove) and, in
   * `kept`, what its streams hold after it — the streams that still have a state, their readable
   * revisions above the origin and those revisions' net-patch bytes (what `/metrics` shows per family).
   */
  families: (RetentionTotals & { pattern: string; kept: RetentionTotals })[];
  total: RetentionTotals;
  /** Every stream with something removed, sorted by id. */
  streams: RetainedStream[];
  /** The archive written and recorded (with `archive`, when there was anything to remove), else `null`. */
  archive: (ArchiveRecord & { name: string }) | null;
}

/**
 * Apply every retention policy: per governed stream, the origin moves to the highest one a limit
 * asks for (`maxRevisions`: head − N + 1; `maxAgeMs`: the last revision older than now − age;
 * `maxBytes`: the newest revisions whose patches fit), never past a tagged revision; a stream
 * idle past `idleMs` is first cleared (one transition, `expected` its head: a stream written
 * meanwhile is left alone). With `dryRun`, nothing is written and the report says what a run
 * would do.
 * With `archive`, what the run removes is first written to that file and recorded.
 * @throws what `Store.compact` and `Store.publish` throw (STORE_CLOSED, STORE_IO, …); a run
 *   stopped by one leaves the streams done so far compacted (each compaction is atomic);
 *   INPUT_INVALID `{ field: 'archive' }` and STORE_IO from writing the archive, before anything is removed.
 */
export async function retain(store: Store, options: RetainOptions = {}): Promise<RetainReport> {
  const now = options.now === undefined ? Date.now() : typeof options.now === 'number' ? options.now : options.now.getTime();
  const policies = policiesOf(await store.state(DECLARATION_STREAMS.retention)).sort((a, b) => compareFamilies(a.family, b.family));
  const all = await planRetention(store, policies, now);
  const plans = all.filter((plan) => plan.origin > plan.head.origin);
  const archive = options.archive === undefined || options.dryRun === true ? null : await archiveFirst(store, plans, options.archive, now, options.meta);
  const streams: RetainedStream[] = [];
  const pace = runPace();
  for (const plan of plans) {
    await pace.pace();
    const origin = options.dryRun === true ? plan.origin : await applyPlan(store, plan, options.meta);
    if (origin <= plan.head.origin) continue;
    const { stream, family, head, expired } = plan;
    streams.push({ stream, family, rev: head.rev, fromOrigin: head.origin, origin, revisions: origin - head.origin, bytes: bytesBelow(plan, origin), expired: expired && origin > head.rev });
  }
  // The removed keys' space comes back now, not in the backend's own time.
  if (options.dryRun !== true && streams.length > 0) await store.reclaimSpace?.();
  const kept = keptOf(all, streams);
  const families = policies.map(({ family }) => ({ pattern: family.pattern, ...totals(streams.filter((s) => s.family === family.pattern)), kept: kept.get(family.pattern) ?? { streams: 0, revisions: 0, bytes: 0 } }));
  return { dryRun: options.dryRun === true, now: new Date(now).toISOString(), families, total: totals(streams), streams, archive };
}

/**
 * Write the archive of what `plans` remove to `file` and record it on `stateflow:archives`;
 * `null` (no file) when they remove nothing.
 * @throws INPUT_INVALID `{ field: 'archive', reason: 'name' | 'exists' }` before anything is written;
 *   STORE_IO when the file exists or cannot be written
 */
async function archiveFirst(store: Store, plans: StreamPlan[], file: string, now: number, meta: JsonObject | undefined): Promise<(ArchiveRecord & { name: string }) | null> {
  const name = archiveName(file);
  if ((await listArchives(store))[name] !== undefined) {
    throw new StateflowError('INPUT_INVALID', `The store already records an archive ${name}: name the archive file of each run differently`, { field: 'archive', reason: 'exists' });
  }
  // The name's grammar, checked before the file is written.
  archiveRecordOf(name, { digest: '0'.repeat(64), bytes: 0, streams: {}, seqs: { from: 0, to: 0 }, transitions: 0 });
  if (plans.length === 0) return null;
  const streams = new Map<StreamId, { range: ArchiveRange; seqs: number[] }>();
  for (const plan of plans) {
    const to = Math.min(plan.origin, plan.head.rev);
    streams.set(plan.stream, { range: { from: plan.head.origin, to }, seqs: plan.facts.filter((f) => f.rev <= to).map((f) => f.seq) });
  }
  const record = await writeArchive(store, file, new Date(now).toISOString(), streams);
  await retryOnConflict({ attempts: 5 }, async () => {
    const head = await store.head(DECLARATION_STREAMS.archives);
    await store.publish({ changes: { [DECLARATION_STREAMS.archives]: { [name]: { ...record } } }, expected: { [DECLARATION_STREAMS.archives]: head.rev }, meta: { ...meta, retention: { archive: name } } });
  });
  return { name, ...record };
}

/** Clear an expired stream (unless written meanwhile), then compact it to the planned origin; the origin reached. */
async function applyPlan(store: Store, plan: StreamPlan, meta: JsonObject | undefined): Promise<number> {
  if (plan.expired) {
    const state = await store.state(plan.stream);
    const clear = Object.fromEntries(Object.keys(state).map((key) => [key, null]));
    try {
      await store.publish({ changes: { [plan.stream]: clear }, expected: { [plan.stream]: plan.head.rev }, meta: { ...meta, retention: { expired: plan.family } } });
    } catch (err) {
      if (!isStateflowError(err, 'CONFLICT')) throw err;
      // Written since the plan: no longer idle, so left alone until the next run.
      return plan.head.origin;
    }
  }
  const head = await store.head(plan.stream);
  return (await store.compact(plan.stream, { keepRevisions: Math.max(1, head.rev - plan.origin + 1) })).origin;
}

/** Per family, what its governed streams hold after the run (`removed`: what it removed of each). */
function keptOf(plans: StreamPlan[], removed: RetainedStream[]): Map<string, RetentionTotals> {
  const origins = new Map(removed.map((s) => [s.stream, s]));
  const out = new Map<string, RetentionTotals>();
  for (const plan of plans) {
    const done = origins.get(plan.stream);
    const origin = done?.origin ?? plan.head.origin;
    const family = out.get(plan.family) ?? { streams: 0, revisions: 0, bytes: 0 };
    if (done?.expired !== true) family.streams++;
    for (const fact of plan.facts) {
      if (fact.rev <= origin) continue;
      family.revisions++;
      family.bytes += fact.bytes;
    }
    out.set(plan.family, family);
  }
  return out;
}

function totals(streams: RetainedStream[]): RetentionTotals {
  let revisions = 0;
  let bytes = 0;
  for (const s of streams) {
    revisions += s.revisions;
    bytes += s.bytes;
  }
  return { streams: streams.length, revisions, bytes };
}
