/**
 * The OpenAI `chat.completion` answer of a ladder call, shared by chat/completions and by a
 * resume that continues a paused call; and the parts its streamed form (`chat-stream.ts`)
 * shares with it: the assistant message of the run's outcome, the usage, the `stateflow` member.
 */
import { observedModel } from './observability/model-telemetry.js';
import { randomBytes } from 'node:crypto';
import { StateflowError } from '@stateflow/core';
import type { AbortedAt, Model, RunOutcome, TokenUsage } from '@stateflow/slates';
import type { LadderCallResult } from './ladder-runtime.js';
import type { ServerContext } from './server-context.js';

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
  /** Where a gate aborted the run; `null` when it completed. */
  aborted: AbortedAt | null;
}

/** OpenAI's assistant message: `content`, or `content: null` and a `refusal`. */
export interface ChatMessage {
  role: 'assistant';
  content: string | null;
  refusal: string | null;
}

/**
 * The assistant message of a run's outcome ({@link runOutcome} of `@stateflow/slates`), OpenAI's
 * shape: a completed run's output as `content` (`refusal: null`); an aborted run as a **refusal**
 * — `content: null` and `refusal` saying which step's gate aborted — which every OpenAI client
 * parses and exposes (`message.refusal`), so an abort never reads as an empty answer. A streamed
 * answer sends the same `refusal` text as its `delta.refusal`.
 */
export function assistantMessage(outcome: RunOutcome): ChatMessage {
  if (outcome.kind === 'aborted') return { role: 'assistant', content: null, refusal: outcome.message };
  return { role: 'assistant', content: outcome.output ?? '', refusal: null };
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

/** The `stateflow` member for `result`. */
export function stateflowMember(result: LadderCallResult, call: CompletionCall): StateflowMember {
  return {
    session: call.session,
    ladder: call.ladder,
    rev: result.rev,
    transition: result.transition,
    evicted: result.evicted,
    refused: result.refused,
    aborted: result.outcome.kind === 'aborted' ? result.outcome.aborted : null,
  };
}

/** Build the answer for `result`. */
export function chatCompletion(result: LadderCallResult, call: CompletionCall): ChatCompletion {
  const usage = chatUsage(result.usage);
  return {
    id: completionId(),
    object: 'chat.completion',
    created: Math.floor(call.now.getTime() / 1000),
    model: call.model,
    choices: [{ index: 0, message: assistantMessage(result.outcome), finish_reason: 'stop', logprobs: null }],
    ...(usage === undefined ? {} : { usage }),
    stateflow: stateflowMember(result, call),
  };
}

/**
 * The model a call of `ladder` runs on, for the `model` name its request sent (also when a
 * resume runs a paused call again): the request's name goes to the upstream, except the ladder's
 * own id (as `models.list()` shows it), which means the server's default upstream model; a
 * pinned model (`--model`) needs no name.
 * @throws MODEL_NOT_CONFIGURED (503) `{ missing: 'upstream' }` when no model is configured, or
 *   `{ missing: 'upstream-model', model }` when the name is the ladder's and no default upstream
 *   model is set (the operator's configuration lacks it; the request is fine); each message says
 *   how to configure it.
 */
export function requireModel(context: Pick<ServerContext, 'model' | 'upstreamModel' | 'metrics'>, ladder: string, requested: string): Model {
  return observedModel(providedModel(context, ladder, requested), context.metrics, ladder, requested);
}

/** The model {@link requireModel} observes. */
function providedModel(context: Pick<ServerContext, 'model' | 'upstreamModel'>, ladder: string, requested: string): Model {
  const provider = context.model;
  if (provider === null) {
    throw new StateflowError(
      'MODEL_NOT_CONFIGURED',
      'No model upstream configured: set OPENAI_BASE_URL (an OpenAI-compatible endpoint, e.g. http://localhost:11434/v1) and OPENAI_API_KEY, ' +
        'or start the server with --model scripted:<file.jsonl> or --model openai:<model>',
      { missing: 'upstream' },
    );
  }
  if (requested !== ladder || !provider.usesName) return provider.forName(requested);
  if (context.upstreamModel !== undefined) return provider.forName(context.upstreamModel);
  throw new StateflowError(
    'MODEL_NOT_CONFIGURED',
    `model "${requested}" names the ladder, which means this server's default upstream model, and none is configured: ` +
      "start the server with --upstream-model NAME (or STATEFLOW_UPSTREAM_MODEL), or send the upstream model's name as model (e.g. \"gpt-4o\").",
    { missing: 'upstream-model', model: requested },
  );
}
