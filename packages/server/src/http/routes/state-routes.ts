/**
 * The state API for agents that do not speak MCP (server README "State API"): `POST /v1/state/read` and
 * `POST /v1/state/patch` take the `read_state` / `patch_state` tool input plus a `selection`
 * and answer exactly the tool's output; errors go through the status table.
 *
 * Ownership: `selection-access.ts`.
 */
import { StateflowError, isJsonObject } from '@stateflow/core';
import type { JsonObject } from '@stateflow/core';
import { createRuntime, patchStateInputSchema, readStateInputSchema } from '@stateflow/tools';
import type { Selection } from '@stateflow/tools';
import { TRANSITION_HEADER, stateRoutes } from '@stateflow/http-contract';
import type { ContractApp } from '../contract-app.js';
import type { ServerContext } from '../server-context.js';
import { validateExcept } from '../request-validation.js';
import { authorizeSelection, sessionPrecondition } from '../selection-access.js';
import { USER_ROUTE } from '../access-gate.js';

/** Register the state API routes on `app`. */
export function registerStateRoutes(app: ContractApp, context: ServerContext): void {
  const [readRoute, patchRoute] = stateRoutes({ readState: readStateInputSchema, patchState: patchStateInputSchema });
  // The tools check their input themselves, with their own codes (PATH_SYNTAX, PATCH_INVALID, …).
  const validatorCompiler = validateExcept('body');

  app.route({
    ...readRoute,
    config: USER_ROUTE,
    validatorCompiler,
    handler: async (request) => {
      const { selection, input } = split(request.body);
      await authorizeSelection(context, request, selection);
      return createRuntime({ store: context.store, selection }).readState(input);
    },
  });

  app.route({
    ...patchRoute,
    config: USER_ROUTE,
    validatorCompiler,
    handler: async (request, reply) => {
      const { selection, input } = split(request.body);
      const session = await authorizeSelection(context, request, selection);
      // patch_state queues itself per store (@stateflow/tools): concurrent patches never conflict.
      // The body is exactly the tool's receipt; the transition it published rides in a header.
      return createRuntime({ store: context.store, selection, ...sessionPrecondition(context, request, session) }).patchState(input, {
        onPublished: (transition) => void reply.header(TRANSITION_HEADER, String(transition.seq)),
      });
    },
  });
}

/** Separate the HTTP-only `selection` member from the tool input. */
function split(body: unknown): { selection: Selection; input: JsonObject } {
  if (!isJsonObject(body)) {
    throw new StateflowError('INPUT_INVALID', 'Body must be a JSON object: the tool input plus "selection"', { field: 'body' });
  }
  const { selection, ...input } = body;
  if (!isJsonObject(selection)) {
    throw new StateflowError('INPUT_INVALID', 'Body needs "selection": {"session": "<id>", "mode": "active"} (or global / cwd)', {
      field: 'selection',
    });
  }
  return { selection: selection as unknown as Selection, input };
}

