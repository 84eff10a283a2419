/**
 * A ladder's model calls observed (server README "Observability"): each `complete` runs in an
 * OpenTelemetry span of the GenAI semantic conventions (`chat`, kind CLIENT, attributes
 * `gen_ai.operation.name`, `gen_ai.request.model` when known, `gen_ai.usage.input_tokens` /
 * `output_tokens`, `error.type`), the child of its `ladder.step` span, and is counted in the
 * model-call duration and token histograms.
 */
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { isStateflowError } from '@stateflow/core';
import type { CompleteOptions, Model, ModelCompletion, ModelRequest } from '@stateflow/slates';
import type { ServerMetrics } from './metrics.js';

const tracer = trace.getTracer('@stateflow/server');

/** `model` whose calls are traced and counted for `ladder` (`modelName`: the request's `model`, for the span only). */
export function observedModel(model: Model, metrics: ServerMetrics, ladder: string, modelName?: string): Model {
  return {
    complete: (request: ModelRequest, options?: CompleteOptions) =>
      tracer.startActiveSpan(
        modelName === undefined ? 'chat' : `chat ${modelName}`,
        { kind: SpanKind.CLIENT, attributes: { 'gen_ai.operation.name': 'chat', ...(modelName === undefined ? {} : { 'gen_ai.request.model': modelName }), 'stateflow.ladder.step': request.step } },
        async (span): Promise<string | ModelCompletion> => {
          const start = performance.now();
          try {
            const answer = await model.complete(request, options);
            const usage = typeof answer === 'string' ? undefined : answer.usage;
            if (usage !== undefined) span.setAttributes({ 'gen_ai.usage.input_tokens': usage.promptTokens, 'gen_ai.usage.output_tokens': usage.completionTokens });
            metrics.modelCall(ladder, performance.now() - start, usage === undefined ? {} : { usage });
            return answer;
          } catch (err) {
            const error = isStateflowError(err) ? err.code : 'error';
            span.setAttribute('error.type', error);
            span.setStatus({ code: SpanStatusCode.ERROR });
            metrics.modelCall(ladder, performance.now() - start, { error });
            throw err;
          } finally {
            span.end();
          }
        },
      ),
  };
}
