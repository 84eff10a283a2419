/**
 * Which call of the history made each transition of the log. Every input a writer sends carries
 * a marker in `meta.sim` (a publish, each input of a publishMany, a merge); a fork is known by its
 * idempotency id (every fork sends one); a revert by its `{ revert: { stream, rev } }` meta. The
 * log here is the unpruned one (`World.image`), so every transition still has its meta.
 */
import type { PublishResult, Transition } from '@stateflow/store';
import type { OpRecord, PublishSpec } from './history.js';

/** What made a transition: the call, and for a publish input its spec. */
export interface Maker {
  rec: OpRecord;
  input?: PublishSpec;
}

/** The markers of a call's inputs, each with its spec where it has one. */
export function markersOf(rec: OpRecord): { marker: string; input?: PublishSpec }[] {
  const { spec } = rec;
  if (spec.kind === 'publish') return [{ marker: spec.input.marker, input: spec.input }];
  if (spec.kind === 'publishMany') return spec.inputs.map((input) => ({ marker: input.marker, input }));
  if (spec.kind === 'merge') return [{ marker: spec.marker }];
  return [];
}

/** The answer a call gave for its input `input` (for a marker-carrying call), or its only one. */
export function resultFor(rec: OpRecord, input: PublishSpec | undefined): PublishResult | undefined {
  if (rec.outcome.kind !== 'ok') return undefined;
  const value = rec.outcome.value;
  if (value.kind === 'merge') return value.result.status === 'accepted' || value.result.status === 'duplicate' ? value.result : { status: 'noop', transition: null };
  if (value.kind !== 'publish') return undefined;
  if (rec.spec.kind === 'publishMany' && input !== undefined) return value.results[rec.spec.inputs.indexOf(input)];
  return value.results[0];
}

/** Whether `maker` can have made `t`: not refused, and any answer it had names `t`. */
export function canHaveMade(maker: Maker, t: Transition): boolean {
  if (maker.rec.outcome.kind === 'unknown') return true;
  const result = resultFor(maker.rec, maker.input);
  return result?.status === 'accepted' && result.transition.seq === t.seq && result.transition.hash === t.hash;
}

/** The calls of the history by marker, fork id and revert target. */
export class Calls {
  readonly byMarker = new Map<string, Maker>();
  readonly forksById = new Map<string, OpRecord[]>();
  readonly revertsByTarget = new Map<string, OpRecord[]>();

  constructor(history: readonly OpRecord[]) {
    for (const rec of history) {
      for (const { marker, input } of markersOf(rec)) this.byMarker.set(marker, input === undefined ? { rec } : { rec, input });
      if (rec.spec.kind === 'fork') this.forksById.set(rec.spec.id, [...(this.forksById.get(rec.spec.id) ?? []), rec]);
      if (rec.spec.kind === 'revert') {
        const target = `${rec.spec.stream}@${rec.spec.rev}`;
        this.revertsByTarget.set(target, [...(this.revertsByTarget.get(target) ?? []), rec]);
      }
    }
  }

  /**
   * The calls that may have made `t` (one for a marker; several forks of one id or reverts to one
   * revision may compete: the checks then need one of them not to be a refusal).
   */
  candidates(t: Transition): Maker[] {
    const meta = t.meta as { sim?: unknown; fork?: unknown; revert?: { stream?: unknown; rev?: unknown } } | undefined;
    if (typeof meta?.sim === 'string') {
      const maker = this.byMarker.get(meta.sim);
      return maker === undefined ? [] : [maker];
    }
    if (meta?.fork !== undefined && t.id !== undefined) return (this.forksById.get(t.id) ?? []).map((rec) => ({ rec }));
    if (meta?.revert !== undefined) return (this.revertsByTarget.get(`${String(meta.revert.stream)}@${String(meta.revert.rev)}`) ?? []).map((rec) => ({ rec }));
    return [];
  }
}
