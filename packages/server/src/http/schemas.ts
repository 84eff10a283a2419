/**
 * JSON Schemas of the HTTP API's bodies, used both to validate requests (fastify) and to build
 * the OpenAPI document, so the two never drift (the OpenAPI document at /openapi.json).
 */
import { SESSION_STATUSES } from '@stateflow/slates';

/** Path parameters of every ladder route: `/v1/{author}/{ladder}/…`. */
export const ladderParamsSchema = {
  type: 'object',
  properties: {
    author: { type: 'string', pattern: '^@?[A-Za-z0-9][A-Za-z0-9_.-]*$' },
    ladder: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]*$' },
  },
  required: ['author', 'ladder'],
} as const;

/** Path parameters of session routes: the ladder's plus `{id}`. */
export const sessionParamsSchema = {
  type: 'object',
  properties: { ...ladderParamsSchema.properties, id: { type: 'string', minLength: 1 } },
  required: ['author', 'ladder', 'id'],
} as const;

/** Body of `POST /v1/{author}/{ladder}/sessions` (seed: `{ "name": "My research session" }`). */
export const createSessionBodySchema = {
  type: 'object',
  properties: { name: { type: 'string', maxLength: 200 } },
  additionalProperties: false,
} as const;

/** Response of session creation, exactly the seed's shape. */
export const createdSessionSchema = {
  type: 'object',
  properties: {
    id: { type: 'string', pattern: '^sess_[0-9a-f]{32}$' },
    ladder: { type: 'string', description: '@author/name' },
    createdAt: { type: 'string', format: 'date-time' },
  },
  required: ['id', 'ladder', 'createdAt'],
} as const;

/** A session as `GET …/sessions/{id}` shows it. */
export const sessionSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    ladder: { type: 'string' },
    name: { type: 'string' },
    status: { enum: [...SESSION_STATUSES] },
    createdAt: { type: 'string', format: 'date-time' },
    lastUsedAt: { type: 'string', format: 'date-time' },
    closedAt: { type: 'string', format: 'date-time' },
    expiredAt: { type: 'string', format: 'date-time' },
    purgedAt: { type: 'string', format: 'date-time', description: 'When retention deleted the slates' },
    execution: { type: 'object', description: 'Execution state recorded by a pause' },
    rev: { type: 'integer', description: "Current revision of the session's slate stream (use with If-Match)" },
  },
  required: ['id', 'ladder', 'name', 'status', 'createdAt', 'lastUsedAt', 'rev'],
} as const;

/** A text content part, OpenAI's `{ "type": "text", "text": "…" }`. */
const textPartSchema = {
  type: 'object',
  properties: { type: { const: 'text' }, text: { type: 'string' } },
  required: ['type', 'text'],
} as const;

/**
 * One chat message (OpenAI shape). `content` is a string, an array of text parts, or `null`
 * (an assistant message that only calls tools); ladders take text, so other parts (images,
 * audio, files) are refused.
 */
const chatMessageSchema = {
  type: 'object',
  properties: {
    role: { enum: ['system', 'developer', 'user', 'assistant', 'tool', 'function'] },
    content: {
      description: 'a string, an array of text parts {"type": "text", "text": "…"}, or null',
      anyOf: [{ type: 'string' }, { type: 'array', items: textPartSchema }, { type: 'null' }],
    },
  },
  required: ['role'],
} as const;

/**
 * Body of `POST …/chat/completions` (OpenAI-compatible; unknown members are ignored). Validated
 * as sent, without type coercion: `"model": 5` is refused, not turned into `"5"`.
 */
export const chatCompletionBodySchema = {
  type: 'object',
  properties: {
    model: { type: 'string', minLength: 1 },
    messages: { type: 'array', minItems: 1, items: chatMessageSchema },
    stream: { type: 'boolean', description: 'Answer as Server-Sent Events of chat.completion.chunk objects' },
    stream_options: {
      anyOf: [{ type: 'object', properties: { include_usage: { type: 'boolean' } } }, { type: 'null' }],
      description: 'With stream: include_usage adds a last chunk with the usage (every other chunk has usage: null)',
    },
    tools: { anyOf: [{ type: 'array' }, { type: 'null' }], description: 'Not supported: a non-empty list is refused with 400' },
    functions: { anyOf: [{ type: 'array' }, { type: 'null' }], description: 'Not supported: a non-empty list is refused with 400' },
  },
  required: ['model', 'messages'],
} as const;

/** Members a completion and each of its streamed chunks share (a stream's chunks share the values). */
const completionHeader = {
  id: { type: 'string' },
  created: { type: 'integer', description: 'Unix seconds' },
  model: { type: 'string' },
} as const;

/** Token usage, OpenAI's `usage` object. */
const usageSchema = {
  type: 'object',
  description: "Summed over every model call of the ladder; omitted when any call's usage is unknown",
  properties: {
    prompt_tokens: { type: 'integer' },
    completion_tokens: { type: 'integer' },
    total_tokens: { type: 'integer' },
  },
  required: ['prompt_tokens', 'completion_tokens', 'total_tokens'],
} as const;

/** Stateflow's member of a completion and of a streamed completion's last chunk. */
const stateflowMemberSchema = {
  type: 'object',
  description: 'Which session and slate revision the call ran on and what it wrote',
  properties: {
    session: { type: ['string', 'null'] },
    ladder: { type: 'string' },
    rev: { type: ['integer', 'null'], description: 'Slate stream revision after the call (null: nothing persisted)' },
    transition: { type: ['integer', 'null'], description: "Global seq of the call's transition, if it wrote" },
    evicted: { type: 'array' },
    refused: { type: 'array' },
    aborted: {
      description: 'Where a gate action abort ended the run (the message is then a refusal with content null); null when it completed',
      anyOf: [
        {
          type: 'object',
          properties: { step: { type: 'string' }, node: { type: 'integer' }, branch: { enum: ['then', 'else'] } },
          required: ['step', 'node', 'branch'],
        },
        { type: 'null' },
      ],
    },
  },
} as const;

/**
 * OpenAI's `choices`, each `{index, <part>, finish_reason}`: `part` is a completion's `message`
 * or a streamed chunk's `delta`.
 */
function choicesSchema(part: Record<string, object>, finishReason: object) {
  return {
    type: 'array',
    items: { type: 'object', properties: { index: { type: 'integer' }, ...part, finish_reason: finishReason } },
  } as const;
}

/** Response of `POST …/chat/completions`: OpenAI's `chat.completion` plus a `stateflow` member. */
export const chatCompletionSchema = {
  type: 'object',
  properties: {
    ...completionHeader,
    object: { const: 'chat.completion' },
    choices: choicesSchema(
      {
        message: {
          type: 'object',
          properties: {
            role: { const: 'assistant' },
            content: { type: ['string', 'null'], description: "The ladder's output; null when a gate aborted the run" },
            refusal: {
              type: ['string', 'null'],
              description: 'Set when a gate aborted the run: which step, node and branch (as stateflow.aborted); null when it completed',
            },
          },
        },
      },
      { type: 'string' },
    ),
    usage: usageSchema,
    stateflow: stateflowMemberSchema,
  },
  required: ['id', 'object', 'created', 'model', 'choices', 'stateflow'],
} as const;

/**
 * One Server-Sent Event (`data: <json>`) of a streamed completion: first a role delta, then
 * content deltas (or, for an aborted run, one refusal delta), then a chunk with
 * `finish_reason: "stop"` and the `stateflow` member, then (include_usage) a chunk with empty
 * `choices` and the usage, then `data: [DONE]`. A failure after the first content byte is one
 * event `{"error": {code, type, message, details}}` and the stream ends without [DONE].
 */
export const chatCompletionChunkSchema = {
  type: 'object',
  properties: {
    ...completionHeader,
    object: { const: 'chat.completion.chunk' },
    choices: choicesSchema(
      { delta: { type: 'object', properties: { role: { const: 'assistant' }, content: { type: 'string' }, refusal: { type: 'string' } } } },
      { type: ['string', 'null'] },
    ),
    usage: { anyOf: [usageSchema, { type: 'null' }] },
    stateflow: stateflowMemberSchema,
  },
  required: ['id', 'object', 'created', 'model', 'choices'],
} as const;

/** Response of `GET /v1/{author}/{ladder}/models`: the ladder, listed as one model. */
export const modelListSchema = {
  type: 'object',
  properties: {
    object: { const: 'list' },
    data: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          id: { type: 'string', description: 'The ladder id @author/name; as a request model it means the default upstream model' },
          object: { const: 'model' },
          created: { type: 'integer', description: 'Unix seconds the server started serving it' },
          owned_by: { type: 'string', description: 'The ladder author' },
        },
        required: ['id', 'object', 'created', 'owned_by'],
      },
    },
  },
  required: ['object', 'data'],
} as const;

/** Query of `GET …/sessions/{id}/slates`. */
export const slatesQuerySchema = {
  type: 'object',
  // The route refuses what coerces beyond safe integers ("1e400" → Infinity, 2^53 + 1 → rounded).
  properties: { at: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'Slate stream revision; default the head' } },
  additionalProperties: false,
} as const;

/** Response of `GET …/sessions/{id}/slates`. */
export const slatesResponseSchema = {
  type: 'object',
  properties: {
    session: { type: 'string' },
    ladder: { type: 'string' },
    rev: { type: 'integer', description: 'Revision shown' },
    head: { type: 'integer', description: 'Current revision' },
    slates: { type: 'object', description: 'The slate projection at `rev`: { <slate title>: { <folder path>: { <file>: <contents> } } }' },
    metatags: {
      type: 'object',
      description:
        'Every file\'s metatags at `rev`: { <slate title>: { <folder path>: { <file>: { user: { <name>: <value> }, system: { created, modified, size (UTF-8 bytes), tokens (o200k_base), lastRead? } } } } }',
    },
  },
  required: ['session', 'ladder', 'rev', 'head', 'slates', 'metatags'],
} as const;

/** Query of `GET …/sessions/{id}/slates/history`. */
export const slateHistoryQuerySchema = {
  type: 'object',
  properties: {
    after: { type: 'integer', minimum: 0, description: 'The `seq` of the last entry of the previous page (`next`); default 0, from the first revision' },
    limit: { type: 'integer', minimum: 1, maximum: 100, description: 'Entries per page; default 20' },
  },
  additionalProperties: false,
} as const;

const fileRefsSchema = {
  type: 'array',
  items: {
    type: 'object',
    properties: { slate: { type: 'string' }, folder: { type: 'string' }, file: { type: 'string' } },
    required: ['slate', 'folder', 'file'],
  },
} as const;

/** Response of `GET …/sessions/{id}/slates/history`: one entry per slate revision, oldest first. */
export const slateHistorySchema = {
  type: 'object',
  properties: {
    session: { type: 'string' },
    ladder: { type: 'string' },
    head: { type: 'integer', description: 'Current revision of the slate stream' },
    origin: { type: 'integer', description: 'Oldest revision still retained' },
    data: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          rev: { type: 'integer', description: 'Slate revision the transition produced (read it with slates?at=rev)' },
          seq: { type: 'integer', description: 'Global seq of the transition' },
          time: { type: 'string', format: 'date-time' },
          kind: { type: 'string', description: '`session` (the session was created) or `ladder-call` (a chat/completions call)' },
          changed: { ...fileRefsSchema, description: 'Files whose contents, metatags or times the transition changed' },
          read: { ...fileRefsSchema, description: 'Files whose read recency alone moved (LRU)' },
        },
        required: ['rev', 'seq', 'time', 'kind', 'changed', 'read'],
      },
    },
    next: { type: ['integer', 'null'], description: 'Pass as `after` for the next page; null on the last page' },
  },
  required: ['session', 'ladder', 'head', 'origin', 'data', 'next'],
} as const;

/** The owner selection of a state API call (tools' `Selection`). */
export const selectionSchema = {
  type: 'object',
  properties: {
    global: { const: true },
    cwd: { type: 'string', minLength: 1 },
    session: { type: 'string', minLength: 1, description: 'A session id you own' },
    mode: { enum: ['active', 'passive'] },
  },
  required: ['mode'],
  additionalProperties: false,
} as const;

/** Error body of every failed request. */
export const errorSchema = {
  type: 'object',
  properties: {
    error: {
      type: 'object',
      properties: {
        code: { type: 'string', description: 'Stable Stateflow error code' },
        type: { type: 'string' },
        message: { type: 'string' },
        details: { type: 'object' },
      },
      required: ['code', 'message'],
    },
  },
  required: ['error'],
} as const;
