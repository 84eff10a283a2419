/**
 * The log against the conformance model (`../model/oracle.ts`): replayed in seq order, each
 * transition must be what the oracle predicts for the call that made it, at that point of the
 * log — the linearization the store chose. A publish input: accepted (its expected revisions held
 * and its patches apply) with exactly the changed streams, revisions and resulting states core's
 * `applyPatch` gives; a fork: the target set to the source's state at the forked revision; a
 * revert: the stream set to its own earlier state; a merge: core's `threeWayMerge` of the base
 * its meta names and both sides. Per-stream revisions rise by one, the seq by one.
 */
import { applyPatch, jsonEqual, threeWayMerge } from '@stateflow/core';
import type { JsonObject } from '@stateflow/core';
import type { Transition } from '@stateflow/store';
import { StoreOracle } from '../model/oracle.js';
import type { Calls, Maker } from './attribution.js';

type Accepted = { kind: 'accepted'; seq: number; changes: Array<{ stream: string; rev: number; after: JsonObject }> };

/** The oracle's states after `t`, computed from its stored net patches (checked against the model elsewhere). */
function replayed(oracle: StoreOracle, t: Transition): Accepted {
  return { kind: 'accepted', seq: t.seq, changes: t.changes.map((c) => ({ stream: c.stream, rev: c.rev, after: applyPatch(oracle.current(c.stream), c.patch) })) };
}

const sameChanges = (a: Accepted, b: Accepted): boolean =>
  a.changes.length === b.changes.length && a.changes.every((c, i) => c.stream === b.changes[i]?.stream && c.rev === b.changes[i]?.rev && jsonEqual(c.after, b.changes[i]?.after ?? null));

/** What the model says the transition made by `maker` should be, or why it should not exist. */
function predicted(oracle: StoreOracle, t: Transition, maker: Maker, actual: Accepted): Accepted | string {
  const { spec } = maker.rec;
  const meta = (t.meta ?? {}) as Record<string, unknown>;
  if (maker.input !== undefined) {
    const expected = Object.fromEntries(Object.entries(maker.input.expected).filter((e): e is [string, number | 'none'] => e[1] !== 'any'));
    const p = oracle.predict(Object.entries(maker.input.changes), expected);
    return p.kind === 'accepted' ? p : `the model ${p.kind === 'noop' ? 'sees no change' : `refuses it (${p.codes.join(', ')})`}`;
  }
  const change = actual.changes[0];
  if (actual.changes.length !== 1 || change === undefined) return 'a fork, revert or merge changed more than one stream';
  const at = (stream: string, rev: number): JsonObject | string => (rev <= oracle.head(stream) ? (oracle.stream(stream).states[rev] as JsonObject) : `${stream}@${rev} does not exist yet`);
  let after: JsonObject | string;
  if (spec.kind === 'fork') {
    const fork = meta.fork as { from: string; rev: number };
    const head = oracle.head(spec.to);
    if ((spec.expected === 'none' && head !== 0) || (typeof spec.expected === 'number' && spec.expected !== head)) return `the fork expected ${spec.to} at ${String(spec.expected)}, it was at ${head}`;
    after = fork.from === spec.from ? at(fork.from, fork.rev) : `forked from ${fork.from}, asked ${spec.from}`;
  } else if (spec.kind === 'revert') {
    after = at(spec.stream, spec.rev);
  } else if (spec.kind === 'merge') {
    const merge = meta.merge as { from: string; fromRev: number; base: { stream: string; rev: number } };
    const [base, theirs] = [at(merge.base.stream, merge.base.rev), at(merge.from, merge.fromRev)];
    if (typeof base === 'string' || typeof theirs === 'string') return `merge sides: ${String(base)} ${String(theirs)}`;
    after = threeWayMerge(base, oracle.current(spec.into), theirs, { prefer: spec.prefer }).merged;
  } else {
    return `made by a ${spec.kind}`;
  }
  if (typeof after === 'string') return after;
  return { kind: 'accepted', seq: oracle.seq + 1, changes: [{ stream: change.stream, rev: oracle.head(change.stream) + 1, after }] };
}

/**
 * Replay `log` through the oracle, checking each transition against the call that made it
 * (the first candidate that can have made it); returns the oracle with every revision's state.
 */
export function checkModel(log: readonly Transition[], calls: Calls, report: (problem: string) => void): StoreOracle {
  const oracle = new StoreOracle();
  for (const t of log) {
    const actual = replayed(oracle, t);
    for (const c of actual.changes) if (c.rev !== oracle.head(c.stream) + 1) report(`seq ${t.seq}: ${c.stream} rev ${c.rev} follows rev ${oracle.head(c.stream)}`);
    const maker = calls.candidates(t)[0];
    if (maker !== undefined) {
      const p = predicted(oracle, t, maker, actual);
      if (typeof p === 'string') report(`seq ${t.seq} (${maker.rec.label}): ${p}`);
      else if (!sameChanges(p, actual)) report(`seq ${t.seq} (${maker.rec.label}): the log has ${JSON.stringify(actual.changes)}, the model ${JSON.stringify(p.changes)}`);
    }
    oracle.commit(actual, t.id);
  }
  return oracle;
}
