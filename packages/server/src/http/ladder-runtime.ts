/**
 * The server's one seam to the ladder runtime of `@stateflow/slates`: model providers, the
 * initial slate of a new session, running one call, and the slate projection.
 */
import { StateflowError } from '@stateflow/core';
import type { JsonObject } from '@stateflow/core';
import type { Store } from '@stateflow/store';
import { createSlateState, openAIModel, runLadder, runOutcome, scriptedModelFromFile, sessionSlateStream, slateContents } from '@stateflow/slates';
import type { Evicted, Model, Refused, RunOutcome } from '@stateflow/slates';
import type { LadderEntry } from './ladder-catalog.js';

/**
 * The model for one chat/completions request, given the request's `model` name (passed to an
 * OpenAI-compatible upstream; a scripted model ignores it).
 */
export type ModelProvider = (modelName: string) => Model;

/**
 * The provider for `--model` and the environment: `scripted:<file.jsonl>` (one script for the
 * whole server, consumed in call order); else an OpenAI-compatible upstream when
 * `OPENAI_BASE_URL` or `OPENAI_API_KEY` is set; else `null` (chat/completions answers 503).
 * @throws USAGE for a `model` option that is not `scripted:<file>`; NOT_FOUND / INPUT_INVALID
 *   for an unreadable or malformed script.
 */
export async function resolveModel(option: string | undefined, env: Record<string, string | undefined>): Promise<ModelProvider | null> {
  if (option !== undefined) {
    const match = /^scripted:(.+)$/.exec(option);
    if (match?.[1] === undefined) {
      throw new StateflowError('USAGE', `--model must be scripted:<file.jsonl>, got "${option}"; for a real model set OPENAI_BASE_URL / OPENAI_API_KEY`, {});
    }
    const scripted = await scriptedModelFromFile(match[1]);
    return () => scripted;
  }
  const configured = (name: string) => (env[name] ?? '') !== '';
  if (!configured('OPENAI_BASE_URL') && !configured('OPENAI_API_KEY')) return null;
  return (modelName) => openAIModel({ model: modelName, env });
}

/** Every declared file of the ladder's slates initialised per its `init:`, as slate stream state. */
export function initialSlateState(entry: LadderEntry, at: Date): JsonObject {
  return createSlateState(entry.ladder, at);
}

/**
 * The slate projection of a stored slate stream state: every file's contents,
 * `{ <slate title>: { <folder path>: { <file>: <contents> } } }`.
 */
export function projectSlates(state: JsonObject): Record<string, Record<string, Record<string, string>>> {
  return slateContents(state);
}

/** Input of {@link runLadderCall}. */
export interface LadderCallInput {
  store: Store;
  entry: LadderEntry;
  /** Session to run on; `undefined` runs on fresh slates and persists nothing. */
  session: string | undefined;
  /** The ladder's `input.context`: the last user message. */
  context: string;
  model: Model;
  clock: () => Date;
}

/** What a call produced. */
export interface LadderCallResult {
  /** The ladder's output (`''` when no step survived or the run was aborted). */
  output: string;
  /** Completed, or aborted by a gate (where, and a sentence saying so): what the answer shows. */
  outcome: RunOutcome;
  /** Slate stream revision after the call; `null` when nothing persists (no session). */
  rev: number | null;
  /** Global seq of the call's transition, or `null` when it wrote nothing. */
  transition: number | null;
  evicted: Evicted[];
  refused: Refused[];
}

/**
 * Run the ladder once on `session`'s slate stream (`slate:<ladder id>:<session>`).
 * @throws the runner's errors: SOURCE_UNRESOLVED, MODEL_UNAVAILABLE, MODEL_FAILED, CONFLICT.
 */
export async function runLadderCall(input: LadderCallInput): Promise<LadderCallResult> {
  const { store, entry, session } = input;
  const result = await runLadder({
    store,
    ladder: entry.ladder,
    ladderId: entry.id,
    input: { context: input.context },
    session,
    model: input.model,
    clock: input.clock,
  });
  const rev = session === undefined ? null : (await store.head(sessionSlateStream(entry.id, session))).rev;
  return { output: result.output ?? '', outcome: runOutcome(result), rev, transition: result.transition, evicted: result.evicted, refused: result.refused };
}
