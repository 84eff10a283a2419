/**
 * The span and the observer call of one ladder step (`ladder-observer.ts`): one helper, so the
 * step loop carries one call.
 */
import { SpanStatusCode, context, trace } from '@opentelemetry/api';
import type { LadderObserver } from '../ladder-observer.js';

const tracer = trace.getTracer('@stateflow/slates');

/** Run step `step` (`fn`) in a `ladder.step` span, then tell `observer`. */
export async function observedStep<T>(observer: LadderObserver | undefined, ladder: string, step: string, nodes: number, fn: () => Promise<T>): Promise<T> {
  const start = performance.now();
  const span = tracer.startSpan('ladder.step', { attributes: { 'stateflow.ladder': ladder, 'stateflow.ladder.step': step, 'stateflow.ladder.nodes': nodes } });
  try {
    return await context.with(trace.setSpan(context.active(), span), fn);
  } catch (err) {
    span.recordException(err as Error);
    span.setStatus({ code: SpanStatusCode.ERROR });
    throw err;
  } finally {
    span.end();
    try {
      observer?.step?.({ step, nodes, ms: performance.now() - start });
    } catch {
      // An observer's failure is its own.
    }
  }
}
