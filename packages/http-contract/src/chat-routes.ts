/**
 * The OpenAI-compatible face of a ladder (server README "chat/completions"): `POST
 * …/chat/completions` runs the ladder on a conversation, `GET …/models` lists the ladder as the
 * one model of its base URL.
 */
import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { enumOf } from './json-schemas.js';
import { errors, bodyErrors } from './error-responses.js';
import { ladderParams } from './ladder-params.js';

/** A text content part, OpenAI's `{ "type": "text", "text": "…" }`. */
const textPart = Type.Object({ type: Type.Unsafe<'text'>({ const: 'text' }), text: Type.String() });

/**
 * One chat message (OpenAI shape). `content` is a string, an array of text parts, or `null`
 * (an assistant message that only calls tools); ladders take text, so other parts (images,
 * audio, files) are refused.
 */
const chatMessage = Type.Object({
  role: enumOf(['system', 'developer', 'user', 'assistant', 'tool', 'function']),
  content: Type.Optional(
    Type.Union([Type.String(), Type.Array(textPart), Type.Null()], { description: 'a string, an array of text parts {"type": "text", "text": "…"}, or null' }),
  ),
});

/**
 * Body of `POST …/chat/completions` (OpenAI-compatible; unknown members are ignored). Validated
 * as sent, without type coercion: `"model": 5` is refused, not turned into `"5"`.
 */
export const ChatCompletionRequest = Type.Object({
  model: Type.String({ minLength: 1 }),
  messages: Type.Array(chatMessage, { minItems: 1 }),
  stream: Type.Optional(Type.Boolean({ description: 'Answer as Server-Sent Events of chat.completion.chunk objects' })),
  stream_options: Type.Optional(
    Type.Union([Type.Object({ include_usage: Type.Optional(Type.Boolean()) }), Type.Null()], {
      description: 'With stream: include_usage adds a last chunk with the usage (every other chunk has usage: null)',
    }),
  ),
  tools: Type.Optional(Type.Union([Type.Array(Type.Unknown()), Type.Null()], { description: 'Not supported: a non-empty list is refused with 400' })),
  functions: Type.Optional(Type.Union([Type.Array(Type.Unknown()), Type.Null()], { description: 'Not supported: a non-empty list is refused with 400' })),
});

/** Members a completion and each of its streamed chunks share (a stream's chunks share the values). */
const completionHeader = {
  id: Type.String(),
  created: Type.Integer({ description: 'Unix seconds' }),
  model: Type.String(),
};

/** Token usage, OpenAI's `usage` object. */
const usage = Type.Object(
  { prompt_tokens: Type.Integer(), completion_tokens: Type.Integer(), total_tokens: Type.Integer() },
  { description: "Summed over every model call of the ladder; omitted when any call's usage is unknown" },
);

/** Stateflow's member of a completion and of a streamed completion's last chunk. */
const stateflowMember = Type.Object(
  {
    session: Type.Union([Type.String(), Type.Null()]),
    ladder: Type.String(),
    rev: Type.Union([Type.Integer(), Type.Null()], { description: 'Slate stream revision after the call (null: nothing persisted)' }),
    transition: Type.Union([Type.Integer(), Type.Null()], { description: "Global seq of the call's transition, if it wrote" }),
    evicted: Type.Array(Type.Unknown(), { description: 'Files evicted to stay within a folder budget' }),
    refused: Type.Array(Type.Unknown(), { description: 'Writes a gate or a schema refused' }),
    aborted: Type.Union(
      [Type.Object({ step: Type.String(), node: Type.Integer(), branch: enumOf(['then', 'else']) }), Type.Null()],
      { description: 'Where a gate action abort ended the run (the message is then a refusal with content null); null when it completed' },
    ),
  },
  { description: 'Which session and slate revision the call ran on and what it wrote' },
);

/** Response of `POST …/chat/completions`: OpenAI's `chat.completion` plus a `stateflow` member. */
export const ChatCompletion = Type.Object({
  ...completionHeader,
  object: Type.Literal('chat.completion'),
  choices: Type.Array(
    Type.Object({
      index: Type.Integer(),
      message: Type.Object({
        role: Type.Literal('assistant'),
        content: Type.Union([Type.String(), Type.Null()], { description: "The ladder's output; null when a gate aborted the run" }),
        refusal: Type.Union([Type.String(), Type.Null()], {
          description: 'Set when a gate aborted the run: which step, node and branch (as stateflow.aborted); null when it completed',
        }),
      }),
      finish_reason: Type.String(),
      logprobs: Type.Optional(Type.Null()),
    }),
  ),
  usage: Type.Optional(usage),
  stateflow: stateflowMember,
});

/**
 * One Server-Sent Event (`data: <json>`) of a streamed completion: first a role delta, then
 * content deltas (or, for an aborted run, one refusal delta), then a chunk with
 * `finish_reason: "stop"` and the `stateflow` member, then (include_usage) a chunk with empty
 * `choices` and the usage, then `data: [DONE]`. A failure after the first content byte is one
 * event `{"error": {code, type, message, details}}` and the stream ends without [DONE].
 */
export const ChatCompletionChunk = Type.Object({
  ...completionHeader,
  object: Type.Literal('chat.completion.chunk'),
  choices: Type.Array(
    Type.Object({
      index: Type.Integer(),
      delta: Type.Object({ role: Type.Optional(Type.Literal('assistant')), content: Type.Optional(Type.String()), refusal: Type.Optional(Type.String()) }),
      finish_reason: Type.Union([Type.String(), Type.Null()]),
    }),
  ),
  usage: Type.Optional(Type.Union([usage, Type.Null()])),
  stateflow: Type.Optional(stateflowMember),
});

export const chatCompletionRoute = {
  method: 'POST',
  url: '/v1/:author/:ladder/chat/completions',
  schema: {
    operationId: 'chatCompletion',
    summary:
      'Run the ladder on the conversation: the last user message is input.context, the turns before it input.messages, the system messages input.system. ' +
      'With stream: true the answer is Server-Sent Events (text/event-stream), each `data:` a ChatCompletionChunk, ending with `data: [DONE]`; ' +
      'errors before the first content byte are JSON errors with their status, a failure after it one `data: {"error": …}` event.',
    params: ladderParams,
    headers: Type.Object({
      'x-session-id': Type.Optional(Type.String({ description: 'Run on this session (omit: a fresh slate, nothing persisted; empty: 400)' })),
      'if-match': Type.Optional(Type.String({ description: 'Expected slate revision, "3" or 3 (weak W/ tags are refused); stale → 409' })),
    }),
    body: ChatCompletionRequest,
    response: {
      200: {
        description: 'Completion (or, with stream: true, its chunks as Server-Sent Events)',
        content: { 'application/json': { schema: ChatCompletion }, 'text/event-stream': { schema: ChatCompletionChunk } },
      },
      ...bodyErrors(401, 404, 409, 410, 502, 503),
    },
  },
} as const;

/** An OpenAI `model` object: the ladder. */
export const ModelObject = Type.Object({
  id: Type.String({ description: 'The ladder id @author/name; as a request model it means the default upstream model' }),
  object: Type.Literal('model'),
  created: Type.Integer({ description: 'Unix seconds the server started serving it' }),
  owned_by: Type.String({ description: 'The ladder author' }),
});
export type ModelObject = Static<typeof ModelObject>;

export const listModelsRoute = {
  method: 'GET',
  url: '/v1/:author/:ladder/models',
  schema: {
    operationId: 'listModels',
    summary: "The ladder as the one model of its base URL (the OpenAI client's models.list())",
    params: ladderParams,
    response: { 200: Type.Object({ object: Type.Literal('list'), data: Type.Array(ModelObject) }, { description: 'Models' }), ...errors(400, 401, 404) },
  },
} as const;

export const getModelRoute = {
  method: 'GET',
  url: '/v1/:author/:ladder/models/:model',
  schema: {
    operationId: 'getModel',
    summary: "The ladder's model by its id (the OpenAI client's models.retrieve()); any other id answers 404",
    // Any author and name reach the route (an unknown one answers 404): no patterns here. A path
    // segment that is not valid percent-encoding still answers 400.
    params: Type.Object({ author: Type.String(), ladder: Type.String(), model: Type.String() }),
    response: { 200: Type.Object(ModelObject.properties, { description: 'The model' }), ...errors(400, 401, 404) },
  },
} as const;

/** The routes of this module. */
export const CHAT_ROUTES = [chatCompletionRoute, listModelsRoute, getModelRoute] as const;
