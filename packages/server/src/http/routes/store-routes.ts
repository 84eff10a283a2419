/**
 * The store API (server README "Store API"): the store's public operations over HTTP, so other
 * processes — the CLI, `openRemoteStore` of `@stateflow/client`, the history page — use the store
 * that this server holds. Every answer carries `Stateflow-Last-Seq`. With API keys, a caller sees
 * only its own ladder sessions' streams (`stream-visibility.ts`): any other stream answers 404
 * `NOT_FOUND`, a transition with none of its streams answers 404 `TRANSITION_NOT_FOUND`, and
 * listings leave them out. Writes (publish, publish-many, fork, merge, revert, compact) name only
 * streams the caller may write (`stream-writes.ts`); append, append-many and the audit are for
 * the store's owner only.
 */
import { StateflowError } from '@stateflow/core';
import type { JsonObject } from '@stateflow/core';
import type { ExpectedRevision, ForkOptions, MergeInput, PublishInput, Transition } from '@stateflow/store';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ServerContext } from '../server-context.js';
import {
  appendBodySchema,
  appendManyBodySchema,
  atSeqBodySchema,
  auditBodySchema,
  compactBodySchema,
  diffQuerySchema,
  forkBodySchema,
  mergeBodySchema,
  patchQuerySchema,
  publishBodySchema,
  publishManyBodySchema,
  revertBodySchema,
  seqParamsSchema,
  stateQuerySchema,
  streamQuerySchema,
  transitionsQuerySchema,
  viewBodySchema,
} from '../store-schemas.js';
import { streamNotServed, streamVisibility } from '../stream-visibility.js';
import { authorizeWrites } from '../stream-writes.js';
import type { StreamVisibility } from '../stream-visibility.js';
import { OWNER_ROUTE, USER_ROUTE } from '../access-gate.js';

/** Header carrying the store's last seq on every store API answer. */
export const LAST_SEQ_HEADER = 'stateflow-last-seq';

interface TransitionsQuery {
  from?: number;
  to?: number;
  stream?: string;
  limit: number;
}

/** Register the store API routes on `app`. */
export function registerStoreRoutes(app: FastifyInstance, context: ServerContext): void {
  void app.register(async (scope) => {
    scope.addHook('onSend', async (_request, reply, payload) => {
      void reply.header(LAST_SEQ_HEADER, String(context.store.lastSeq()));
      return payload;
    });
    const visibility = (request: FastifyRequest): StreamVisibility => streamVisibility(context, request);
    const visible = async (request: FastifyRequest, ...streams: string[]): Promise<void> => {
      const access = visibility(request);
      for (const stream of streams) if (!(await access.canSee(stream))) throw streamNotServed(stream);
    };

    scope.get('/v1/store/streams', { config: USER_ROUTE }, async (request) => {
      const access = visibility(request);
      const heads = await context.store.streams();
      const streams = [];
      for (const head of heads) if (await access.canSee(head.stream)) streams.push(head);
      return { lastSeq: context.store.lastSeq(), streams };
    });

    scope.get<{ Querystring: { stream: string } }>('/v1/store/head', { config: USER_ROUTE, schema: { querystring: streamQuerySchema } }, async (request) => {
      await visible(request, request.query.stream);
      return context.store.head(request.query.stream);
    });

    scope.get<{ Querystring: { stream: string; rev?: number } }>('/v1/store/state', { config: USER_ROUTE, schema: { querystring: stateQuerySchema } }, async (request) => {
      const { stream, rev } = request.query;
      await visible(request, stream);
      if (rev !== undefined) return { stream, rev, state: await context.store.stateAt(stream, rev) };
      const view = await context.store.view([stream]);
      const captured = view.streams[stream] ?? { rev: 0, state: {} };
      return { stream, rev: captured.rev, seq: view.seq, state: captured.state };
    });

    scope.get<{ Querystring: { stream: string; rev: number } }>('/v1/store/patch', { config: USER_ROUTE, schema: { querystring: patchQuerySchema } }, async (request) => {
      const { stream, rev } = request.query;
      await visible(request, stream);
      return { stream, rev, patch: await context.store.patchAt(stream, rev) };
    });

    scope.get<{ Querystring: { stream: string; rev: number } }>('/v1/store/revision-seq', { config: USER_ROUTE, schema: { querystring: patchQuerySchema } }, async (request) => {
      const { stream, rev } = request.query;
      await visible(request, stream);
      return { stream, rev, seq: await context.store.revisionSeq(stream, rev) };
    });

    scope.get<{ Querystring: { stream: string; from: number; to: number } }>('/v1/store/diff', { config: USER_ROUTE, schema: { querystring: diffQuerySchema } }, async (request) => {
      const { stream, from, to } = request.query;
      await visible(request, stream);
      return { stream, from, to, patch: await context.store.diff(stream, from, to) };
    });

    scope.post<{ Body: { streams: string[] } }>('/v1/store/view', { config: USER_ROUTE, schema: { body: viewBodySchema } }, async (request) => {
      await visible(request, ...request.body.streams);
      return context.store.view(request.body.streams);
    });

    scope.post<{ Body: { streams: string[]; seq: number } }>('/v1/store/states-at', { config: USER_ROUTE, schema: { body: atSeqBodySchema } }, async (request) => {
      const { streams, seq } = request.body;
      await visible(request, ...streams);
      return { seq, states: await context.store.statesAt(streams, seq) };
    });

    scope.post<{ Body: { streams: string[]; seq: number } }>('/v1/store/effective-at', { config: USER_ROUTE, schema: { body: atSeqBodySchema } }, async (request) => {
      const { streams, seq } = request.body;
      await visible(request, ...streams);
      return { seq, state: await context.store.effectiveAt(streams, seq) };
    });

    scope.get<{ Querystring: TransitionsQuery }>('/v1/store/transitions', { config: USER_ROUTE, schema: { querystring: transitionsQuerySchema } }, async (request) => {
      const { from, stream, limit } = request.query;
      if (stream !== undefined) await visible(request, stream);
      const access = visibility(request);
      // The end is fixed by the first page (`to` in the answer), so later pages of one listing
      // never run past the seq at which it started.
      const to = request.query.to ?? context.store.lastSeq();
      const transitions: Transition[] = [];
      let scanned = 0;
      let next: number | null = null;
      // One page scans at most `limit` transitions, whatever the caller may see of them: a
      // filtered listing costs the same per request as an unfiltered one.
      for await (const transition of context.store.transitions({ ...(from === undefined ? {} : { from }), to, ...(stream === undefined ? {} : { stream }) })) {
        if (scanned === limit) {
          next = transition.seq;
          break;
        }
        scanned++;
        const shown = await access.view(transition);
        if (shown !== null) transitions.push(shown);
      }
      return { transitions, next, to };
    });

    scope.get<{ Params: { seq: number } }>('/v1/store/transitions/:seq', { config: USER_ROUTE, schema: { params: seqParamsSchema } }, async (request) => {
      const transition = await context.store.transition(request.params.seq);
      const shown = await visibility(request).view(transition);
      if (shown === null) {
        throw new StateflowError('TRANSITION_NOT_FOUND', `Transition ${request.params.seq} changed none of your streams.`, {
          seq: request.params.seq,
          lastSeq: context.store.lastSeq(),
        });
      }
      return shown;
    });

    /**
     * `input` as the caller may publish it: its expected streams visible, its changed streams
     * writable, and the written sessions' record guards among its expectations (the caller's own
     * win on the same stream).
     */
    const authorized = async (request: FastifyRequest, input: PublishInput): Promise<PublishInput> => {
      await visible(request, ...Object.keys(input.expected ?? {}));
      const guards = await authorizeWrites(context, request, Object.keys(input.changes));
      return Object.keys(guards).length === 0 ? input : { ...input, expected: { ...guards, ...input.expected } };
    };

    scope.post<{ Body: PublishInput }>('/v1/store/publish', { config: USER_ROUTE, schema: { body: publishBodySchema } }, async (request) =>
      context.store.publish(await authorized(request, request.body)),
    );

    scope.post<{ Body: { inputs: PublishInput[] } }>('/v1/store/publish-many', { config: USER_ROUTE, schema: { body: publishManyBodySchema } }, async (request) => {
      const inputs: PublishInput[] = [];
      for (const input of request.body.inputs) inputs.push(await authorized(request, input));
      return { results: await context.store.publishMany(inputs) };
    });

    scope.post<{ Body: { from: string; to: string; at?: number; expected?: ExpectedRevision; id?: string } }>(
      '/v1/store/fork',
      { config: USER_ROUTE, schema: { body: forkBodySchema } },
      async (request) => {
        const { from, to, ...options } = request.body;
        await authorizeWrites(context, request, [from, to]);
        return context.store.fork(from, to, options as ForkOptions);
      },
    );

    // A merge reads `from` and writes `into`: both must be writable, as a fork's source and target.
    scope.post<{ Body: MergeInput }>('/v1/store/merge', { config: USER_ROUTE, schema: { body: mergeBodySchema } }, async (request) => {
      await authorizeWrites(context, request, [request.body.from, request.body.into]);
      return context.store.merge(request.body);
    });

    scope.post<{ Body: { stream: string; rev: number } }>('/v1/store/revert', { config: USER_ROUTE, schema: { body: revertBodySchema } }, async (request) => {
      await authorizeWrites(context, request, [request.body.stream]);
      return context.store.revert(request.body.stream, request.body.rev);
    });

    scope.post<{ Body: { stream: string; keepRevisions: number } }>('/v1/store/compact', { config: USER_ROUTE, schema: { body: compactBodySchema } }, async (request) => {
      await authorizeWrites(context, request, [request.body.stream]);
      return context.store.compact(request.body.stream, { keepRevisions: request.body.keepRevisions });
    });

    // append and audit cover the whole log: the store's owner only.
    scope.post<{ Body: { transition: Transition } }>('/v1/store/append', { config: OWNER_ROUTE, schema: { body: appendBodySchema } }, async (request) => {
      await context.store.append(request.body.transition);
      return { seq: request.body.transition.seq };
    });

    scope.post<{ Body: { transitions: Transition[] } }>('/v1/store/append-many', { config: OWNER_ROUTE, schema: { body: appendManyBodySchema } }, async (request) => {
      await context.store.appendMany(request.body.transitions);
      return { seq: context.store.lastSeq() };
    });

    scope.post<{ Body: JsonObject }>('/v1/store/audit', { config: OWNER_ROUTE, schema: { body: auditBodySchema } }, async () => context.store.audit());
  });
}
