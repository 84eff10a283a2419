/**
 * One request to a route of the server's HTTP contract (`@stateflow/http-contract`), typed by
 * it: the route is named by its key (`GET /v1/store/head`), the body is that route's request
 * body and the answer its success reply. Only the contract's types are used: none of its
 * schemas load in a client.
 */
import type { HttpRoutes, RouteBody, RouteReply } from '@stateflow/http-contract';
import { callServer } from './http-call.js';
import type { CallOptions, CallResult, ServerEndpoint } from './http-call.js';

/** A route a client calls: `GET …` or `POST …` of the contract. */
export type RouteName = Extract<keyof HttpRoutes, `GET ${string}` | `POST ${string}`>;

/** One request to route `R`. */
export interface RouteCallOptions<R extends RouteName> extends Omit<CallOptions, 'method' | 'body'> {
  /** Path parameters by name (`{ seq: '3' }` for `/v1/store/transitions/:seq`), encoded here. */
  params?: Record<string, string>;
  /** The route's request body. */
  body?: RouteBody<HttpRoutes[R]>;
}

/**
 * Send one request to `route` and parse its answer as the route's success reply.
 * @throws as {@link callServer}: the server's code for an error answer, `STORE_UNAVAILABLE` when
 *   the server cannot be reached.
 */
export async function callRoute<R extends RouteName>(endpoint: ServerEndpoint, route: R, options: RouteCallOptions<R> = {}): Promise<CallResult<RouteReply<HttpRoutes[R]>>> {
  const { params = {}, ...call } = options;
  const method = route.startsWith('GET ') ? 'GET' : 'POST';
  // The path relative to the endpoint's URL (which may carry a path of its own).
  const path = route.slice(route.indexOf('/') + 1).replace(/:([A-Za-z]+)/g, (_pattern, name: string) => encodeURIComponent(params[name] ?? ''));
  return callServer<RouteReply<HttpRoutes[R]>>(endpoint, path, { ...call, method });
}
