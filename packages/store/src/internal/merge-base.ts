/**
 * The merge base of two streams (README "Merge"): the nearest revision both descend from,
 * found through the lineage records of their histories. A stream's history is linear, so
 * "descends from" only crosses streams at a transition whose meta records where its state came
 * from — `{ fork: { from, rev } }` (store `fork`) or `{ merge: { from, fromRev } }` (store
 * `merge`): the stream at that revision took in `from` at that revision.
 *
 * Nothing is indexed for this: a stream's records are found by reading its transitions once
 * (its seq index, and each log record's meta), only for the streams the walk reaches. That is
 * the cost of a merge — one read of the histories involved — and keeps the storage format as it
 * is.
 */
import { StateflowError } from '@stateflow/core';
import type { JsonValue } from '@stateflow/core';
import type { MergeBase, StreamId } from '../types.js';
import { Family, parseKey, streamRange } from './keys.js';
import { logRecord } from './log-reads.js';
import { decodeCount } from './records.js';
import { headOf } from './store-context.js';
import type { StoreContext } from './store-context.js';

/** At revision `rev` of a stream, its state took in `source`@`sourceRev`. */
interface Link {
  rev: number;
  source: StreamId;
  sourceRev: number;
}

/** What the walk needs of one stream's history. */
interface Lineage {
  links: Link[];
  /** The seq of the transition that produced each revision (from the seq index, which compaction keeps). */
  seqs: Map<number, number>;
}

/**
 * The nearest common ancestor of `from`@`fromRev` and `into`@`intoRev`: of every revision both
 * reach, the one produced last (the highest seq) — a descendant is always produced after its
 * ancestor, so no other common one descends from it. Several forks of one stream into another:
 * the latest fork point wins the same way. Runs under the caller's write lock.
 * @throws MERGE_UNRELATED when they share no revision; HISTORY_NOT_RETAINED when they share
 *   none that is still recorded, but a stream the walk reached was compacted (its lineage
 *   records before the origin are gone); STORE_CORRUPT
 */
export async function findMergeBase(ctx: StoreContext, from: StreamId, fromRev: number, into: StreamId, intoRev: number): Promise<MergeBase> {
  const lineages = new Map<StreamId, Lineage>();
  const lineageOf = async (stream: StreamId): Promise<Lineage> => {
    let lineage = lineages.get(stream);
    if (lineage === undefined) {
      lineage = await readLineage(ctx, stream);
      lineages.set(stream, lineage);
    }
    return lineage;
  };
  const theirs = await ancestors(from, fromRev, lineageOf);
  const ours = await ancestors(into, intoRev, lineageOf);
  let best: { base: MergeBase; seq: number } | null = null;
  for (const [stream, reach] of ours) {
    const other = theirs.get(stream);
    if (other === undefined) continue;
    const rev = Math.min(reach, other);
    const seq = rev === 0 ? 0 : ((await lineageOf(stream)).seqs.get(rev) ?? 0);
    if (best === null || seq > best.seq) best = { base: { stream, rev }, seq };
  }
  if (best !== null) return best.base;
  const compacted = [...new Set([into, from, ...ours.keys(), ...theirs.keys()])].find((stream) => headOf(ctx, stream).origin > 0);
  if (compacted !== undefined) {
    const origin = headOf(ctx, compacted).origin;
    throw new StateflowError(
      'HISTORY_NOT_RETAINED',
      `${from} and ${into} share no revision in their retained history, and ${compacted} was compacted (it starts at revision ${origin}): ` +
        'the fork or merge record that could connect them may have been removed with its history, so no merge base can be found',
      { stream: compacted, rev: origin, origin },
    );
  }
  throw new StateflowError(
    'MERGE_UNRELATED',
    `${from} and ${into} share no origin: no fork or merge record leads from one to the other or to a common ancestor. ` +
      `Fork one from the other first (stateflow fork ${from} <new stream>), or publish the change by hand`,
    { from, into },
  );
}

/** Every stream `stream`@`rev` descends from, with the highest revision of it reached (all lower ones are reached too). */
async function ancestors(stream: StreamId, rev: number, lineageOf: (stream: StreamId) => Promise<Lineage>): Promise<Map<StreamId, number>> {
  const reach = new Map<StreamId, number>([[stream, rev]]);
  const pending = [stream];
  while (pending.length > 0) {
    const here = pending.pop() as StreamId;
    const limit = reach.get(here) as number;
    for (const link of (await lineageOf(here)).links) {
      if (link.rev > limit || (reach.get(link.source) ?? -1) >= link.sourceRev) continue;
      reach.set(link.source, link.sourceRev);
      pending.push(link.source);
    }
  }
  return reach;
}

/** One read of `stream`'s retained transitions: its lineage records, and the seq of each revision. */
async function readLineage(ctx: StoreContext, stream: StreamId): Promise<Lineage> {
  const lineage: Lineage = { links: [], seqs: new Map() };
  for await (const [key, value] of ctx.storage.iterate(streamRange(Family.seq, stream, 1, ctx.lastSeq))) {
    const parsed = parseKey(key);
    if (parsed.family !== 'seq') continue;
    const rev = decodeCount(key, value, stream);
    lineage.seqs.set(rev, parsed.n);
    const record = await logRecord(ctx, parsed.n, stream);
    if (record.pruned || record.changes.length !== 1) continue;
    const link = linkOf(ctx, stream, rev, record.meta);
    if (link !== null) lineage.links.push(link);
  }
  return lineage;
}

/**
 * The lineage record in a transition's meta, or `null`. Meta is the caller's too (a publish may
 * carry any), so a record counts only when it is well formed and names an earlier revision of
 * another stream that exists.
 */
function linkOf(ctx: StoreContext, stream: StreamId, rev: number, meta: { [key: string]: JsonValue } | undefined): Link | null {
  const fork = field(meta, 'fork');
  const merge = field(meta, 'merge');
  const [source, sourceRev] = fork !== undefined ? [field(fork, 'from'), field(fork, 'rev')] : [field(merge, 'from'), field(merge, 'fromRev')];
  if (typeof source !== 'string' || source === stream || typeof sourceRev !== 'number' || !Number.isSafeInteger(sourceRev) || sourceRev < 0) return null;
  if (sourceRev > headOf(ctx, source).rev) return null;
  return { rev, source, sourceRev };
}

function field(value: JsonValue | undefined, key: string): JsonValue | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.hasOwn(value, key) ? value[key] : undefined;
}
