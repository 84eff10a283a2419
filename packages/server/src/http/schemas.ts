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
    stream: { type: 'boolean' },
  },
  required: ['model', 'messages'],
} as const;

/** Response of `POST …/chat/completions`: OpenAI's `chat.completion` plus a `stateflow` member. */
export const chatCompletionSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    object: { const: 'chat.completion' },
    created: { type: 'integer', description: 'Unix seconds' },
    model: { type: 'string' },
    choices: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          index: { type: 'integer' },
          message: {
            type: 'object',
            properties: {
              role: { const: 'assistant' },
              content: { type: ['string', 'null'], description: "The ladder's output; null when a gate aborted the run" },
              refusal: { type: 'string', description: 'Present when a gate aborted the run: which step, node and branch (as stateflow.aborted)' },
            },
          },
          finish_reason: { type: 'string' },
        },
      },
    },
    usage: { type: 'object' },
    stateflow: {
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
          type: ['object', 'null'],
          description: 'Where a gate action abort ended the run (the message is then a refusal with content null); null when it completed',
          properties: { step: { type: 'string' }, node: { type: 'integer' }, branch: { enum: ['then', 'else'] } },
        },
      },
    },
  },
  required: ['id', 'object', 'created', 'model', 'choices'],
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
    slates: { type: 'object', description: 'The slate projection at `rev`' },
  },
  required: ['session', 'ladder', 'rev', 'head', 'slates'],
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
