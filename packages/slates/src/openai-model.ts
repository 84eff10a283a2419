/**
 * A model backed by any OpenAI-compatible chat-completions endpoint, through the official
 * `openai` client (which owns the HTTP and the Server-Sent Events parsing of streamed answers).
 */
import OpenAI from 'openai';
import { StateflowError } from '@stateflow/core';
import type { Model, ModelCompletion, TokenUsage } from './model.js';

/** Options of {@link openAIModel}; each falls back to the environment. */
export interface OpenAIModelOptions {
  /** Model name, e.g. `gpt-4o`. Required (no environment fallback). */
  model: string;
  /** Base URL up to `/v1`. Default `OPENAI_BASE_URL`, else `https://api.openai.com/v1`. */
  baseURL?: string;
  /** Bearer key. Default `OPENAI_API_KEY`; a missing key is allowed for local servers. */
  apiKey?: string;
  /** Sampling temperature passed through when set. */
  temperature?: number;
  /** Time in ms to wait for the upstream to start answering. Default 120,000. */
  timeoutMs?: number;
  /** Environment to read fallbacks from. Default `process.env`. */
  env?: Record<string, string | undefined>;
  /** fetch implementation (tests may inject one). Default global `fetch`. */
  fetch?: typeof fetch;
}

/**
 * A {@link Model} backed by an OpenAI-compatible chat-completions endpoint
 * (`POST <baseURL>/chat/completions`). A call the runner streams is sent with `stream: true`
 * and `stream_options: {include_usage: true}` and forwards each content delta as it arrives;
 * other calls are plain requests. The answer's `usage` is reported when the upstream gives it.
 * No retries: a failure reaches the caller at once.
 *
 * `complete` throws MODEL_UNAVAILABLE `{ url }` when the server cannot be reached, times out or
 * drops the connection, and MODEL_FAILED `{ url, status? }` on a non-2xx status, an answer
 * without `choices[0].message.content`, or a stream without any choice.
 * @throws USAGE when `model` is empty
 */
export function openAIModel(options: OpenAIModelOptions): Model {
  if (!options.model) throw new StateflowError('USAGE', 'openAIModel needs a model name (e.g. "gpt-4o")', {});
  const env = options.env ?? process.env;
  const baseURL = (options.baseURL ?? env.OPENAI_BASE_URL ?? 'https://api.openai.com/v1').replace(/\/+$/, '');
  const url = `${baseURL}/chat/completions`;
  const client = new OpenAI({
    baseURL,
    // The client refuses to start without a key; local upstreams (Ollama, vLLM) need none.
    apiKey: options.apiKey ?? env.OPENAI_API_KEY ?? '',
    maxRetries: 0,
    timeout: options.timeoutMs ?? 120_000,
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
  });
  // Without a key, send no Authorization header at all (not "Bearer ").
  const requestOptions = (options.apiKey ?? env.OPENAI_API_KEY) ? {} : { headers: { authorization: null } };
  return {
    async complete(request, completeOptions) {
      const body = {
        model: options.model,
        messages: request.messages,
        ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
      };
      const onDelta = completeOptions?.onDelta;
      try {
        if (onDelta === undefined) {
          const answer = await client.chat.completions.create(body, requestOptions);
          const content: unknown = answer.choices?.[0]?.message?.content;
          if (typeof content !== 'string') {
            throw new StateflowError('MODEL_FAILED', `${url} returned no choices[0].message.content`, { url, status: 200 });
          }
          return completion(content, answer.usage);
        }
        const stream = await client.chat.completions.create({ ...body, stream: true, stream_options: { include_usage: true } }, requestOptions);
        let content = '';
        let choices = 0;
        let usage: OpenAI.CompletionUsage | null | undefined;
        for await (const chunk of stream) {
          choices += chunk.choices?.length ?? 0;
          const delta: unknown = chunk.choices?.[0]?.delta?.content;
          if (typeof delta === 'string' && delta !== '') {
            content += delta;
            onDelta(delta);
          }
          if (chunk.usage) usage = chunk.usage;
        }
        if (choices === 0) throw new StateflowError('MODEL_FAILED', `${url} streamed no choices`, { url, status: 200 });
        return completion(content, usage);
      } catch (err) {
        throw translate(err, url);
      }
    },
  };
}

function completion(content: string, usage: OpenAI.CompletionUsage | null | undefined): ModelCompletion {
  const counted = tokenUsage(usage);
  return counted === undefined ? { content } : { content, usage: counted };
}

/** The upstream's `usage`, when it is three non-negative integer counts. */
function tokenUsage(usage: OpenAI.CompletionUsage | null | undefined): TokenUsage | undefined {
  const counts = [usage?.prompt_tokens, usage?.completion_tokens, usage?.total_tokens];
  if (!counts.every((n) => Number.isSafeInteger(n) && (n as number) >= 0)) return undefined;
  const [promptTokens, completionTokens, totalTokens] = counts as [number, number, number];
  return { promptTokens, completionTokens, totalTokens };
}

/** The one translation of the client's errors into Stateflow's. */
function translate(err: unknown, url: string): StateflowError {
  if (err instanceof StateflowError) return err;
  if (err instanceof OpenAI.APIError && err.status !== undefined) {
    const shown = err.error === undefined ? err.message : JSON.stringify(err.error);
    return new StateflowError('MODEL_FAILED', `${url} answered ${err.status}: ${shown.slice(0, 500)}`, { url, status: err.status }, { cause: err });
  }
  const message = err instanceof Error ? err.message : String(err);
  return new StateflowError('MODEL_UNAVAILABLE', `Cannot reach ${url}: ${message}`, { url }, { cause: err });
}
