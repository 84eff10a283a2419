/**
 * Comparisons, for the history page: a structural diff between two revisions of a stream, a
 * fork and its source, or two seqs of the effective view (`/v1/history/diff`); and the slates of
 * a ladder session as of one call, with the diff the call made (`/v1/history/slates`).
 */
import { diff } from '@stateflow/core';
import type { JsonObject } from '@stateflow/core';
import type { Store } from '@stateflow/store';
import { DIFF_ENTRIES, historyDiffRoute, historySlatesRoute } from '@stateflow/http-contract';
import type { RouteQuery } from '@stateflow/http-contract';
import type { ContractApp } from '../contract-app.js';
import { ownerFlags, shellQuote } from '../history/read-paths.js';
import { slatesView } from '../history/slates-at-call.js';
import { revisionAsOf, seqOfRevision } from '../history/stream-position.js';
import { selectedLayers, stateAtRev, visibleHead } from '../history/stream-reads.js';
import { structuralDiff } from '../history/structural-diff.js';
import type { ServerContext } from '../server-context.js';
import { streamVisibility } from '../stream-visibility.js';
import type { StreamVisibility } from '../stream-visibility.js';
import { USER_ROUTE } from '../access-gate.js';

/** Entries of the diff a call made, shown beside its slates. */
const CALL_DIFF_ENTRIES = 2000;

/** The two sides of a diff, the stored patch between them when there is one, and the CLI command that shows it. */
interface DiffSides {
  before: JsonObject;
  after: JsonObject;
  storedPatch: JsonObject | null;
  cli: string;
}

/** Register the diff and the slates at a call on `app`. */
export function registerHistoryDiffRoutes(app: ContractApp, context: ServerContext): void {
  const { store } = context;
  app.route({
    ...historyDiffRoute,
    config: USER_ROUTE,
    handler: async (request) => {
      const visibility = streamVisibility(context, request);
      const { before, after, storedPatch, cli } =
        request.query.stream === undefined ? await effectiveSides(store, visibility, request.query) : await streamSides(store, visibility, request.query, request.query.stream);
      return { ...structuralDiff(before, after, request.query.limit ?? DIFF_ENTRIES.default), patch: diff(before, after), storedPatch, cli };
    },
  });

  app.route({
    ...historySlatesRoute,
    config: USER_ROUTE,
    handler: async (request) => {
      const { stream } = request.query;
      const head = await visibleHead(store, streamVisibility(context, request), stream);
      const rev = request.query.rev ?? (request.query.seq === undefined ? head.rev : await revisionAsOf(store, head, request.query.seq));
      const state = await stateAtRev(store, head, rev);
      const seq = rev === 0 || rev <= head.origin ? null : await seqOfRevision(store, head, rev);
      const call = rev >= 1 && rev - 1 >= head.origin ? structuralDiff(await stateAtRev(store, head, rev - 1), state, CALL_DIFF_ENTRIES) : null;
      const time = seq === null ? null : (await store.transition(seq)).time;
      return { stream, rev, seq, head: head.rev, origin: head.origin, time, slates: await slatesView(stream, state), call };
    },
  });
}

type DiffQuery = RouteQuery<typeof historyDiffRoute>;

/** Revision `a` of `stream` against revision `b` of `streamB` (default `stream`: two revisions of one stream). */
async function streamSides(store: Store, visibility: StreamVisibility, query: DiffQuery, stream: string): Promise<DiffSides> {
  const { a, b } = query;
  const streamB = query.streamB ?? stream;
  const headA = await visibleHead(store, visibility, stream);
  const headB = streamB === stream ? headA : await visibleHead(store, visibility, streamB);
  const before = await stateAtRev(store, headA, a);
  const after = await stateAtRev(store, headB, b);
  const storedPatch = streamB === stream && b === a + 1 ? await store.patchAt(stream, b) : null;
  const cli =
    streamB === stream
      ? `stateflow diff ${shellQuote(stream)} ${a} ${b}`
      : `stateflow fork ${shellQuote(stream)} <new> --at ${a}  # the fork's source; compare with: stateflow diff ${shellQuote(streamB)} 0 ${b}`;
  return { before, after, storedPatch, cli };
}

/** The effective view of the selected owners as of seq `a` against seq `b`. */
async function effectiveSides(store: Store, visibility: StreamVisibility, query: DiffQuery): Promise<DiffSides> {
  const { a, b } = query;
  const streams = (await selectedLayers(visibility, query)).map((l) => l.stream);
  const before = await store.effectiveAt(streams, a);
  const after = await store.effectiveAt(streams, b);
  return { before, after, storedPatch: b === a + 1 ? diff(before, after) : null, cli: `stateflow ${ownerFlags(query)} read 'effective[${a}]' 'effective[${b}]'` };
}
