/**
 * `GET /v1/{author}/{ladder}/models` and `GET …/models/{model}`: the OpenAI client's
 * `models.list()` and `models.retrieve()` against a ladder's base URL. The ladder is listed as
 * its one model, `id` = `@author/name`; a chat request naming it as `model` runs on the server's
 * default upstream model (see the chat route).
 */
import { StateflowError } from '@stateflow/core';
import { getModelRoute, listModelsRoute } from '@stateflow/http-contract';
import type { ModelObject } from '@stateflow/http-contract';
import type { ContractApp } from '../contract-app.js';
import type { LadderEntry } from '../ladder-catalog.js';
import type { ServerContext } from '../server-context.js';
import { servedLadder } from './ladder-target.js';
import { USER_ROUTE } from '../access-gate.js';

/** Register the models routes on `app`; `since` is when the server started serving its ladders. */
export function registerModelsRoutes(app: ContractApp, context: ServerContext, since: Date): void {
  const created = Math.floor(since.getTime() / 1000);
  const model = (entry: LadderEntry): ModelObject => ({ id: entry.id, object: 'model', created, owned_by: entry.id.slice(1).split('/')[0] ?? '' });

  app.route({
    ...listModelsRoute,
    config: USER_ROUTE,
    handler: async (request) => ({ object: 'list' as const, data: [model(servedLadder(context, request.params))] }),
  });

  app.route({
    ...getModelRoute,
    config: USER_ROUTE,
    handler: async (request) => {
      const entry = servedLadder(context, request.params);
      if (request.params.model !== entry.id) {
        throw new StateflowError('NOT_FOUND', `No model "${request.params.model}" here: this base URL serves one model, ${entry.id}`, {
          ladder: entry.id,
          model: request.params.model,
        });
      }
      return model(entry);
    },
  });
}
