/**
 * `GET /metrics` (server README "Observability"): the server's Prometheus metrics in the text
 * exposition format, for the store's owner only (they describe the whole store: its streams,
 * sessions and traffic). A scraper sends the server token (`X-Stateflow-Token`, or
 * `Authorization: Bearer <token>`), or scrapes a server without API keys on loopback.
 */
import { metricsRoute } from '@stateflow/http-contract';
import type { ContractApp } from '../contract-app.js';
import type { ServerContext } from '../server-context.js';
import { OWNER_ROUTE } from '../access-gate.js';

/** Register `GET /metrics` on `app`. */
export function registerMetricsRoute(app: ContractApp, context: ServerContext): void {
  const metrics = context.metrics;
  app.route({
    ...metricsRoute,
    config: OWNER_ROUTE,
    handler: async (_request, reply) => {
      const text = await metrics.text();
      return reply.status(200).type(metrics.registry.contentType).serializer((payload: unknown) => payload as string).send(text);
    },
  });
}
