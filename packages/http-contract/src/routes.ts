/**
 * Every route of the contract, in one list, and the same routes by `METHOD path` for clients
 * (`HttpRoutes['GET /v1/store/head']`). The state API's two routes are built from the tools'
 * input schemas ({@link stateRoutes}) and are listed by the server beside these.
 */
import { CHAT_ROUTES } from './chat-routes.js';
import { HISTORY_INSIGHT_ROUTES } from './history-insight-routes.js';
import { HISTORY_ROUTES } from './history-routes.js';
import type { RoutesByKey } from './route-contract.js';
import { SERVER_ROUTES } from './server-routes.js';
import { SESSION_ROUTES } from './session-routes.js';
import type { stateRoutes } from './state-routes.js';
import { STORE_READ_ROUTES } from './store-read-routes.js';
import { STORE_WRITE_ROUTES } from './store-write-routes.js';
import { RETENTION_ROUTES } from './retention-routes.js';

/** Every route but the state API's. */
export const HTTP_ROUTES = [...SESSION_ROUTES, ...CHAT_ROUTES, ...STORE_READ_ROUTES, ...STORE_WRITE_ROUTES, ...RETENTION_ROUTES, ...SERVER_ROUTES, ...HISTORY_ROUTES, ...HISTORY_INSIGHT_ROUTES] as const;

/** Every route of the API, the state API's included. */
export type HttpRoute = (typeof HTTP_ROUTES)[number] | ReturnType<typeof stateRoutes>[number];

/** Every route by `METHOD path`: `HttpRoutes['GET /v1/store/head']`. */
export type HttpRoutes = RoutesByKey<HttpRoute>;
