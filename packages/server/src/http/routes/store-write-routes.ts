/**
 * The store API's writes (server README "Store API"): publish, publish-many, fork, merge, undo,
 * revert and compact name only streams the caller may write (`stream-writes.ts`); append, append-many and
 * the audit cover the whole log, so they are for the store's owner only.
 */
import type { PublishInput } from '@stateflow/store';
import {
  appendManyRoute,
  appendRoute,
  auditRoute,
  compactRoute,
  forkRoute,
  mergeRoute,
  publishManyRoute,
  publishRoute,
  revertRoute,
  undoRoute,
} from '@stateflow/http-contract';
import type { FastifyRequest } from 'fastify';
import type { ContractApp } from '../contract-app.js';
import type { ServerContext } from '../server-context.js';
import { assertStreamsVisible, shownWriteResult } from '../stream-visibility.js';
import { authorizeWrites } from '../stream-writes.js';
import { undoAsCaller } from '../undo-access.js';
import { OWNER_ROUTE, USER_ROUTE } from '../access-gate.js';

/** Register the store API's writes on `app`. */
export function registerStoreWriteRoutes(app: ContractApp, context: ServerContext): void {
  registerPublishRoutes(app, context);
  registerStreamOperations(app, context);
  registerLogOperations(app, context);
}

/** publish and publish-many: each input's expected streams visible, its changed streams writable. */
function registerPublishRoutes(app: ContractApp, context: ServerContext): void {
  /**
   * `input` as the caller may publish it: its expected streams visible, its changed streams
   * writable, and the written sessions' record guards among its expectations (the caller's own
   * win on the same stream).
   */
  const authorized = async (request: FastifyRequest, input: PublishInput): Promise<PublishInput> => {
    await assertStreamsVisible(context, request, Object.keys(input.expected ?? {}));
    const guards = await authorizeWrites(context, request, Object.keys(input.changes));
    return Object.keys(guards).length === 0 ? input : { ...input, expected: { ...guards, ...input.expected } };
  };

  app.route({ ...publishRoute, config: USER_ROUTE, handler: async (request) => shownWriteResult(context, request, await context.store.publish(await authorized(request, request.body))) });

  app.route({
    ...publishManyRoute,
    config: USER_ROUTE,
    handler: async (request) => {
      const inputs: PublishInput[] = [];
      for (const input of request.body.inputs) inputs.push(await authorized(request, input));
      const results = [];
      // An API-key user's batch has a staging budget; the owner's (an import through the CLI) not, as with the rate limits.
      const budget = request.admin || context.workBudgetMs === 0 ? {} : { budgetMs: context.workBudgetMs };
      for (const result of await context.store.publishMany(inputs, budget)) results.push(await shownWriteResult(context, request, result));
      return { results };
    },
  });
}

/** fork, merge, revert, compact: every stream they read or write must be writable. */
function registerStreamOperations(app: ContractApp, context: ServerContext): void {
  app.route({
    ...forkRoute,
    config: USER_ROUTE,
    handler: async (request) => {
      const { from, to, ...options } = request.body;
      await authorizeWrites(context, request, [from, to]);
      return shownWriteResult(context, request, await context.store.fork(from, to, options));
    },
  });

  // A merge reads `from` and writes `into`: both must be writable, as a fork's source and target.
  app.route({
    ...mergeRoute,
    config: USER_ROUTE,
    handler: async (request) => {
      await authorizeWrites(context, request, [request.body.from, request.body.into]);
      return shownWriteResult(context, request, await context.store.merge(request.body));
    },
  });

  // An undo writes only streams its caller may write, and only her own writes' effects (undo-access.ts).
  app.route({ ...undoRoute, config: USER_ROUTE, handler: async (request) => shownWriteResult(context, request, await undoAsCaller(context, request, request.body)) });

  app.route({
    ...revertRoute,
    config: USER_ROUTE,
    handler: async (request) => {
      await authorizeWrites(context, request, [request.body.stream]);
      return context.store.revert(request.body.stream, request.body.rev);
    },
  });

  app.route({
    ...compactRoute,
    config: USER_ROUTE,
    handler: async (request) => {
      await authorizeWrites(context, request, [request.body.stream]);
      return context.store.compact(request.body.stream, { keepRevisions: request.body.keepRevisions });
    },
  });
}

/** append, append-many and the audit cover the whole log: the store's owner only. */
function registerLogOperations(app: ContractApp, context: ServerContext): void {
  app.route({
    ...appendRoute,
    config: OWNER_ROUTE,
    handler: async (request) => {
      await context.store.append(request.body.transition);
      return { seq: request.body.transition.seq };
    },
  });

  app.route({
    ...appendManyRoute,
    config: OWNER_ROUTE,
    handler: async (request) => {
      await context.store.appendMany(request.body.transitions);
      return { seq: context.store.lastSeq() };
    },
  });

  app.route({ ...auditRoute, config: OWNER_ROUTE, handler: async () => context.store.audit() });
}
