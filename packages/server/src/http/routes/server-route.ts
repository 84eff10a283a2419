/**
 * `GET /v1/server`: who serves this store (server README "Store API"). Local clients check it to
 * tell a live server from a stale discovery file (the pid must match the file's).
 */
import { createRequire } from 'node:module';
import type { FastifyInstance } from 'fastify';
import type { ServerContext } from '../server-context.js';

const { version } = createRequire(import.meta.url)('../../../package.json') as { version: string };

/** Register `GET /v1/server` on `app`. */
export function registerServerRoute(app: FastifyInstance, context: ServerContext): void {
  app.get('/v1/server', async (request) => ({
    version,
    lastSeq: context.store.lastSeq(),
    // Where the data lives and which process holds it are the store owner's business.
    ...(request.admin ? { pid: process.pid, ...(context.dir === null ? {} : { dir: context.dir }) } : {}),
  }));
}
