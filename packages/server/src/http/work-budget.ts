/**
 * The wall-clock work budget of one read request (server README "Limits"): the routes whose cost
 * depends on stored data (search, blame, path history) check it between units of work and, once
 * it is spent, answer what they have with a `next` cursor to go on from. Long work also yields to
 * the event loop every {@link YIELD_EVERY_MS} (bounded or not), so one request cannot hold another
 * user's answer for longer than that.
 *
 * Who is bounded: API-key users get the server's `workBudgetMs`, as publish-many's staging does.
 * The store's owner (the server token, or a keyless server) is not: the owner may already read the
 * whole store and run the audit, there is no one to isolate it from but itself, and its tools
 * (the CLI, the page) expect one answer per request — it still yields, so it stalls no one.
 */
import type { FastifyRequest } from 'fastify';
import type { ServerContext } from './server-context.js';

/** Work between two yields to the event loop, in ms (the same pace as publish-many's staging). */
export const YIELD_EVERY_MS = 10;

/** The clock and yield points of one request's work. */
export interface WorkBudget {
  /** The budget in ms; `Infinity` when unbounded. */
  readonly ms: number;
  /** True once the request's work has taken its budget (never when unbounded). */
  spent(): boolean;
  /** Yield to the event loop (`setImmediate`) when {@link YIELD_EVERY_MS} passed since the last yield; resolves at once otherwise. */
  pace(): Promise<void>;
}

/**
 * A budget of `ms` wall-clock ms from now (`Infinity`, or 0 by the server option's convention:
 * unbounded). Time spent waiting for the event loop after a yield counts, so the answer comes
 * within the budget plus one unit of work, whatever the load.
 */
export function workBudget(ms: number): WorkBudget {
  const limit = ms === 0 ? Number.POSITIVE_INFINITY : ms;
  const started = performance.now();
  let lastYield = started;
  return {
    ms: limit,
    spent: () => performance.now() - started >= limit,
    pace: async () => {
      if (performance.now() - lastYield < YIELD_EVERY_MS) return;
      await new Promise<void>((resolve) => setImmediate(resolve));
      lastYield = performance.now();
    },
  };
}

/** The budget of `request`: the server's `workBudgetMs` for an API-key user, unbounded for the owner. */
export function requestBudget(context: Pick<ServerContext, 'workBudgetMs'>, request: FastifyRequest): WorkBudget {
  return workBudget(request.admin ? Number.POSITIVE_INFINITY : context.workBudgetMs);
}
