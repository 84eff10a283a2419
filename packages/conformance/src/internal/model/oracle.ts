/**
 * The plain in-memory oracle of the model-based group: every state of every stream by
 * revision, the seq that produced each revision, origins and accepted idempotency ids. Patch
 * semantics come from core's `applyPatch`, the specification the store must agree with; the
 * store's bookkeeping (revisions, seqs, CAS, no-ops, history, compaction) is modelled here.
 */
import { applyPatch, isStateflowError, jsonEqual } from '@stateflow/core';
import type { ErrorCode, JsonObject } from '@stateflow/core';

/** One stream as the oracle knows it. */
export interface OracleStream {
  /** `states[r]` is the state at revision r; `states[0]` is `{}`. */
  states: JsonObject[];
  /** `seqs[r]` is the global seq that produced revision r; `seqs[0]` is 0. */
  seqs: number[];
  origin: number;
}

/** Outcome the oracle predicts for a publication. */
export type Prediction =
  | { kind: 'rejected'; codes: ErrorCode[] }
  | { kind: 'noop' }
  | { kind: 'accepted'; seq: number; changes: Array<{ stream: string; rev: number; after: JsonObject }> };

export class StoreOracle {
  readonly streams = new Map<string, OracleStream>();
  readonly ids = new Map<string, number>();
  seq = 0;
  /** True once anything was compacted (the audit's transition count then depends on layout). */
  compacted = false;

  stream(id: string): OracleStream {
    let s = this.streams.get(id);
    if (!s) {
      s = { states: [{}], seqs: [0], origin: 0 };
      this.streams.set(id, s);
    }
    return s;
  }

  head(id: string): number {
    return this.stream(id).states.length - 1;
  }

  current(id: string): JsonObject {
    return this.stream(id).states[this.head(id)]!;
  }

  /**
   * Predict a publication of `patches` (caller order) with `expected` revisions. A top-level
   * empty patch is invalid (DESIGN.md "Patches"); a stream whose state would not change is left
   * out; nothing changed at all is a noop.
   */
  predict(patches: Array<[string, JsonObject]>, expected: Record<string, number | 'none'>): Prediction {
    const codes = new Set<ErrorCode>();
    for (const [stream, want] of Object.entries(expected)) {
      const head = this.head(stream);
      if ((want === 'none' && head !== 0) || (typeof want === 'number' && want !== head)) codes.add('CONFLICT');
    }
    const changes: Array<{ stream: string; rev: number; after: JsonObject }> = [];
    for (const [stream, patch] of patches) {
      if (Object.keys(patch).length === 0) {
        codes.add('PATCH_INVALID');
        continue;
      }
      const before = this.current(stream);
      let after: JsonObject;
      try {
        after = applyPatch(before, patch);
      } catch (err) {
        if (!isStateflowError(err)) throw err;
        codes.add(err.code);
        continue;
      }
      if (!jsonEqual(before, after)) changes.push({ stream, rev: this.head(stream) + 1, after });
    }
    if (codes.size > 0) return { kind: 'rejected', codes: [...codes] };
    if (changes.length === 0) return { kind: 'noop' };
    return { kind: 'accepted', seq: this.seq + 1, changes };
  }

  /** Record an accepted prediction. */
  commit(prediction: Extract<Prediction, { kind: 'accepted' }>, id?: string): void {
    this.seq = prediction.seq;
    for (const change of prediction.changes) {
      const s = this.stream(change.stream);
      s.states.push(change.after);
      s.seqs.push(prediction.seq);
    }
    if (id !== undefined) this.ids.set(id, prediction.seq);
  }

  /** The revision of `stream` visible at global `seq`. */
  revAtSeq(stream: string, seq: number): number {
    const { seqs } = this.stream(stream);
    let rev = 0;
    while (rev + 1 < seqs.length && seqs[rev + 1]! <= seq) rev++;
    return rev;
  }
}
