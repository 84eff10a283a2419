/**
 * The wall-clock work budget of one read request (server README "Limits"): the routes whose cost
 * depends on stored data (search, blame, path history) check it between units of work and, once
 * it is spent, answer what they have with a `next` cursor to go on from. Long work also yields to
 * the event loop every `YIELD_EVERY_MS` (the store's `workBudget`, bounded or not), so one request cannot hold another
 * user's answer for longer than that.
 *
 * Who is bounded: API-key users get the server's `workBudgetMs`, as publish-many's staging does.
 * The store's owner (the server token, or a keyless server) is not: the owner may already read the
 * whole store and run the audit, there is no one to isolate it from but itself, and its tools
 * (the CLI, the page) expect one answer per request — it still yields, so it stalls no one.
 */
import type { FastifyRequest } from 'fastify';
import { workBudget } from '@stateflow/store';
import type { WorkBudget } from '@stateflow/store';
import type { ServerContext } from './server-context.js';

/** The budget of `request`: the server's `workBudgetMs` for an API-key user, unbounded for the owner. */
export function requestBudget(context: Pick<ServerContext, 'workBudgetMs'>, request: FastifyRequest): WorkBudget {
  return workBudget(request.admin ? Number.POSITIVE_INFINITY : context.workBudgetMs);
}
