/**
 * The server's one seam to the ladder runtime of `@stateflow/slates`: model providers, the
 * initial slate of a new session, running one call, and the slate projection.
 */
import type { JsonObject } from '@stateflow/core';
import type { Store } from '@stateflow/store';
import {
  createSlateState,
  loadTokenCounter,
  modelFromSpec,
  openAIModel,
  runLadder,
  runOutcome,
  sessionSlateStream,
  slateContents,
  slateMetatags,
  decodeSlateState,
} from '@stateflow/slates';
import type { Evicted, FileMetatags, LadderObserver, Model, Refused, RunOutcome, TokenUsage } from '@stateflow/slates';
import type { ConversationInput } from './conversation.js';
import type { LadderEntry } from './ladder-catalog.js';

/** Where a server's ladders get their model. */
export interface ModelProvider {
  /**
   * The model for one chat/completions request, given the request's `model` name (passed to an
   * OpenAI-compatible upstream; a scripted model ignores it).
   */
  forName(modelName: string): Model;
  /** Whether the name reaches an upstream that needs a real model name (not a scripted model). */
  readonly usesName: boolean;
}

/**
 * The provider for `--model` and the environment. A `model` option (`scripted:<file.jsonl>` or
 * `openai:<model>`, slates' `parseModelSpec`) pins the model of every call, whatever a request's
 * `model` says: one script for the whole server (consumed in call order), or that OpenAI model
 * on the endpoint `OPENAI_BASE_URL` / `OPENAI_API_KEY` name. Without it, an OpenAI-compatible
 * upstream when `OPENAI_BASE_URL` or `OPENAI_API_KEY` is set, called with each request's
 * `model`; else `null` (chat/completions answers 503 MODEL_NOT_CONFIGURED).
 * @throws USAGE for a `model` option of another form; NOT_FOUND / INPUT_INVALID for an
 *   unreadable or malformed script.
 */
export async function resolveModel(option: string | undefined, env: Record<string, string | undefined>): Promise<ModelProvider | null> {
  if (option !== undefined) {
    const pinned = await modelFromSpec(option, { env });
    return { forName: () => pinned, usesName: false };
  }
  const configured = (name: string) => (env[name] ?? '') !== '';
  if (!configured('OPENAI_BASE_URL') && !configured('OPENAI_API_KEY')) return null;
  return { forName: (modelName) => openAIModel({ model: modelName, env }), usesName: true };
}

/** Every declared file of the ladder's slates initialised per its `init:`, as slate stream state. */
export function initialSlateState(entry: LadderEntry, at: Date): JsonObject {
  return createSlateState(entry.ladder, at);
}

/** The slate projections of a stored slate stream state. */
export interface SlateProjections {
  /** Every file's contents, `{ <slate title>: { <folder path>: { <file>: <contents> } } }`. */
  slates: Record<string, Record<string, Record<string, string>>>;
  /**
   * Every file's user and system metatags,
   * `{ <slate title>: { <folder path>: { <file>: { user, system: { created, modified, size, tokens, lastRead? } } } } }`
   * (`tokens` with the runner's default encoding, o200k_base).
   */
  metatags: Record<string, Record<string, Record<string, FileMetatags>>>;
}

/**
 * The contents and metatags of the state stored in slate stream `stream`.
 * @throws STORE_CORRUPT `{ detail, stream }` when the state is not a slate stream's layout.
 */
export async function projectSlates(stream: string, state: JsonObject): Promise<SlateProjections> {
  const decoded = decodeSlateState(stream, state);
  return { slates: slateContents(decoded), metatags: slateMetatags(decoded, await loadTokenCounter()) };
}

/** Input of {@link runLadderCall}. */
export interface LadderCallInput {
  store: Store;
  entry: LadderEntry;
  /** Session to run on; `undefined` runs on fresh slates and persists nothing. */
  session: string | undefined;
  /** The ladder's input: `input.context`, `input.messages`, `input.system` (see `conversation.ts`). */
  input: ConversationInput;
  model: Model;
  clock: () => Date;
  /** Receives the call's output as it is produced (the runner's `onOutput`). */
  onOutput?: (text: string) => void;
  /** Told after each step that ran (the runner's `observer`). */
  observer?: LadderObserver;
}

/** What a call produced. */
export interface LadderCallResult {
  /** Completed, or aborted by a gate (where, and a sentence saying so): what the answer shows. */
  outcome: RunOutcome;
  /** Slate stream revision after the call; `null` when nothing persists (no session). */
  rev: number | null;
  /** Global seq of the call's transition, or `null` when it wrote nothing. */
  transition: number | null;
  evicted: Evicted[];
  refused: Refused[];
  /** Token usage summed over the call's model calls; `null` when one is unknown. */
  usage: TokenUsage | null;
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
    input: { ...input.input },
    session,
    model: input.model,
    clock: input.clock,
    ...(input.onOutput === undefined ? {} : { onOutput: input.onOutput }),
    ...(input.observer === undefined ? {} : { observer: input.observer }),
  });
  const rev = session === undefined ? null : (await store.head(sessionSlateStream(entry.id, session))).rev;
  return {
    outcome: runOutcome(result),
    rev,
    transition: result.transition,
    evicted: result.evicted,
    refused: result.refused,
    usage: result.usage,
  };
}
