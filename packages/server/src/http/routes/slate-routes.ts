/**
 * The reads of a session's slates (server README "Endpoints"): `GET …/sessions/{id}/slates`, the
 * slate projection now or at a past revision, and `GET …/sessions/{id}/slates/history`, what each
 * call wrote, page by page — one entry per revision of the session's slate stream, oldest first:
 * its revision, the transition's seq and time, what made it (`session` creation or a
 * `ladder-call`), and the files it changed or only read. Pages follow the stream's seq index, so
 * a page costs its own entries, not the history before it.
 */
import { StateflowError } from '@stateflow/core';
import type { JsonObject } from '@stateflow/core';
import { touchedFiles } from '@stateflow/slates';
import type { SlateFileRef } from '@stateflow/slates';
import { DEFAULT_SLATE_HISTORY_PAGE, readSlateHistoryRoute, readSlatesRoute } from '@stateflow/http-contract';
import type { ContractApp } from '../contract-app.js';
import { projectSlates } from '../ladder-runtime.js';
import type { ServerContext } from '../server-context.js';
import { ownedSlates } from './ladder-target.js';
import { USER_ROUTE } from '../access-gate.js';

/** One revision of a session's slates. */
interface SlateHistoryEntry {
  rev: number;
  seq: number;
  time: string;
  kind: string;
  changed: SlateFileRef[];
  read: SlateFileRef[];
}

/** Register the slate reads on `app`. */
export function registerSlateRoutes(app: ContractApp, context: ServerContext): void {
  app.route({
    ...readSlatesRoute,
    config: USER_ROUTE,
    handler: async (request) => {
      const { entry, record, stream, head } = await ownedSlates(context, request.user, request.params);
      const at = request.query.at ?? head.rev;
      // Query strings are coerced: "1e400" arrives as Infinity, "9007199254740993" rounded.
      if (!Number.isSafeInteger(at)) {
        throw new StateflowError('INPUT_INVALID', `querystring.at must be <= ${Number.MAX_SAFE_INTEGER}.`, { field: 'querystring.at', reason: 'maximum' });
      }
      if (at > head.rev) {
        throw new StateflowError('REVISION_NOT_FOUND', `Slate revision ${at} does not exist; the session's slates are at revision ${head.rev}`, {
          stream,
          rev: at,
          head: head.rev,
        });
      }
      const state: JsonObject = at === head.rev ? await context.store.state(stream) : await context.store.stateAt(stream, at);
      return { session: record.id, ladder: entry.id, rev: at, head: head.rev, ...(await projectSlates(stream, state)) };
    },
  });

  app.route({
    ...readSlateHistoryRoute,
    config: USER_ROUTE,
    handler: async (request) => {
      const { entry, record, stream, head } = await ownedSlates(context, request.user, request.params);
      const limit = request.query.limit ?? DEFAULT_SLATE_HISTORY_PAGE;
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
      return { session: record.id, ladder: entry.id, head: head.rev, origin: head.origin, data, next: more ? (data.at(-1)?.seq ?? null) : null };
    },
  });
}
