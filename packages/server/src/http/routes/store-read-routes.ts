/**
 * The store API's reads (server README "Store API"): heads, states, patches, diffs, views and the
 * log. With API keys only the caller's own ladder sessions' streams are visible.
 */
import { StateflowError } from '@stateflow/core';
import { revisionAtTag } from '@stateflow/store';
import {
  DEFAULT_TRANSITION_PAGE,
  effectiveAtRoute,
  getTransitionRoute,
  listStreamsRoute,
  listTransitionsRoute,
  revisionSeqRoute,
  statesAtRoute,
  storeViewRoute,
  streamDiffRoute,
  streamHeadRoute,
  streamPatchRoute,
  streamStateRoute,
} from '@stateflow/http-contract';
import type { ShownTransition } from '@stateflow/http-contract';
import type { ContractApp } from '../contract-app.js';
import type { ServerContext } from '../server-context.js';
import { assertStreamsVisible, streamVisibility } from '../stream-visibility.js';
import { USER_ROUTE } from '../access-gate.js';

/** Register the store API's reads on `app`. */
export function registerStoreReadRoutes(app: ContractApp, context: ServerContext): void {
  const { store } = context;
  registerStateReads(app, context);

  app.route({
    ...listStreamsRoute,
    config: USER_ROUTE,
    handler: async (request) => {
      const access = streamVisibility(context, request);
      const streams = [];
      for (const head of await store.streams()) if (await access.canSee(head.stream)) streams.push(head);
      return { lastSeq: store.lastSeq(), streams };
    },
  });

  app.route({
    ...storeViewRoute,
    config: USER_ROUTE,
    handler: async (request) => {
      await assertStreamsVisible(context, request, request.body.streams);
      return store.view(request.body.streams);
    },
  });

  app.route({
    ...statesAtRoute,
    config: USER_ROUTE,
    handler: async (request) => {
      const { streams, seq } = request.body;
      await assertStreamsVisible(context, request, streams);
      return { seq, states: await store.statesAt(streams, seq) };
    },
  });

  app.route({
    ...effectiveAtRoute,
    config: USER_ROUTE,
    handler: async (request) => {
      const { streams, seq } = request.body;
      await assertStreamsVisible(context, request, streams);
      return { seq, state: await store.effectiveAt(streams, seq) };
    },
  });

  registerLogReads(app, context);
}

/** One stream's head, state, patch, revision seq and diff. */
function registerStateReads(app: ContractApp, context: ServerContext): void {
  const { store } = context;
  app.route({
    ...streamHeadRoute,
    config: USER_ROUTE,
    handler: async (request) => {
      await assertStreamsVisible(context, request, [request.query.stream]);
      return store.head(request.query.stream);
    },
  });

  app.route({
    ...streamStateRoute,
    config: USER_ROUTE,
    handler: async (request) => {
      const { stream, rev, tag } = request.query;
      await assertStreamsVisible(context, request, [stream]);
      if (rev !== undefined && tag !== undefined) throw new StateflowError('INPUT_INVALID', 'Give rev or tag, not both', { field: 'tag' });
      if (tag !== undefined) {
        const at = await revisionAtTag(store, stream, tag);
        return { stream, rev: at, state: at === 0 ? {} : await store.stateAt(stream, at) };
      }
      if (rev !== undefined) return { stream, rev, state: await store.stateAt(stream, rev) };
      const view = await store.view([stream]);
      const captured = view.streams[stream] ?? { rev: 0, state: {} };
      return { stream, rev: captured.rev, seq: view.seq, state: captured.state };
    },
  });

  app.route({
    ...streamPatchRoute,
    config: USER_ROUTE,
    handler: async (request) => {
      const { stream, rev } = request.query;
      await assertStreamsVisible(context, request, [stream]);
      return { stream, rev, patch: await store.patchAt(stream, rev) };
    },
  });

  app.route({
    ...revisionSeqRoute,
    config: USER_ROUTE,
    handler: async (request) => {
      const { stream, rev } = request.query;
      await assertStreamsVisible(context, request, [stream]);
      return { stream, rev, seq: await store.revisionSeq(stream, rev) };
    },
  });

  app.route({
    ...streamDiffRoute,
    config: USER_ROUTE,
    handler: async (request) => {
      const { stream, from, to } = request.query;
      await assertStreamsVisible(context, request, [stream]);
      return { stream, from, to, patch: await store.diff(stream, from, to) };
    },
  });
}

/** The log: a page of transitions, one transition. */
function registerLogReads(app: ContractApp, context: ServerContext): void {
  const { store } = context;
  app.route({
    ...listTransitionsRoute,
    config: USER_ROUTE,
    handler: async (request) => {
      const { from, stream, limit = DEFAULT_TRANSITION_PAGE } = request.query;
      if (stream !== undefined) await assertStreamsVisible(context, request, [stream]);
      const access = streamVisibility(context, request);
      // The end is fixed by the first page (`to` in the answer), so later pages of one listing
      // never run past the seq at which it started.
      const to = request.query.to ?? store.lastSeq();
      const transitions: ShownTransition[] = [];
      let scanned = 0;
      let next: number | null = null;
      // One page scans at most `limit` transitions, whatever the caller may see of them: a
      // filtered listing costs the same per request as an unfiltered one.
      for await (const transition of store.transitions({ ...(from === undefined ? {} : { from }), to, ...(stream === undefined ? {} : { stream }) })) {
        if (scanned === limit) {
          next = transition.seq;
          break;
        }
        scanned++;
        const shown = await access.view(transition);
        if (shown !== null) transitions.push(shown);
      }
      return { transitions, next, to };
    },
  });

  app.route({
    ...getTransitionRoute,
    config: USER_ROUTE,
    handler: async (request) => {
      const transition = await store.transition(request.params.seq);
      const shown = await streamVisibility(context, request).view(transition);
      if (shown === null) {
        throw new StateflowError('TRANSITION_NOT_FOUND', `Transition ${request.params.seq} changed none of your streams.`, {
          seq: request.params.seq,
          lastSeq: store.lastSeq(),
        });
      }
      return shown;
    },
  });
}
