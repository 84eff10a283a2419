/**
 * The server's one seam to the ladder runtime of `@stateflow/slates`: model providers, the
 * initial slate of a new session, running one call, and the slate projection.
 */
import { StateflowError } from '@stateflow/core';
import type { JsonObject, JsonValue } from '@stateflow/core';
import type { Store } from '@stateflow/store';
import { createOpenAIModel, createScriptedModel, initialSlateStateOf, projectSlateState, runLadder, sessionSlateStream } from '@stateflow/slates';
import type { Model } from '@stateflow/slates';
import type { LadderEntry } from './ladder-catalog.js';

/** A model provider (the slates `Model`). */
export type ModelProvider = Model;

/**
 * The provider for `--model` and the environment: `scripted:<file.jsonl>`; else an
 * OpenAI-compatible upstream when `OPENAI_BASE_URL` or `OPENAI_API_KEY` is set; else `null`.
 * @throws USAGE for a `model` option that is not `scripted:<file>`; the scripted provider's
 *   errors for an unreadable file.
 */
export function resolveModel(option: string | undefined, env: Record<string, string | undefined>): ModelProvider | null {
  if (option !== undefined) {
    const match = /^scripted:(.+)$/.exec(option);
    if (match?.[1] === undefined) {
      throw new StateflowError('USAGE', `--model must be scripted:<file.jsonl>, got "${option}"; for a real model set OPENAI_BASE_URL / OPENAI_API_KEY`);
    }
    return createScriptedModel(match[1]);
  }
  const baseURL = env.OPENAI_BASE_URL;
  const apiKey = env.OPENAI_API_KEY;
  if ((baseURL === undefined || baseURL === '') && (apiKey === undefined || apiKey === '')) return null;
  return createOpenAIModel({ baseURL: baseURL || undefined, apiKey: apiKey || undefined });
}

/** Every declared file of the ladder's slates initialised per its `init:`, as slate stream state. */
export function initialSlateState(entry: LadderEntry): JsonObject {
  return initialSlateStateOf(entry.ladder);
}

/** The slate projection (with system metatags) of a slate stream state. */
export function projectSlates(entry: LadderEntry, state: JsonObject): JsonValue {
  return projectSlateState(entry.ladder, state);
}

/** Input of {@link runLadderCall}. */
export interface LadderCallInput {
  store: Store;
  entry: LadderEntry;
  session: string;
  /** The ladder's `input.context`: the last user message. */
  context: string;
  model: ModelProvider;
  /** The request's `model`, passed to the provider. */
  modelName: string;
}

/** What a call produced. */
export interface LadderCallResult {
  output: string;
  /** Slate stream revision after the call; `null` when nothing persists. */
  rev: number | null;
  /** Global seq of the call's transition, or `null` when it wrote nothing. */
  transition: number | null;
  evicted: JsonValue[];
  refused: JsonValue[];
}

/**
 * Run the ladder once on `session`'s slate stream in `store`.
 * @throws the runner's errors (MODEL_FAILED, CONFIG_INVALID, …).
 */
export async function runLadderCall(input: LadderCallInput): Promise<LadderCallResult> {
  const { store, entry, session, model, modelName } = input;
  const result = await runLadder({
    store,
    config: entry.ladder,
    ladder: entry.id,
    input: { context: input.context },
    session,
    model: { complete: (request) => model.complete({ ...request, model: modelName }) },
  });
  const head = await store.head(sessionSlateStream(entry.id, session));
  return {
    output: result.output,
    rev: head.rev,
    transition: result.transition?.seq ?? null,
    evicted: (result.evicted ?? []) as unknown as JsonValue[],
    refused: (result.refused ?? []) as unknown as JsonValue[],
  };
}
