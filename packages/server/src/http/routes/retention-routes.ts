/**
 * Retention over HTTP (store README "Retention", server README "Store API"): the policies of
 * stream families and a run, for the store's owner only — a policy and a run act on every stream
 * of a family, not on a caller's own alone. A run here writes no archive.
 */
import { listRetention, removeRetention, retain, setRetention } from '@stateflow/store';
import { listRetentionRoute, removeRetentionRoute, retainRoute, setRetentionRoute } from '@stateflow/http-contract';
import type { ContractApp } from '../contract-app.js';
import type { ServerContext } from '../server-context.js';
import { OWNER_ROUTE } from '../access-gate.js';

/** Register the retention routes on `app`. */
export function registerRetentionRoutes(app: ContractApp, context: ServerContext): void {
  app.route({ ...listRetentionRoute, config: OWNER_ROUTE, handler: async () => ({ policies: await listRetention(context.store) }) });
  app.route({ ...setRetentionRoute, config: OWNER_ROUTE, handler: async (request) => setRetention(context.store, request.body.pattern, request.body.policy) });
  app.route({ ...removeRetentionRoute, config: OWNER_ROUTE, handler: async (request) => removeRetention(context.store, request.body.pattern) });
  app.route({
    ...retainRoute,
    config: OWNER_ROUTE,
    handler: async (request) => {
      const report = await retain(context.store, { dryRun: request.body.dryRun === true, now: context.clock().getTime() });
      context.metrics.retentionRun(report);
      return { ...report, archive: null };
    },
  });
}
