/**
 * A retention run (README "Retention"): apply the declared policies (`retention.ts`) to every
 * stream they govern, or with `dryRun` only report what a run would remove. A run writes nothing
 * but ordinary store operations — a compaction per stream (`Store.compact`: the hash chain stays
 * verifiable across its pruned stubs, tagged revisions stay) and, for a stream idle past its
 * policy's `idleMs`, first one transition that clears its state (meta `{ retention: { expired } }`)
 * — so it works over any {@link Store} and the store stays writable meanwhile.
 */
import { isStateflowError } from '@stateflow/core';
import type { JsonObject } from '@stateflow/core';
import { DECLARATION_STREAMS } from './declarations.js';
import { policiesOf } from './internal/retention-declarations.js';
import { bytesBelow, planRetention } from './internal/retention-plan.js';
import type { StreamPlan } from './internal/retention-plan.js';
import { compareFamilies } from './stream-family.js';
import type { Store, StreamId } from './types.js';

/** Options of {@link retain}. */
export interface RetainOptions {
  /** Report what a run would remove and write nothing (default `false`). */
  dryRun?: boolean;
  /** The time policies are applied as of (default: now); ms since the epoch or a Date. */
  now?: number | Date;
  /** Metadata of the transitions that clear expired streams, beside `retention`. */
  meta?: JsonObject;
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
  /** Per declared policy, in precedence order. */
  families: (RetentionTotals & { pattern: string })[];
  total: RetentionTotals;
  /** Every stream with something removed, sorted by id. */
  streams: RetainedStream[];
}

/**
 * Apply every retention policy: per governed stream, the origin moves to the highest one a limit
 * asks for (`maxRevisions`: head − N + 1; `maxAgeMs`: the last revision older than now − age;
 * `maxBytes`: the newest revisions whose patches fit), never past a tagged revision; a stream
 * idle past `idleMs` is first cleared (one transition, `expected` its head: a stream written
 * meanwhile is left alone). With `dryRun`, nothing is written and the report says what a run
 * would do.
 * @throws what `Store.compact` and `Store.publish` throw (STORE_CLOSED, STORE_IO, …); a run
 *   stopped by one leaves the streams done so far compacted (each compaction is atomic).
 */
export async function retain(store: Store, options: RetainOptions = {}): Promise<RetainReport> {
  const now = options.now === undefined ? Date.now() : typeof options.now === 'number' ? options.now : options.now.getTime();
  const policies = policiesOf(await store.state(DECLARATION_STREAMS.retention)).sort((a, b) => compareFamilies(a.family, b.family));
  const plans = await planRetention(store, policies, now);
  const streams: RetainedStream[] = [];
  for (const plan of plans) {
    if (plan.origin <= plan.head.origin) continue;
    const origin = options.dryRun === true ? plan.origin : await applyPlan(store, plan, options.meta);
    if (origin <= plan.head.origin) continue;
    const { stream, family, head, expired } = plan;
    streams.push({ stream, family, rev: head.rev, fromOrigin: head.origin, origin, revisions: origin - head.origin, bytes: bytesBelow(plan, origin), expired: expired && origin > head.rev });
  }
  const families = policies.map(({ family }) => ({ pattern: family.pattern, ...totals(streams.filter((s) => s.family === family.pattern)) }));
  return { dryRun: options.dryRun === true, now: new Date(now).toISOString(), families, total: totals(streams), streams };
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

function totals(streams: RetainedStream[]): RetentionTotals {
  let revisions = 0;
  let bytes = 0;
  for (const s of streams) {
    revisions += s.revisions;
    bytes += s.bytes;
  }
  return { streams: streams.length, revisions, bytes };
}
