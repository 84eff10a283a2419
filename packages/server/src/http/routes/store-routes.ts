/**
 * The store API (server README "Store API"): the store's public operations over HTTP, so other
 * processes — the CLI, `openRemoteStore` of `@stateflow/client`, the history page — use the store
 * that this server holds. Every answer carries `Stateflow-Last-Seq`. With API keys, a caller sees
 * only its own ladder sessions' streams (`stream-visibility.ts`): any other stream answers 404
 * `NOT_FOUND`, a transition with none of its streams answers 404 `TRANSITION_NOT_FOUND`, and
 * listings leave them out. The reads are `store-read-routes.ts`, the writes `store-write-routes.ts`.
 */
import { LAST_SEQ_HEADER } from '@stateflow/http-contract';
import type { ContractApp } from '../contract-app.js';
import type { ServerContext } from '../server-context.js';
import { registerStoreReadRoutes } from './store-read-routes.js';
import { registerStoreWriteRoutes } from './store-write-routes.js';
import { registerRetentionRoutes } from './retention-routes.js';

/** Register the store API routes on `app`, in a scope of their own that adds the last seq to every answer. */
export function registerStoreRoutes(app: ContractApp, context: ServerContext): void {
  void app.register(async (scope) => {
    scope.addHook('onSend', async (_request, reply, payload) => {
      void reply.header(LAST_SEQ_HEADER, String(context.store.lastSeq()));
      return payload;
    });
    registerStoreReadRoutes(scope, context);
    registerStoreWriteRoutes(scope, context);
    registerRetentionRoutes(scope, context);
  });
}
