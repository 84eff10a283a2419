/**
 * Reads and compactions of the history, and the store as it ends, against the model replayed
 * from the log: a historical read answers the state the model has at that revision; a current
 * read answers a state the stream held at some point between the read's invocation and its
 * answer (no older than what an answer acknowledged before the read began, no newer than what a
 * call invoked before it ended); a compaction's origin is kept; the final store's heads, current
 * states and every retained revision are the model's. Reads in an epoch a power loss cut short
 * are not checked: what they saw may have been lost, as buffered durability allows.
 */
import { isStateflowError, jsonEqual } from '@stateflow/core';
import type { Store, Transition } from '@stateflow/store';
import type { Calls } from './attribution.js';
import { canHaveMade } from './attribution.js';
import type { OpRecord } from './history.js';
import type { StoreOracle } from '../model/oracle.js';
import { STREAMS } from './workload.js';
import type { LostCommits } from './world.js';

/** The window of revisions of `stream` a current read `rec` may answer. */
function window(rec: OpRecord, stream: string, log: readonly Transition[], calls: Calls): { min: number; max: number } {
  let min = 0;
  let max = 0;
  for (const t of log) {
    const change = t.changes.find((c) => c.stream === stream);
    if (change === undefined) continue;
    const makers = calls.candidates(t).filter((m) => canHaveMade(m, t)).map((m) => m.rec);
    if (makers.some((m) => m.outcome.kind === 'ok' && m.completed < rec.invoked)) min = Math.max(min, change.rev);
    if (makers.some((m) => m.invoked < rec.completed)) max = Math.max(max, change.rev);
  }
  return { min, max };
}

/** The history's reads and compactions; `origins`: each stream's origin in the final store. */
export function checkReads(history: readonly OpRecord[], log: readonly Transition[], lost: readonly LostCommits[], calls: Calls, oracle: StoreOracle, origins: Map<string, number>, report: (problem: string) => void): void {
  // A read saw what a later power loss took when that loss ended its epoch or a later one and took a commit it could see.
  const cut = (epoch: number): boolean => lost.some((l) => l.epoch <= epoch && l.lostIn >= epoch);
  for (const rec of history) {
    if (rec.outcome.kind !== 'ok' || cut(rec.epoch)) continue;
    const { spec } = rec;
    const value = rec.outcome.value;
    if (spec.kind === 'compact' && value.kind === 'compact' && (origins.get(spec.stream) ?? 0) < value.origin) {
      report(`${rec.label}: compaction answered origin ${value.origin}, the store ends at origin ${origins.get(spec.stream) ?? 0}`);
    }
    if (value.kind !== 'state') continue;
    if (spec.kind === 'stateAt') {
      const want = spec.rev <= oracle.head(spec.stream) ? oracle.stream(spec.stream).states[spec.rev] : undefined;
      if (want === undefined || !jsonEqual(value.state, want)) report(`${rec.label}: stateAt(${spec.stream}, ${spec.rev}) answered ${JSON.stringify(value.state)}, the model has ${JSON.stringify(want)}`);
    }
    if (spec.kind === 'state') {
      const { min, max } = window(rec, spec.stream, log, calls);
      const states = oracle.stream(spec.stream).states.slice(min, max + 1);
      const seen = states.some((state) => jsonEqual(state, value.state));
      if (!seen) report(`${rec.label}: state(${spec.stream}) answered ${JSON.stringify(value.state)}, which is no state of revisions ${min}…${max}`);
    }
  }
}

/** The final store (opened over what storage holds) against the model. */
export async function checkFinal(store: Store, oracle: StoreOracle, report: (problem: string) => void): Promise<Map<string, number>> {
  const origins = new Map<string, number>();
  if (store.lastSeq() !== oracle.seq) report(`the store ends at seq ${store.lastSeq()}, the log at ${oracle.seq}`);
  for (const stream of STREAMS) {
    const head = await store.head(stream);
    origins.set(stream, head.origin);
    if (head.rev !== oracle.head(stream)) report(`${stream} ends at rev ${head.rev}, the model at ${oracle.head(stream)}`);
    if (!jsonEqual(await store.state(stream), oracle.current(stream))) report(`${stream}: the current state is not the model's`);
    for (let rev = head.origin; rev <= Math.min(head.rev, oracle.head(stream)); rev++) {
      const want = oracle.stream(stream).states[rev];
      if (want === undefined || !jsonEqual(await store.stateAt(stream, rev), want)) report(`${stream}@${rev}: stateAt is not the model's state`);
    }
    if (head.origin > 0) {
      const below = await store.stateAt(stream, head.origin - 1).then(() => null, (err: unknown) => err);
      if (!isStateflowError(below, 'HISTORY_NOT_RETAINED')) report(`${stream}@${head.origin - 1}: below the origin, not HISTORY_NOT_RETAINED`);
    }
  }
  const audit = await store.audit();
  for (const p of audit.problems) report(`final audit: ${p.code} ${p.key} ${p.detail}`);
  return origins;
}
