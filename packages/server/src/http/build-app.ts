/**
 * The fastify app of the server: JSON bodies only, validated without coercion; `__proto__` /
 * `constructor` keys are data (as everywhere else in Stateflow: `JSON.parse` makes them own
 * properties and the tools copy them as data); bounded header and request times; every route's
 * declared access checked at registration and enforced by the gate before anything else of the
 * route runs; the per-key request rate; the routes, each from its contract, and the OpenAPI
 * document generated from them; and one translation of every failure — route errors, fastify's
 * client errors, unknown routes, malformed URLs — into the `{error: {code, type, message, details}}`
 * body.
 */
import Fastify from 'fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import fastifyRateLimit from '@fastify/rate-limit';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { StateflowError, elidePath, isStateflowError } from '@stateflow/core';
import { acceptTokenQuery, admit, checkDeclaredAccess } from './access-gate.js';
import type { ServedRoute } from './access-gate.js';
import { handleClientError } from './client-errors.js';
import { requestIds } from './request-id.js';
import { enterWriterScope } from './observability/writer-scope.js';
import { endRequestSpan, enterRequestSpan, startRequestSpan } from './observability/request-span.js';
import type { ContractApp } from './contract-app.js';
import { shouldRetry } from './error-status.js';
import { assertLoopbackRequest } from './loopback-guard.js';
import { registerApiDocument } from './api-document.js';
import { compileValidator } from './request-validation.js';
import type { ServerContext } from './server-context.js';
import { registerSessionRoutes } from './routes/session-routes.js';
import { registerSlateRoutes } from './routes/slate-routes.js';
import { registerChatRoute } from './routes/chat-route.js';
import { registerModelsRoutes } from './routes/models-route.js';
import { registerStateRoutes } from './routes/state-routes.js';
import { registerStoreRoutes } from './routes/store-routes.js';
import { registerWatchRoute } from './routes/watch-route.js';
import { registerServerRoute } from './routes/server-route.js';
import { registerMcpRoute } from './routes/mcp-route.js';
import { registerHistoryRoutes } from './routes/history-routes.js';
import { registerMetricsRoute } from './routes/metrics-route.js';
import { registerUiPage } from './ui-page.js';

/** How often Node checks connections against the header and request timeouts, in ms. */
const TIMEOUT_CHECK_INTERVAL_MS = 1_000;

/** A request rate: at most `requests` requests per `windowMs` milliseconds. */
export interface RateLimit {
  /** Requests allowed per window (≥ 1). */
  requests: number;
  /** The window, in ms (≥ 1). */
  windowMs: number;
}

/** How {@link buildApp} builds the app. */
export interface AppSettings {
  /** Largest request body, in bytes. */
  bodyLimit: number;
  /** Time a client has to send a request's headers, in ms. */
  headersTimeoutMs: number;
  /** Time a client has to send a whole request, in ms. */
  requestTimeoutMs: number;
  rateLimit: RateLimit | false;
  /** Receives every route as it is registered, with its declared access. */
  routes: ServedRoute[];
}

/** The app, its routes registered, not yet listening. */
export async function buildApp(context: ServerContext, settings: AppSettings): Promise<ContractApp> {
  const app = createApp(context, settings);
  await registerRequestRate(app, settings.rateLimit, context);
  registerNotFound(app);
  await registerApiDocument(app, context);
  registerRoutes(app, context);
  await registerUiPage(app);
  return app;
}

/**
 * The bare app: fastify's settings, validation, the gate, and the answers to failures. Answers
 * are `JSON.stringify`-ed as they are: a route's response schemas document and type it, they do
 * not reshape what it sends.
 */
function createApp(context: ServerContext, settings: AppSettings): ContractApp {
  const send = (err: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    const { status, body } = context.answerFailure(err, request);
    if (isStateflowError(err, 'RATE_LIMITED')) void reply.header('retry-after', String(err.details.retryAfterSeconds));
    return reply.status(status).header('x-should-retry', shouldRetry(body.error.code)).send(body);
  };
  const app = Fastify({
    logger: false,
    genReqId: requestIds(),
    clientErrorHandler: handleClientError,
    bodyLimit: settings.bodyLimit,
    requestTimeout: settings.requestTimeoutMs,
    http: { headersTimeout: settings.headersTimeoutMs, connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS },
    // No automatic HEAD twin of every GET: HEAD is declared where it is served (the page's files).
    exposeHeadRoutes: false,
    onProtoPoisoning: 'ignore',
    onConstructorPoisoning: 'ignore',
    frameworkErrors: (err, request, reply) => void send(err, request, reply),
  }).withTypeProvider<TypeBoxTypeProvider>();
  app.setValidatorCompiler(compileValidator);
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  // Bodies are JSON: fastify's text/plain parser would hand a string to the routes.
  app.removeContentTypeParser('text/plain');
  app.decorateRequest('user', '');
  app.decorateRequest('admin', false);
  app.decorateRequest('keyId', null);
  app.addHook('onRoute', (route) => {
    acceptTokenQuery(route);
    settings.routes.push(...checkDeclaredAccess(route));
  });
  app.addHook('onRequest', async (request, reply) => {
    void reply.header('x-request-id', request.id);
    startRequestSpan(request);
    if (context.activity !== null) reply.raw.once('close', context.activity.begin());
    if (context.keys === null) assertLoopbackRequest(request.headers.host, request.headers.origin);
    admit(request, context);
  });
  app.addHook('onResponse', async (request, reply) => {
    context.metrics.httpRequest(request.method, request.routeOptions.url ?? 'unmatched', reply.statusCode, reply.elapsedTime);
    endRequestSpan(request, reply.statusCode);
  });
  // The handler runs in its request's writer scope (after the gate named the user, after the body).
  app.addHook('preHandler', enterWriterScope);
  app.addHook('preHandler', enterRequestSpan);
  app.setErrorHandler(async (err, request, reply) => send(err, request, reply));
  return app;
}

/** With API keys, the per-key request rate (`RATE_LIMITED` with `Retry-After` over it). */
async function registerRequestRate(app: ContractApp, rateLimit: RateLimit | false, context: ServerContext): Promise<void> {
  if (context.keys === null || rateLimit === false) return;
  // Route-level hooks run after the gate, which named the key (`request.keyId`).
  await app.register(fastifyRateLimit, {
    max: rateLimit.requests,
    timeWindow: rateLimit.windowMs,
    keyGenerator: (request) => request.keyId ?? '',
    allowList: (request) => request.keyId === null,
    errorResponseBuilder: (_request, limited) =>
      new StateflowError('RATE_LIMITED', `This API key sent more than ${limited.max} requests in ${rateLimit.windowMs} ms: retry after ${Math.ceil(limited.ttl / 1000)} s.`, {
        limit: 'requests',
        max: limited.max,
        windowMs: rateLimit.windowMs,
        retryAfterSeconds: Math.ceil(limited.ttl / 1000),
      }),
  });
}

/**
 * The answer of a path no route serves: 404 `NOT_FOUND`, counted by the per-key request rate
 * like any route (else guessing URLs would be free), through the error handler.
 */
function registerNotFound(app: ContractApp): void {
  const limited = app.hasDecorator('rateLimit') ? { preHandler: app.rateLimit() } : {};
  app.setNotFoundHandler(limited, async (request) => {
    const route = elidePath(request.url.split('?')[0] ?? '');
    throw new StateflowError('NOT_FOUND', `No route ${request.method} ${route}`, { route });
  });
}

/** Every API route, each from its contract. */
function registerRoutes(app: ContractApp, context: ServerContext): void {
  registerSessionRoutes(app, context);
  registerSlateRoutes(app, context);
  registerChatRoute(app, context);
  registerModelsRoutes(app, context, context.clock());
  registerStateRoutes(app, context);
  registerStoreRoutes(app, context);
  registerWatchRoute(app, context);
  registerServerRoute(app, context);
  registerMcpRoute(app, context);
  registerHistoryRoutes(app, context);
  registerMetricsRoute(app, context);
}

