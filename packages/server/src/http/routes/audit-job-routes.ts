/**
 * The audit as a background job (contract `auditJobStartRoute` …; `insight/audit-job.ts`):
 * start or join, read, cancel, and follow its progress as Server-Sent Events. The audit covers
 * the whole log, so every route is the store's owner's only, as `POST /v1/store/audit` is.
 *
 * The event stream is a handful of named events and a heartbeat comment, ending with the job, so
 * it is written directly (`event:` / `data:` lines, the Server-Sent Events framing) rather than
 * through the watch route's long-lived `better-sse` session.
 */
import { StateflowError } from '@stateflow/core';
import { auditJobCancelRoute, auditJobEventsRoute, auditJobGetRoute, auditJobStartRoute } from '@stateflow/http-contract';
import type { AuditJob } from '@stateflow/http-contract';
import type { ContractApp } from '../contract-app.js';
import { auditJobsOf } from '../insight/audit-job.js';
import type { ServerContext } from '../server-context.js';
import { OWNER_ROUTE } from '../access-gate.js';

/** Register the audit job's routes on `app`. */
export function registerAuditJobRoutes(app: ContractApp, context: ServerContext): void {
  const jobs = auditJobsOf(context.store, context.clock);
  context.shutdown.addEventListener('abort', () => jobs.cancel(), { once: true });
  app.route({ ...auditJobStartRoute, config: OWNER_ROUTE, handler: async () => jobs.start() });
  app.route({ ...auditJobGetRoute, config: OWNER_ROUTE, handler: async () => ({ job: jobs.latest() }) });
  app.route({
    ...auditJobCancelRoute,
    config: OWNER_ROUTE,
    handler: async () => {
      jobs.cancel();
      return { job: jobs.latest() };
    },
  });
  app.route({
    ...auditJobEventsRoute,
    config: OWNER_ROUTE,
    handler: async (request, reply) => {
      const job = jobs.latest();
      if (job === null) throw new StateflowError('NOT_FOUND', 'No audit job has run on this server yet: start one with POST /v1/history/audit-job.', { url: request.url });
      reply.hijack();
      const raw = reply.raw;
      raw.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-accel-buffering': 'no' });
      const push = (event: string, data: unknown): void => void raw.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
      if (job.state !== 'running') {
        raw.end(`event: job\ndata: ${JSON.stringify(job)}\n\n`);
        return;
      }
      push('job', job);
      const heartbeat = setInterval(() => raw.write(': heartbeat\n\n'), context.heartbeatMs);
      const finish = (ended?: AuditJob): void => {
        clearInterval(heartbeat);
        stop();
        if (ended !== undefined) push('job', ended);
        raw.end();
      };
      const stop = jobs.subscribe({ progress: (p) => push('progress', p), end: (ended) => finish(ended) });
      raw.once('close', () => finish());
    },
  });
}
