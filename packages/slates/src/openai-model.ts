/**
 * An OpenAI-compatible chat-completions client over `fetch` (POST `<baseURL>/chat/completions`).
 */
import { StateflowError } from '@stateflow/core';
import type { Model } from './model.js';

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
  /** Request timeout in ms. Default 120,000. */
  timeoutMs?: number;
  /** Environment to read fallbacks from. Default `process.env`. */
  env?: Record<string, string | undefined>;
  /** fetch implementation (tests may inject one). Default global `fetch`. */
  fetch?: typeof fetch;
}

/**
 * A {@link Model} backed by any OpenAI-compatible chat-completions endpoint.
 * `complete` throws MODEL_UNAVAILABLE when the server cannot be reached (or times out) and
 * MODEL_FAILED on a non-2xx status or a response without `choices[0].message.content`.
 * @throws USAGE when `model` is empty
 */
export function openAIModel(options: OpenAIModelOptions): Model {
  if (!options.model) throw new StateflowError('USAGE', 'openAIModel needs a model name (e.g. "gpt-4o")', {});
  const env = options.env ?? process.env;
  const baseURL = (options.baseURL ?? env.OPENAI_BASE_URL ?? 'https://api.openai.com/v1').replace(/\/+$/, '');
  const apiKey = options.apiKey ?? env.OPENAI_API_KEY;
  const doFetch = options.fetch ?? fetch;
  const url = `${baseURL}/chat/completions`;
  return {
    async complete(request) {
      const body: Record<string, unknown> = { model: options.model, messages: request.messages };
      if (options.temperature !== undefined) body.temperature = options.temperature;
      let response: Response;
      try {
        response = await doFetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(options.timeoutMs ?? 120_000),
        });
      } catch (err) {
        throw new StateflowError('MODEL_UNAVAILABLE', `Cannot reach ${url}: ${(err as Error).message}`, { url }, { cause: err });
      }
      const text = await response.text();
      if (!response.ok) {
        throw new StateflowError('MODEL_FAILED', `${url} answered ${response.status}: ${text.slice(0, 500)}`, {
          url,
          status: response.status,
        });
      }
      let content: unknown;
      try {
        content = (JSON.parse(text) as { choices?: Array<{ message?: { content?: unknown } }> }).choices?.[0]?.message?.content;
      } catch {
        content = undefined;
      }
      if (typeof content !== 'string') {
        throw new StateflowError('MODEL_FAILED', `${url} returned no choices[0].message.content`, { url, status: response.status });
      }
      return content;
    },
  };
}
