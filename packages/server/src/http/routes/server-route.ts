/**
 * `GET /v1/server`: who serves this store (server README "Store API"); and `GET
 * /v1/server/proof?nonce=…`, the one API route anyone may call: the HMAC of a client's nonce with
 * the server token (`serverProof` of `@stateflow/client`), so a local client that read the token
 * from the discovery file can tell the store's server from an impostor on its port before it
 * sends the token (server README "The server token").
 */
import { createRequire } from 'node:module';
import type { FastifyInstance } from 'fastify';
import { serverProof } from '@stateflow/client';
import type { ServerContext } from '../server-context.js';
import { proofQuerySchema } from '../store-schemas.js';
import { PUBLIC_ROUTE, USER_ROUTE } from '../access-gate.js';

const { version } = createRequire(import.meta.url)('../../../package.json') as { version: string };

/** Register `GET /v1/server` and `GET /v1/server/proof` on `app`. */
export function registerServerRoute(app: FastifyInstance, context: ServerContext): void {
  app.get('/v1/server', { config: USER_ROUTE }, async (request) => ({
    version,
    lastSeq: context.store.lastSeq(),
    // Where the data lives and which process holds it are the store owner's business.
    ...(request.admin ? { pid: process.pid, ...(context.dir === null ? {} : { dir: context.dir }) } : {}),
  }));

  app.get<{ Querystring: { nonce: string } }>('/v1/server/proof', { config: PUBLIC_ROUTE, schema: { querystring: proofQuerySchema } }, async (request) => ({
    proof: serverProof(context.token, request.query.nonce),
  }));
}
