/**
 * The OpenAI `chat.completion` answer of a ladder call, shared by chat/completions and by a
 * resume that continues a paused call.
 */
import { randomBytes } from 'node:crypto';
import { StateflowError } from '@stateflow/core';
import type { AbortedAt, Model, RunOutcome } from '@stateflow/slates';
import type { LadderCallResult, ModelProvider } from './ladder-runtime.js';

/**
 * The assistant message of a run's outcome, OpenAI's shape: a completed run's output as
 * `content`; an aborted run as a **refusal** — `content: null` and `refusal` saying which step's
 * gate aborted — which every OpenAI client parses and exposes (`message.refusal`), so an abort
 * never reads as an empty answer. Streamed answers send the same text as `delta.refusal`.
 */
export function assistantMessage(outcome: RunOutcome): { role: 'assistant'; content: string | null; refusal?: string } {
  if (outcome.kind === 'aborted') return { role: 'assistant', content: null, refusal: outcome.message };
  return { role: 'assistant', content: outcome.output ?? '' };
}

/** `stateflow.aborted` of an answer: where the run was aborted, or `null` when it completed. */
export function abortedMember(outcome: RunOutcome): AbortedAt | null {
  return outcome.kind === 'aborted' ? outcome.aborted : null;
}

/** A `chat.completion` with Stateflow's `stateflow` member (see the OpenAPI `ChatCompletion`). */
export interface ChatCompletion {
  id: string;
  object: 'chat.completion';
  /** Unix seconds. */
  created: number;
  model: string;
  choices: Array<{ index: number; message: ReturnType<typeof assistantMessage>; finish_reason: 'stop'; logprobs: null }>;
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
  stateflow: {
    session: string | null;
    ladder: string;
    rev: number | null;
    transition: number | null;
    evicted: LadderCallResult['evicted'];
    refused: LadderCallResult['refused'];
    /** Where a gate aborted the run; `null` when it completed. */
    aborted: AbortedAt | null;
  };
}

/** Build the answer for `result`. Token usage is not measured by the runner: reported as 0. */
export function chatCompletion(
  result: LadderCallResult,
  call: { model: string; session: string | null; ladder: string; now: Date },
): ChatCompletion {
  return {
    id: `chatcmpl-${randomBytes(12).toString('hex')}`,
    object: 'chat.completion',
    created: Math.floor(call.now.getTime() / 1000),
    model: call.model,
    choices: [{ index: 0, message: assistantMessage(result.outcome), finish_reason: 'stop', logprobs: null }],
    usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
    stateflow: {
      session: call.session,
      ladder: call.ladder,
      rev: result.rev,
      transition: result.transition,
      evicted: result.evicted,
      refused: result.refused,
      aborted: abortedMember(result.outcome),
    },
  };
}

/**
 * The model for a request's `model` name.
 * @throws MODEL_NOT_CONFIGURED (503) when no upstream is configured, saying how to configure one.
 */
export function requireModel(provider: ModelProvider | null, modelName: string): Model {
  if (provider === null) {
    throw new StateflowError(
      'MODEL_NOT_CONFIGURED',
      'No model upstream configured: set OPENAI_BASE_URL (an OpenAI-compatible endpoint, e.g. http://localhost:11434/v1) and OPENAI_API_KEY, ' +
        'or start the server with --model scripted:<file.jsonl>',
      {},
    );
  }
  return provider(modelName);
}
