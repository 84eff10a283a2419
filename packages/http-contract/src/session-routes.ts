/**
 * The ladder sessions API (seeds/ladr-stateful-sessions.txt "A session is created via the
 * platform API", "A session has a lifecycle"; server README "Endpoints"): create, list, get,
 * close, pause, resume, and the time-travel slate reads.
 */
import { Type } from '@sinclair/typebox';
import { errors, bodyErrors } from './error-responses.js';
import { enumOf, jsonObject } from './json-schemas.js';
import { ChatCompletion } from './chat-routes.js';
import { ladderParams, sessionParams } from './ladder-params.js';

/** A session's status (slates `SessionStatus`). */
export const SESSION_STATUSES = ['created', 'active', 'paused', 'closed', 'expired'] as const;

/** A session as `GET …/sessions/{id}` shows it: the record without its owner, plus its slate revision. */
export const Session = Type.Object({
  id: Type.String(),
  ladder: Type.String(),
  name: Type.String(),
  status: enumOf(SESSION_STATUSES),
  createdAt: Type.String({ format: 'date-time' }),
  lastUsedAt: Type.String({ format: 'date-time' }),
  closedAt: Type.Optional(Type.String({ format: 'date-time' })),
  expiredAt: Type.Optional(Type.String({ format: 'date-time' })),
  purgedAt: Type.Optional(Type.String({ format: 'date-time', description: 'When retention deleted the slates' })),
  execution: Type.Optional(jsonObject({ description: 'Execution state recorded by a pause' })),
  rev: Type.Integer({ description: "Current revision of the session's slate stream (use with If-Match)" }),
});

export const createSessionRoute = {
  method: 'POST',
  url: '/v1/:author/:ladder/sessions',
  schema: {
    operationId: 'createSession',
    summary: 'Create a session of the ladder (declared slate files initialised)',
    params: ladderParams,
    // Seed: `{ "name": "My research session" }`.
    body: Type.Object({ name: Type.Optional(Type.String({ maxLength: 200 })) }, { additionalProperties: false }),
    response: {
      200: Type.Object(
        {
          id: Type.String({ pattern: '^sess_[0-9a-f]{32}$' }),
          ladder: Type.String({ description: '@author/name' }),
          createdAt: Type.String({ format: 'date-time' }),
        },
        { description: 'Created' },
      ),
      ...bodyErrors(401, 404),
    },
  },
} as const;

export const listSessionsRoute = {
  method: 'GET',
  url: '/v1/:author/:ladder/sessions',
  schema: {
    operationId: 'listSessions',
    summary: "The caller's sessions of the ladder",
    params: ladderParams,
    response: { 200: Type.Object({ object: Type.Literal('list'), data: Type.Array(Session) }, { description: 'Sessions' }), ...errors(400, 401, 404) },
  },
} as const;

export const getSessionRoute = {
  method: 'GET',
  url: '/v1/:author/:ladder/sessions/:id',
  schema: {
    operationId: 'getSession',
    summary: 'One of your sessions',
    params: sessionParams,
    response: { 200: Type.Object(Session.properties, { description: 'The session' }), ...errors(400, 401, 404) },
  },
} as const;

/** `POST …/sessions/{id}/close` and `…/pause`. */
function lifecycleRoute<V extends 'close' | 'pause'>(verb: V, summary: string) {
  return {
    method: 'POST',
    url: `/v1/:author/:ladder/sessions/:id/${verb}`,
    schema: {
      operationId: `${verb}Session`,
      summary,
      params: sessionParams,
      response: { 200: Type.Object(Session.properties, { description: 'The session after the change' }), ...errors(400, 401, 404, 409, 410) },
    },
  } as const;
}

export const closeSessionRoute = lifecycleRoute('close', 'Close the session (calls then answer 410)');

export const pauseSessionRoute = lifecycleRoute(
  'pause',
  'Pause the session: a call in flight finishes its current step, records its execution state and waits; answers once paused',
);

export const resumeSessionRoute = {
  method: 'POST',
  url: '/v1/:author/:ladder/sessions/:id/resume',
  schema: {
    operationId: 'resumeSession',
    summary: 'Resume a paused session; a call paused by an earlier server process is run to completion and its answer returned as `completion`',
    params: sessionParams,
    response: {
      200: Type.Object(
        { ...Session.properties, completion: Type.Optional(ChatCompletion) },
        { description: 'The session after the change, plus `completion` when a recorded call was continued' },
      ),
      ...errors(400, 401, 404, 410, 502, 503),
    },
  },
} as const;

/** A file's metatags (slates `FileMetatags`). */
const FileMetatags = Type.Object({
  user: jsonObject({ description: 'The user metatags: { <name>: <value> }' }),
  system: Type.Object(
    {
      created: Type.String({ format: 'date-time' }),
      modified: Type.String({ format: 'date-time' }),
      size: Type.Integer({ description: 'UTF-8 bytes of the contents' }),
      tokens: Type.Integer({ description: 'Tokens of the contents (o200k_base)' }),
      lastRead: Type.Optional(Type.String({ format: 'date-time', description: 'Once the contents were read' })),
    },
    { description: 'The system metatags, computed by the projection' },
  ),
});

/** Entries per page of the slate history when `limit` is not given. */
export const DEFAULT_SLATE_HISTORY_PAGE = 20;

export const readSlatesRoute = {
  method: 'GET',
  url: '/v1/:author/:ladder/sessions/:id/slates',
  schema: {
    operationId: 'readSlates',
    summary: "The session's slate projection, now or at a past revision",
    params: sessionParams,
    querystring: Type.Object(
      // The route refuses what coerces beyond safe integers ("1e400" → Infinity, 2^53 + 1 → rounded).
      { at: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'Slate stream revision; default the head' })) },
      { additionalProperties: false },
    ),
    response: {
      200: Type.Object(
        {
          session: Type.String(),
          ladder: Type.String(),
          rev: Type.Integer({ description: 'Revision shown' }),
          head: Type.Integer({ description: 'Current revision' }),
          slates: Type.Record(Type.String(), Type.Record(Type.String(), Type.Record(Type.String(), Type.String())), {
            description: 'The slate projection at `rev`: { <slate title>: { <folder path>: { <file>: <contents> } } }',
          }),
          metatags: Type.Record(Type.String(), Type.Record(Type.String(), Type.Record(Type.String(), FileMetatags)), {
            description: "Every file's metatags at `rev`: { <slate title>: { <folder path>: { <file>: { user, system } } } }",
          }),
        },
        { description: 'Slates' },
      ),
      ...errors(400, 401, 404, 410),
    },
  },
} as const;

const fileRefs = (description: string) =>
  Type.Array(Type.Object({ slate: Type.String(), folder: Type.String(), file: Type.String() }), { description });

export const readSlateHistoryRoute = {
  method: 'GET',
  url: '/v1/:author/:ladder/sessions/:id/slates/history',
  schema: {
    operationId: 'readSlateHistory',
    summary: "What each call wrote: one entry per revision of the session's slates (rev, seq, time, files changed and read), oldest first, paged",
    params: sessionParams,
    querystring: Type.Object(
      {
        after: Type.Optional(Type.Integer({ minimum: 0, description: 'The `seq` of the last entry of the previous page (`next`); default 0, from the first revision' })),
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: `Entries per page; default ${DEFAULT_SLATE_HISTORY_PAGE}` })),
      },
      { additionalProperties: false },
    ),
    response: {
      200: Type.Object(
        {
          session: Type.String(),
          ladder: Type.String(),
          head: Type.Integer({ description: 'Current revision of the slate stream' }),
          origin: Type.Integer({ description: 'Oldest revision still retained' }),
          data: Type.Array(
            Type.Object({
              rev: Type.Integer({ description: 'Slate revision the transition produced (read it with slates?at=rev)' }),
              seq: Type.Integer({ description: 'Global seq of the transition' }),
              time: Type.String({ format: 'date-time' }),
              kind: Type.String({ description: '`session` (the session was created) or `ladder-call` (a chat/completions call)' }),
              changed: fileRefs('Files whose contents, metatags or times the transition changed'),
              read: fileRefs('Files whose read recency alone moved (LRU)'),
            }),
          ),
          next: Type.Union([Type.Integer(), Type.Null()], { description: 'Pass as `after` for the next page; null on the last page' }),
        },
        { description: 'One page of the slate history' },
      ),
      ...errors(400, 401, 404, 410),
    },
  },
} as const;

/** The routes of this module. */
export const SESSION_ROUTES = [
  createSessionRoute,
  listSessionsRoute,
  getSessionRoute,
  closeSessionRoute,
  pauseSessionRoute,
  resumeSessionRoute,
  readSlatesRoute,
  readSlateHistoryRoute,
] as const;
