/**
 * What one route of the HTTP API is, as data: its method, its path (fastify's pattern,
 * `/v1/store/transitions/:seq`) and a fastify route schema — `operationId`, `summary`, the
 * request parts (`params`, `querystring`, `headers`, `body`) and every response by status.
 * The server registers each route from its contract (the request parts validate requests; all of
 * it becomes the OpenAPI document), and clients take their request and response types from it.
 */
import type { Static, TSchema } from '@sinclair/typebox';

/** A response: one schema (JSON), or one schema per media type (JSON or Server-Sent Events). */
export type ResponseContract = TSchema | { description: string; content: Record<string, { schema: TSchema }> };

/** The fastify route schema of a route, with the OpenAPI members `@fastify/swagger` reads. */
export interface RouteSchema {
  operationId: string;
  summary: string;
  description?: string;
  /** Path parameters (`:name` in the path). */
  params?: TSchema;
  querystring?: TSchema;
  headers?: TSchema;
  body?: TSchema;
  /** Every response by status: the 2xx ones and each error status the route can answer. */
  response: Record<number, ResponseContract>;
  /** `[]`: the route needs no credential (the document's default is the bearer key or the token). */
  security?: readonly Record<string, readonly string[]>[];
}

/** One route. */
export interface RouteContract {
  method: 'GET' | 'POST' | 'DELETE';
  /** fastify's pattern: `:name` for a path parameter. */
  url: string;
  schema: RouteSchema;
}

type SchemaOf<R extends ResponseContract> = R extends { content: Record<string, { schema: infer S }> } ? S : R;

/** The JSON body a successful (200) answer of route `R` carries. */
export type RouteReply<R extends RouteContract> = R['schema']['response'] extends { 200: infer A extends ResponseContract }
  ? SchemaOf<A> extends infer S extends TSchema
    ? Static<S>
    : never
  : never;

/** The request body of route `R`. */
export type RouteBody<R extends RouteContract> = R['schema']['body'] extends infer B extends TSchema ? Static<B> : never;

/** The query parameters of route `R`. */
export type RouteQuery<R extends RouteContract> = R['schema']['querystring'] extends infer Q extends TSchema ? Static<Q> : never;

/** The path parameters of route `R`. */
export type RouteParams<R extends RouteContract> = R['schema']['params'] extends infer P extends TSchema ? Static<P> : never;

/** A route's key in {@link HttpRoutes}-style maps: `GET /v1/store/head`. */
export type RouteKey<R extends RouteContract> = `${R['method']} ${R['url']}`;

/** Routes by {@link RouteKey}. */
export type RoutesByKey<R extends RouteContract> = { [Route in R as RouteKey<Route>]: Route };
