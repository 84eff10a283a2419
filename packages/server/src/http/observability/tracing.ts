/**
 * Tracing of a server (server README "Observability", "Traces"). The libraries (store, slates,
 * tools, this package's routes) make spans through `@opentelemetry/api` only, which are no-ops
 * until an SDK is registered; the server registers one only when asked:
 * `OTEL_EXPORTER_OTLP_ENDPOINT` (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) set in its
 * environment exports over OTLP/HTTP (protobuf-free JSON, batched), and the `tracing.exporter`
 * option (tests, embedders) exports to any SDK `SpanExporter`, span by span. Registered once per
 * process: an AsyncLocalStorage context manager, the W3C Trace Context propagator (so an incoming
 * `traceparent` continues the caller's trace) and a tracer provider.
 *
 * The SDK packages (`@opentelemetry/sdk-trace-base`, `context-async-hooks`, `core`, and
 * `exporter-trace-otlp-http` for OTLP) are optional peer dependencies, loaded only when tracing is
 * asked for, as fastify and pino leave the SDK to the application: a server that does not trace
 * never installs or loads them, and one asked to trace without them fails to start with
 * `PACKAGE_NOT_INSTALLED` naming the package.
 */
import { context, propagation, trace } from '@opentelemetry/api';
import { missingPackage } from '@stateflow/core';
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
 * @throws PACKAGE_NOT_INSTALLED `{ package, feature }` when tracing is asked for and an SDK
 *   package is not installed
 */
export async function startTracing(option: TracingOptions | undefined, env: Record<string, string | undefined>): Promise<Tracing | null> {
  if (registered !== null) return null;
  const otlp = Boolean(env['OTEL_EXPORTER_OTLP_ENDPOINT']) || Boolean(env['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT']);
  if (option === undefined && !otlp) return null;
  const feature = option === undefined ? 'Exporting traces (OTEL_EXPORTER_OTLP_ENDPOINT)' : "The server's tracing option";
  const [sdk, { AsyncLocalStorageContextManager }, { W3CTraceContextPropagator }] = await Promise.all([
    optional(import('@opentelemetry/sdk-trace-base'), feature),
    optional(import('@opentelemetry/context-async-hooks'), feature),
    optional(import('@opentelemetry/core'), feature),
  ]);
  const processor: SpanProcessor = option === undefined ? new sdk.BatchSpanProcessor(await otlpExporter(feature)) : new sdk.SimpleSpanProcessor(option.exporter);
  const provider = new sdk.BasicTracerProvider({ spanProcessors: [processor] });
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

/** The OTLP/HTTP exporter, configured from the environment by the exporter itself. */
async function otlpExporter(feature: string): Promise<SpanExporter> {
  const { OTLPTraceExporter } = await optional(import('@opentelemetry/exporter-trace-otlp-http'), feature);
  return new OTLPTraceExporter();
}

/** The module `loading` resolves to; PACKAGE_NOT_INSTALLED when its package is not installed. */
async function optional<M>(loading: Promise<M>, feature: string): Promise<M> {
  try {
    return await loading;
  } catch (err) {
    throw missingPackage(err, feature) ?? err;
  }
}
