/**
 * `GET /v1/server`: who serves this store (server README "Store API"); and `GET
 * /v1/server/proof?nonce=…`, the one API route anyone may call: the HMAC of a client's nonce with
 * the server token (`serverProof` of `@stateflow/client`), so a local client that read the token
 * from the discovery file can tell the store's server from an impostor on its port before it
 * sends the token (server README "The server token").
 */
import { createRequire } from 'node:module';
import { serverProof } from '@stateflow/client';
import { serverInfoRoute, serverProofRoute } from '@stateflow/http-contract';
import type { ContractApp } from '../contract-app.js';
import type { ServerContext } from '../server-context.js';
import { PUBLIC_ROUTE, USER_ROUTE } from '../access-gate.js';

const { version } = createRequire(import.meta.url)('../../../package.json') as { version: string };

/** Register `GET /v1/server` and `GET /v1/server/proof` on `app`. */
export function registerServerRoute(app: ContractApp, context: ServerContext): void {
  app.route({
    ...serverInfoRoute,
    config: USER_ROUTE,
    handler: async (request) => ({
      version,
      lastSeq: context.store.lastSeq(),
      // Where the data lives and which process holds it are the store owner's business.
      ...(request.admin ? { pid: process.pid, ...(context.dir === null ? {} : { dir: context.dir }) } : {}),
    }),
  });

  app.route({ ...serverProofRoute, config: PUBLIC_ROUTE, handler: async (request) => ({ proof: serverProof(context.token, request.query.nonce), pidProof: serverProof(context.token, request.query.nonce, process.pid) }) });
}
