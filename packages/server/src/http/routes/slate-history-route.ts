/**
 * `GET /v1/{author}/{ladder}/sessions/{id}/slates/history`: what each call wrote, page by page.
 * One entry per revision of the session's slate stream, oldest first: its revision, the
 * transition's seq and time, what made it (`session` creation or a `ladder-call`), and the
 * files it changed or only read. Pages follow the stream's seq index, so a page costs its own
 * entries, not the history before it.
 */
import { touchedFiles } from '@stateflow/slates';
import type { SlateFileRef } from '@stateflow/slates';
import type { FastifyInstance } from 'fastify';
import { sessionParamsSchema, slateHistoryQuerySchema } from '../schemas.js';
import type { ServerContext } from '../server-context.js';
import { ownedSlates } from './ladder-target.js';
import type { SessionParams } from './ladder-target.js';
import { USER_ROUTE } from '../access-gate.js';

/** Entries per page when `limit` is not given. */
const DEFAULT_LIMIT = 20;

/** One revision of a session's slates. */
interface SlateHistoryEntry {
  rev: number;
  seq: number;
  time: string;
  kind: string;
  changed: SlateFileRef[];
  read: SlateFileRef[];
}

/** Register the slate history route on `app`. */
export function registerSlateHistoryRoute(app: FastifyInstance, context: ServerContext): void {
  app.get<{ Params: SessionParams; Querystring: { after?: number; limit?: number } }>(
    '/v1/:author/:ladder/sessions/:id/slates/history',
    { config: USER_ROUTE, schema: { params: sessionParamsSchema, querystring: slateHistoryQuerySchema } },
    async (request) => {
      const { entry, record, stream, head } = await ownedSlates(context, request.user, request.params);
      const limit = request.query.limit ?? DEFAULT_LIMIT;
      const data: SlateHistoryEntry[] = [];
      let more = false;
      const from = (request.query.after ?? 0) + 1;
      const page = head.rev === 0 || from > head.seq ? [] : context.store.transitions({ stream, from, to: head.seq });
      for await (const transition of page) {
        if (data.length === limit) {
          more = true;
          break;
        }
        const change = transition.changes.find((c) => c.stream === stream);
        if (change === undefined) continue;
        const kind = typeof transition.meta?.kind === 'string' ? transition.meta.kind : 'other';
        data.push({ rev: change.rev, seq: transition.seq, time: transition.time, kind, ...touchedFiles(change.patch) });
      }
      return {
        session: record.id,
        ladder: entry.id,
        head: head.rev,
        origin: head.origin,
        data,
        next: more ? (data.at(-1)?.seq ?? null) : null,
      };
    },
  );
}
