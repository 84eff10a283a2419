/**
 * Tracing of a server (server README "Observability", "Traces"). The libraries (store, slates,
 * tools, this package's routes) make spans through `@opentelemetry/api` only, which are no-ops
 * until an SDK is registered; the server registers one only when asked:
 * `OTEL_EXPORTER_OTLP_ENDPOINT` (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) set in its
 * environment exports over OTLP/HTTP (protobuf-free JSON, batched), and the `tracing.exporter`
 * option (tests, embedders) exports to any SDK `SpanExporter`, span by span. Registered once per
 * process: an AsyncLocalStorage context manager, the W3C Trace Context propagator (so an incoming
 * `traceparent` continues the caller's trace) and a tracer provider.
 */
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider, BatchSpanProcessor, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { SpanExporter, SpanProcessor } from '@opentelemetry/sdk-trace-base';

/** The `tracing` option of `startServer`. */
export interface TracingOptions {
  /** Export every span to this exporter as it ends (an SDK `SpanExporter`, e.g. the in-memory one). */
  exporter: SpanExporter;
}

/** What {@link startTracing} registered, to flush and shut down with the server. */
export interface Tracing {
  shutdown(): Promise<void>;
}

let registered: Tracing | null = null;

/**
 * Register the tracing SDK when `option` or `env` asks for it (see the module comment); `null`
 * when nothing asks, or when this process registered it already (the first registration stays).
 */
export async function startTracing(option: TracingOptions | undefined, env: Record<string, string | undefined>): Promise<Tracing | null> {
  if (registered !== null) return null;
  const processor = await processorFor(option, env);
  if (processor === null) return null;
  const provider = new BasicTracerProvider({ spanProcessors: [processor] });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  registered = {
    async shutdown() {
      await provider.forceFlush();
    },
  };
  return registered;
}

async function processorFor(option: TracingOptions | undefined, env: Record<string, string | undefined>): Promise<SpanProcessor | null> {
  if (option !== undefined) return new SimpleSpanProcessor(option.exporter);
  if (!env['OTEL_EXPORTER_OTLP_ENDPOINT'] && !env['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT']) return null;
  // Loaded only when asked for: a server without tracing never loads the exporter.
  const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
  return new BatchSpanProcessor(new OTLPTraceExporter());
}
