/**
 * The HTTP server span of each request (OTel HTTP semantic conventions: `{method} {http.route}`,
 * kind SERVER, `http.request.method`, `http.route`, `url.path`, `http.response.status_code`),
 * continuing the caller's trace when the request carries `traceparent`. Started in `onRequest`,
 * entered in `preHandler` (so the handler's spans — an MCP tool call, a ladder step, a publish —
 * are its children; body parsing runs outside any request context), ended in `onResponse`.
 * With no tracing SDK registered every call here is a no-op.
 */
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, context, propagation, trace } from '@opentelemetry/api';
import type { Span } from '@opentelemetry/api';
import type { FastifyReply, FastifyRequest } from 'fastify';

const tracer = trace.getTracer('@stateflow/server');
const spans = new WeakMap<FastifyRequest, Span>();

/** fastify `onRequest`: start `request`'s span. */
export function startRequestSpan(request: FastifyRequest): void {
  const parent = propagation.extract(ROOT_CONTEXT, request.headers);
  const route = request.routeOptions.url;
  const span = tracer.startSpan(
    route === undefined ? request.method : `${request.method} ${route}`,
    { kind: SpanKind.SERVER, attributes: { 'http.request.method': request.method, ...(route === undefined ? {} : { 'http.route': route }), 'url.path': request.url.split('?')[0] ?? '' } },
    parent,
  );
  spans.set(request, span);
}

/** fastify `preHandler` (callback style): run the rest of the request in its span's context. */
export function enterRequestSpan(request: FastifyRequest, _reply: FastifyReply, done: () => void): void {
  const span = spans.get(request);
  if (span === undefined) return done();
  context.with(trace.setSpan(context.active(), span), done);
}

/** fastify `onResponse`: end `request`'s span with the status. */
export function endRequestSpan(request: FastifyRequest, status: number): void {
  const span = spans.get(request);
  if (span === undefined) return;
  span.setAttribute('http.response.status_code', status);
  if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
  spans.delete(request);
}
