/**
 * The lineage of a stream (contract `historyLineageRoute`) from the records the store writes in
 * transition meta: `{ fork: { from, rev } }` (store `fork`), `{ merge: { from, fromRev, base } }`
 * (store `merge`) and `{ revert: { stream, rev } }` (store `revert`). A stream's history is linear,
 * so its lineage crosses to another stream only at such a record.
 *
 * Nothing indexes these records (store `merge-base.ts` reads them the same way): the graph is
 * built from the histories of the streams it reaches — the stream asked for, the sources of its
 * forks and merges (recursively: ancestors), and the streams whose first revision is a fork of a
 * stream in the graph (descendants; found by reading each visible stream's first revision). Each
 * bound of {@link LINEAGE_SCAN} that is reached sets `truncated`. The graph has no cursor to
 * go on from, so the work budget does not cut it; the reads yield to the event loop as they go
 * ({@link WorkBudget}'s `pace`), so a long lineage stalls no other request.
 */
import { isJsonObject } from '@stateflow/core';
import type { JsonObject } from '@stateflow/core';
import { LINEAGE_SCAN } from '@stateflow/http-contract';
import type { LineageEvent, LineageGraph, LineageStream } from '@stateflow/http-contract';
import type { Store, StreamHead, StreamId, Transition } from '@stateflow/store';
import type { StreamVisibility } from '../stream-visibility.js';
import type { WorkBudget } from '@stateflow/store';
import { revisionIn } from '../history/stream-position.js';
import { transitionRef } from './transition-ref.js';

/** The bounds of one lineage read (defaults {@link LINEAGE_SCAN}; tests lower them). */
export interface LineageBounds {
  perStream: number;
  streams: number;
  candidates: number;
}

/** What one stream's history says of its lineage. */
interface StreamRecords {
  events: LineageEvent[];
  truncated: boolean;
}

/** The reads' yield points (see the module comment). */
type Pacing = Pick<WorkBudget, 'pace'>;

/** The lineage graph of `head.stream`, which the caller may see; the reads yield through `pacing`. */
export async function streamLineage(store: Store, visibility: StreamVisibility, head: StreamHead, pacing: Pacing, bounds: LineageBounds = LINEAGE_SCAN): Promise<LineageGraph> {
  const streams = new Map<StreamId, LineageStream>([[head.stream, { stream: head.stream, head: head.rev, origin: head.origin, relation: 'self' }]]);
  const events = new Map<number, LineageEvent>();
  let truncated = false;
  const queue: StreamId[] = [head.stream];
  const add = async (stream: StreamId, relation: LineageStream['relation']): Promise<void> => {
    if (streams.has(stream) || !(await visibility.canSee(stream))) return;
    if (streams.size >= bounds.streams) {
      truncated = true;
      return;
    }
    const h = await store.head(stream);
    streams.set(stream, { stream, head: h.rev, origin: h.origin, relation });
    queue.push(stream);
  };
  for (let stream = queue.shift(); stream !== undefined; stream = queue.shift()) {
    const row = streams.get(stream);
    if (row === undefined) continue;
    const records = await recordsOf(store, row, bounds.perStream, pacing);
    truncated ||= records.truncated;
    for (const event of records.events) {
      events.set(event.seq, event);
      // A merge source reached first may itself be a fork of the stream: then it descends from it.
      const source = event.from === undefined ? undefined : streams.get(event.from.stream);
      if (event.kind === 'fork' && row.relation === 'ancestor' && source !== undefined && source.relation !== 'ancestor') row.relation = 'descendant';
      if (event.from !== undefined) await add(event.from.stream, row.relation === 'descendant' ? 'descendant' : 'ancestor');
    }
    if (queue.length === 0) {
      const forks = await forksOf(store, visibility, new Set(streams.keys()), { candidates: bounds.candidates, pacing });
      truncated ||= forks.truncated;
      for (const stream of forks.streams) await add(stream, 'descendant');
    }
  }
  return { stream: head.stream, streams: [...streams.values()], events: [...events.values()].sort((a, b) => a.seq - b.seq), truncated };
}

/** The fork, merge and revert records of one stream's retained history (at most `limit` transitions read). */
async function recordsOf(store: Store, row: LineageStream, limit: number, pacing: Pacing): Promise<StreamRecords> {
  const events: LineageEvent[] = [];
  let read = 0;
  for await (const transition of store.transitions({ stream: row.stream })) {
    if (++read > limit) return { events, truncated: true };
    await pacing.pace();
    const event = lineageEvent(transition, row.stream);
    if (event !== null) events.push(event);
  }
  return { events, truncated: false };
}

/** The lineage record of `transition` on `stream`, or `null` when its meta holds none. */
export function lineageEvent(transition: Transition, stream: StreamId): LineageEvent | null {
  const meta: JsonObject = transition.meta ?? {};
  const rev = revisionIn(transition, stream);
  const ref = transitionRef(transition, stream, rev);
  const fork = meta['fork'];
  if (isJsonObject(fork) && typeof fork['from'] === 'string' && typeof fork['rev'] === 'number') return { kind: 'fork', ...ref, from: { stream: fork['from'], rev: fork['rev'] } };
  const merge = meta['merge'];
  if (isJsonObject(merge) && typeof merge['from'] === 'string' && typeof merge['fromRev'] === 'number') {
    const base = merge['base'];
    const shownBase = isJsonObject(base) && typeof base['stream'] === 'string' && typeof base['rev'] === 'number' ? { base: { stream: base['stream'], rev: base['rev'] } } : {};
    return { kind: 'merge', ...ref, from: { stream: merge['from'], rev: merge['fromRev'] }, ...shownBase };
  }
  const revert = meta['revert'];
  if (isJsonObject(revert) && revert['stream'] === stream && typeof revert['rev'] === 'number') return { kind: 'revert', ...ref, to: revert['rev'] };
  return null;
}

/** The visible streams outside `known` whose first revision is a fork of a stream in `known`. */
async function forksOf(
  store: Store,
  visibility: StreamVisibility,
  known: ReadonlySet<StreamId>,
  { candidates, pacing }: { candidates: number; pacing: Pacing },
): Promise<{ streams: StreamId[]; truncated: boolean }> {
  const found: StreamId[] = [];
  let checked = 0;
  for (const head of await store.streams()) {
    await pacing.pace();
    if (known.has(head.stream) || head.origin > 0) continue;
    if (!visibility.all && !(await visibility.canSee(head.stream))) continue;
    if (++checked > candidates) return { streams: found, truncated: true };
    const first = await store.transition(await store.revisionSeq(head.stream, 1));
    const fork = first.meta?.['fork'];
    if (isJsonObject(fork) && typeof fork['from'] === 'string' && known.has(fork['from'])) found.push(head.stream);
  }
  return { streams: found, truncated: false };
}
