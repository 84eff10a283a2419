/**
 * The streams rail (ui README "Views", "Streams rail"): the visible streams sorted by id, filtered by a
 * case-insensitive substring and an optional kind, one page at a time, each with its head
 * revision, origin and the time of its last change; plus the count per kind over the whole
 * filtered list so the rail can label its groups without loading them.
 */
import type { Store, StreamHead } from '@stateflow/store';
import type { StreamKind, StreamPage, StreamRow } from '@stateflow/http-contract';
import { STREAM_KINDS } from '@stateflow/http-contract';
import { streamKind } from './read-paths.js';
import type { StreamVisibility } from '../stream-visibility.js';


/** Query of {@link streamPage}. */
export interface StreamQuery {
  /** Case-insensitive substring of the stream id. */
  filter?: string;
  kind?: StreamKind;
  /** Exclusive lower bound of the ids listed (the previous page's `next`). */
  after?: string;
  /** Rows per page, 1 … `STREAM_PAGE.max`. */
  limit: number;
}

/** One page of the streams rail. Cost: one pass over the heads (in memory) + one log read per row. */
export async function streamPage(store: Store, visibility: StreamVisibility, query: StreamQuery): Promise<StreamPage> {
  const needle = query.filter?.toLowerCase() ?? '';
  const counts = Object.fromEntries(STREAM_KINDS.map((k) => [k, 0])) as Record<StreamKind, number>;
  const page: StreamHead[] = [];
  let more = false;
  for (const head of await store.streams()) {
    if (needle !== '' && !head.stream.toLowerCase().includes(needle)) continue;
    if (!visibility.all && !(await visibility.canSee(head.stream))) continue;
    const kind = streamKind(head.stream);
    counts[kind]++;
    if (query.kind !== undefined && kind !== query.kind) continue;
    if (query.after !== undefined && head.stream <= query.after) continue;
    if (page.length < query.limit) page.push(head);
    else more = true;
  }
  const streams = await Promise.all(
    page.map(async (head): Promise<StreamRow> => ({ ...head, kind: streamKind(head.stream), time: (await store.transition(head.seq)).time })),
  );
  return { lastSeq: store.lastSeq(), streams, counts, next: more ? (page[page.length - 1]?.stream ?? null) : null };
}
