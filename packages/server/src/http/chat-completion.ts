/**
 * The OpenAI `chat.completion` answer of a ladder call, shared by chat/completions and by a
 * resume that continues a paused call; and the parts its streamed form (`chat-stream.ts`)
 * shares with it: the usage, the aborted run's refusal text, the `stateflow` member.
 */
import { randomBytes } from 'node:crypto';
import { StateflowError } from '@stateflow/core';
import type { Model, TokenUsage } from '@stateflow/slates';
import type { LadderCallResult, ModelProvider } from './ladder-runtime.js';

/** OpenAI's `usage` object, in tokens. */
export interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/** Stateflow's member of a completion (and of the last chunk of a streamed one). */
export interface StateflowMember {
  session: string | null;
  ladder: string;
  rev: number | null;
  transition: number | null;
  evicted: LadderCallResult['evicted'];
  refused: LadderCallResult['refused'];
  /** The gate that ended the run with `abort`, or `null` when the run was not aborted. */
  aborted: { step: string; node: number; branch: 'then' | 'else' } | null;
}

/**
 * The assistant message of a call: its output as `content`; for an aborted run `content: null`
 * and a `refusal` saying which gate aborted (OpenAI's shape for an answer that was withheld, so
 * every OpenAI client parses it and shows it as a refusal).
 */
export interface ChatMessage {
  role: 'assistant';
  content: string | null;
  refusal: string | null;
}

/** A `chat.completion` with Stateflow's `stateflow` member (see the OpenAPI `ChatCompletion`). */
export interface ChatCompletion {
  id: string;
  object: 'chat.completion';
  /** Unix seconds. */
  created: number;
  model: string;
  choices: Array<{ index: number; message: ChatMessage; finish_reason: 'stop'; logprobs: null }>;
  /** Omitted when any model call's usage was unknown (never 0 or a partial sum). */
  usage?: ChatUsage;
  stateflow: StateflowMember;
}

/** Who and what a completion is for. */
export interface CompletionCall {
  model: string;
  session: string | null;
  ladder: string;
  now: Date;
}

/** A new completion id, `chatcmpl-` + 24 hex characters. */
export function completionId(): string {
  return `chatcmpl-${randomBytes(12).toString('hex')}`;
}

/** OpenAI's `usage` for the run's summed usage, `undefined` when it is unknown. */
export function chatUsage(usage: TokenUsage | null): ChatUsage | undefined {
  if (usage === null) return undefined;
  return { prompt_tokens: usage.promptTokens, completion_tokens: usage.completionTokens, total_tokens: usage.totalTokens };
}

/** The refusal text of an aborted run, naming the gate; `null` when the run was not aborted. */
export function abortRefusal(result: LadderCallResult): string | null {
  const a = result.aborted;
  if (a === undefined) return null;
  return `The ladder aborted at step "${a.step}" (node ${a.node}): its gate's ${a.branch} branch is abort, so the run ended without an answer.`;
}

/** The `stateflow` member for `result`. */
export function stateflowMember(result: LadderCallResult, call: CompletionCall): StateflowMember {
  return {
    session: call.session,
    ladder: call.ladder,
    rev: result.rev,
    transition: result.transition,
    evicted: result.evicted,
    refused: result.refused,
    aborted: result.aborted ?? null,
  };
}

/** Build the answer for `result`. */
export function chatCompletion(result: LadderCallResult, call: CompletionCall): ChatCompletion {
  const refusal = abortRefusal(result);
  const usage = chatUsage(result.usage);
  return {
    id: completionId(),
    object: 'chat.completion',
    created: Math.floor(call.now.getTime() / 1000),
    model: call.model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: refusal === null ? result.output : null, refusal },
        finish_reason: 'stop',
        logprobs: null,
      },
    ],
    ...(usage === undefined ? {} : { usage }),
    stateflow: stateflowMember(result, call),
  };
}

/**
 * The model for a request's `model` name.
 * @throws MODEL_UNAVAILABLE (503) when no upstream is configured, saying how to configure one.
 */
export function requireModel(provider: ModelProvider | null, modelName: string): Model {
  if (provider === null) {
    throw new StateflowError(
      'MODEL_UNAVAILABLE',
      'No model upstream configured: set OPENAI_BASE_URL (an OpenAI-compatible endpoint, e.g. http://localhost:11434/v1) and OPENAI_API_KEY, ' +
        'or start the server with --model scripted:<file.jsonl>',
    );
  }
  return provider.forName(modelName);
}
