/**
 * The store API's reads (server README "Store API"): heads, states, patches, diffs, views and the
 * log, of the store the server holds. Every answer carries `Stateflow-Last-Seq`.
 */
import { Type } from '@sinclair/typebox';
import { errors, bodyErrors } from './error-responses.js';
import { jsonObject } from './json-schemas.js';
import { ShownTransition, StreamHead, revision, streamId, streamList, tokenParameter } from './store-shapes.js';

/** Said of every store route that names streams. */
export const VISIBILITY =
  ' With API keys a caller sees only the streams of its own ladder sessions (`ladder-session:ID`, `slate:…:ID`, `session:ID`); other streams answer 404 NOT_FOUND.';

/** Largest page of `GET /v1/store/transitions`. */
export const MAX_TRANSITION_PAGE = 5000;

/** Page of `GET /v1/store/transitions` when `limit` is not given. */
export const DEFAULT_TRANSITION_PAGE = 1000;

const token = Type.Optional(tokenParameter);

/** `?stream=S`. */
const streamQuery = Type.Object({ token, stream: streamId }, { additionalProperties: false });

/** `{ streams }`. */
const streamsBody = Type.Object({ streams: streamList }, { additionalProperties: false });

/** `{ streams, seq }`. */
const streamsAtBody = Type.Object({ streams: streamList, seq: revision }, { additionalProperties: false });

export const listStreamsRoute = {
  method: 'GET',
  url: '/v1/store/streams',
  schema: {
    operationId: 'listStreams',
    summary: `Every stream with at least one revision, sorted by id, and the last seq.${VISIBILITY}`,
    response: { 200: Type.Object({ lastSeq: revision, streams: Type.Array(StreamHead) }, { description: 'Streams' }), ...errors(401) },
  },
} as const;

export const streamHeadRoute = {
  method: 'GET',
  url: '/v1/store/head',
  schema: {
    operationId: 'streamHead',
    summary: `A stream's head (rev 0 for a stream with no revision).${VISIBILITY}`,
    querystring: streamQuery,
    response: { 200: Type.Object(StreamHead.properties, { description: 'The head' }), ...errors(400, 401, 404) },
  },
} as const;

export const streamStateRoute = {
  method: 'GET',
  url: '/v1/store/state',
  schema: {
    operationId: 'streamState',
    summary: `A stream's state now (with the rev and the seq of the view), at revision \`rev\`, or as of tag \`tag\` (its revision at the tag's seq; store README "Tags").${VISIBILITY}`,
    querystring: Type.Object(
      { token, stream: streamId, rev: Type.Optional(revision), tag: Type.Optional(Type.String({ pattern: '^[A-Za-z][A-Za-z0-9_.-]{0,127}$', description: 'A tag (instead of rev)' })) },
      { additionalProperties: false },
    ),
    response: {
      200: Type.Object(
        { stream: streamId, rev: revision, seq: Type.Optional(Type.Integer({ description: 'The seq of the view (absent with rev)' })), state: jsonObject() },
        { description: 'The state' },
      ),
      ...errors(400, 401, 404, 410),
    },
  },
} as const;

export const streamPatchRoute = {
  method: 'GET',
  url: '/v1/store/patch',
  schema: {
    operationId: 'streamPatch',
    summary: `The net patch that produced revision \`rev\` (≥ 1).${VISIBILITY}`,
    querystring: Type.Object({ token, stream: streamId, rev: revision }, { additionalProperties: false }),
    response: { 200: Type.Object({ stream: streamId, rev: revision, patch: jsonObject() }, { description: 'The patch' }), ...errors(400, 401, 404, 410) },
  },
} as const;

export const revisionSeqRoute = {
  method: 'GET',
  url: '/v1/store/revision-seq',
  schema: {
    operationId: 'revisionSeq',
    summary: `The global seq of the transition that produced revision \`rev\` (≥ 1) of a stream (store \`revisionSeq\`: one point read).${VISIBILITY}`,
    querystring: Type.Object({ token, stream: streamId, rev: revision }, { additionalProperties: false }),
    response: { 200: Type.Object({ stream: streamId, rev: revision, seq: revision }, { description: 'The seq' }), ...errors(400, 401, 404, 410) },
  },
} as const;

export const streamDiffRoute = {
  method: 'GET',
  url: '/v1/store/diff',
  schema: {
    operationId: 'streamDiff',
    summary: `The patch that turns revision \`from\` of a stream into revision \`to\`.${VISIBILITY}`,
    querystring: Type.Object({ token, stream: streamId, from: revision, to: revision }, { additionalProperties: false }),
    response: {
      200: Type.Object({ stream: streamId, from: revision, to: revision, patch: jsonObject() }, { description: 'The patch' }),
      ...errors(400, 401, 404, 410),
    },
  },
} as const;

export const storeViewRoute = {
  method: 'POST',
  url: '/v1/store/view',
  schema: {
    operationId: 'storeView',
    summary: `The current state and revision of several streams, captured at one seq.${VISIBILITY}`,
    body: streamsBody,
    response: {
      200: Type.Object(
        { seq: revision, streams: Type.Record(Type.String(), Type.Object({ rev: revision, state: jsonObject() })) },
        { description: 'The view: per stream id its revision and state' },
      ),
      ...bodyErrors(401, 404),
    },
  },
} as const;

export const statesAtRoute = {
  method: 'POST',
  url: '/v1/store/states-at',
  schema: {
    operationId: 'statesAt',
    summary: `The state of each stream as of global transition \`seq\`.${VISIBILITY}`,
    body: streamsAtBody,
    response: {
      200: Type.Object({ seq: revision, states: Type.Record(Type.String(), jsonObject()) }, { description: 'The states by stream id' }),
      ...bodyErrors(401, 404, 410),
    },
  },
} as const;

export const effectiveAtRoute = {
  method: 'POST',
  url: '/v1/store/effective-at',
  schema: {
    operationId: 'effectiveAt',
    summary: `The overlay of the streams (low → high priority) as of global transition \`seq\`.${VISIBILITY}`,
    body: streamsAtBody,
    response: { 200: Type.Object({ seq: revision, state: jsonObject() }, { description: 'The effective state' }), ...bodyErrors(401, 404, 410) },
  },
} as const;

export const listTransitionsRoute = {
  method: 'GET',
  url: '/v1/store/transitions',
  schema: {
    operationId: 'listTransitions',
    summary:
      'Retained transitions with from ≤ seq ≤ to (default: all up to the last seq at the first page), oldest first, optionally only those that changed `stream`. ' +
      'A page scans at most `limit` transitions; `next` is the `from` of the next page (null at the end) and `to` the end to pass with it. ' +
      `With API keys a transition shows only the caller's streams (without hashes when some were left out) and one with none is left out.${VISIBILITY}`,
    querystring: Type.Object(
      {
        token,
        from: Type.Optional(revision),
        to: Type.Optional(revision),
        stream: Type.Optional(streamId),
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_TRANSITION_PAGE, default: DEFAULT_TRANSITION_PAGE })),
      },
      { additionalProperties: false },
    ),
    response: {
      200: Type.Object({ transitions: Type.Array(ShownTransition), next: Type.Union([Type.Integer(), Type.Null()]), to: revision }, { description: 'A page' }),
      ...errors(400, 401, 404),
    },
  },
} as const;

export const getTransitionRoute = {
  method: 'GET',
  url: '/v1/store/transitions/:seq',
  schema: {
    operationId: 'getTransition',
    summary: "One transition by seq (404 TRANSITION_NOT_FOUND above the last seq, or when it changed none of the caller's streams; 410 when compaction pruned it)",
    params: Type.Object({ seq: revision }),
    response: { 200: Type.Object(ShownTransition.properties, { description: 'The transition' }), ...errors(400, 401, 404, 410) },
  },
} as const;

/** The store API's reads. */
export const STORE_READ_ROUTES = [
  listStreamsRoute,
  streamHeadRoute,
  streamStateRoute,
  streamPatchRoute,
  revisionSeqRoute,
  streamDiffRoute,
  storeViewRoute,
  statesAtRoute,
  effectiveAtRoute,
  listTransitionsRoute,
  getTransitionRoute,
] as const;
