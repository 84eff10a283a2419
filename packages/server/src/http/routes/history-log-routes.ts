/**
 * The log over time, for the history page: the streams rail (`/v1/history/streams`), the time
 * histogram (`/v1/history/histogram`) and a stream's revisions by number (`/v1/history/revisions`).
 */
import { StateflowError } from '@stateflow/core';
import { HISTOGRAM_BUCKETS, REVISION_PAGE, STREAM_PAGE, historyHistogramRoute, historyRevisionsRoute, historyStreamsRoute } from '@stateflow/http-contract';
import type { RevisionRow } from '@stateflow/http-contract';
import type { ContractApp } from '../contract-app.js';
import { dateHistogram } from '../history/date-histogram.js';
import { histogram } from '../history/histogram.js';
import { metaDate } from '../insight/transition-ref.js';
import { streamPage } from '../history/stream-list.js';
import { visibleHead } from '../history/stream-reads.js';
import { revisionIn, seqOfRevision } from '../history/stream-position.js';
import type { ServerContext } from '../server-context.js';
import { streamVisibility } from '../stream-visibility.js';
import { USER_ROUTE } from '../access-gate.js';

/** Register the streams rail, the histogram and the revisions on `app`. */
export function registerHistoryLogRoutes(app: ContractApp, context: ServerContext): void {
  const { store } = context;
  app.route({
    ...historyStreamsRoute,
    config: USER_ROUTE,
    handler: async (request) => streamPage(store, streamVisibility(context, request), { ...request.query, limit: request.query.limit ?? STREAM_PAGE.default }),
  });

  app.route({
    ...historyHistogramRoute,
    config: USER_ROUTE,
    handler: async (request) => {
      const { stream, buckets = HISTOGRAM_BUCKETS.default, axis = 'time' } = request.query;
      if (stream === undefined && !request.admin) {
        throw new StateflowError('INPUT_INVALID', 'With API keys the histogram counts one of your streams: pass ?stream=<stream id>', { field: 'stream' });
      }
      if (stream !== undefined) await visibleHead(store, streamVisibility(context, request), stream);
      if (axis === 'date') return dateHistogram(store, { buckets, ...(stream === undefined ? {} : { stream }) });
      return histogram(store, { buckets, axis, ...(stream === undefined ? {} : { stream }) });
    },
  });

  app.route({
    ...historyRevisionsRoute,
    config: USER_ROUTE,
    handler: async (request) => {
      const { stream, limit = REVISION_PAGE.default } = request.query;
      const head = await visibleHead(store, streamVisibility(context, request), stream);
      const from = Math.max(request.query.from ?? 1, head.origin + 1, 1);
      const revisions: RevisionRow[] = [];
      if (from <= head.rev) {
        for await (const t of store.transitions({ stream, from: await seqOfRevision(store, head, from), to: head.seq })) {
          const date = metaDate(t.meta);
          revisions.push({
            rev: revisionIn(t, stream),
            seq: t.seq,
            time: t.time,
            ...(t.id === undefined ? {} : { id: t.id }),
            ...(t.meta === undefined ? {} : { meta: t.meta }),
            streams: t.changes.length,
            ...(date === undefined ? {} : { date }),
          });
          if (revisions.length >= limit) break;
        }
      }
      const last = revisions[revisions.length - 1]?.rev ?? head.rev;
      return { stream, head: head.rev, origin: head.origin, revisions, next: last < head.rev ? last + 1 : null };
    },
  });
}
