/**
 * JSON Schemas of the store API (`/v1/store/…`, `/v1/watch`, `/v1/server`): request parts the
 * routes validate with, and the shapes the OpenAPI document shows (server README "Store API").
 * Bodies are validated without coercion; query strings coerce integers (`?rev=3`).
 */

const streamId = { type: 'string', description: 'A stream id: global, cwd:/abs/dir, session:ID, slate:@author/name:ID, …' } as const;
const revision = { type: 'integer', minimum: 0 } as const;
const streamList = { type: 'array', items: streamId, maxItems: 1000 } as const;
/** The server token may ride in any query string (browser URLs, EventSource); it is checked before routing. */
const token = { type: 'string', description: 'The server token (for browsers; clients send the X-Stateflow-Token header)' } as const;

/** `?stream=S`. */
export const streamQuerySchema = {
  type: 'object',
  properties: { token, stream: streamId },
  required: ['stream'],
  additionalProperties: false,
} as const;

/** `?stream=S[&rev=N]` (state now, or at revision N). */
export const stateQuerySchema = {
  type: 'object',
  properties: { token, stream: streamId, rev: revision },
  required: ['stream'],
  additionalProperties: false,
} as const;

/** `?stream=S&rev=N` (the net patch that produced revision N ≥ 1). */
export const patchQuerySchema = {
  type: 'object',
  properties: { token, stream: streamId, rev: revision },
  required: ['stream', 'rev'],
  additionalProperties: false,
} as const;

/** `?stream=S&from=A&to=B`. */
export const diffQuerySchema = {
  type: 'object',
  properties: { token, stream: streamId, from: revision, to: revision },
  required: ['stream', 'from', 'to'],
  additionalProperties: false,
} as const;

/** Largest page of `GET /v1/store/transitions`. */
export const MAX_TRANSITION_PAGE = 5000;

/** `?from=SEQ&to=SEQ&stream=S&limit=N` (both ends inclusive). */
export const transitionsQuerySchema = {
  type: 'object',
  properties: { token,
    from: revision,
    to: revision,
    stream: streamId,
    limit: { type: 'integer', minimum: 1, maximum: MAX_TRANSITION_PAGE, default: 1000 },
  },
  additionalProperties: false,
} as const;

/** `/v1/store/transitions/{seq}`. */
export const seqParamsSchema = {
  type: 'object',
  properties: { seq: revision },
  required: ['seq'],
} as const;

/** `{ streams }`. */
export const viewBodySchema = {
  type: 'object',
  properties: { streams: streamList },
  required: ['streams'],
  additionalProperties: false,
} as const;

/** `{ streams, seq }`. */
export const atSeqBodySchema = {
  type: 'object',
  properties: { streams: streamList, seq: revision },
  required: ['streams', 'seq'],
  additionalProperties: false,
} as const;

const expectedRevision = { anyOf: [revision, { enum: ['none', 'any'] }], description: 'a revision (integer ≥ 0), "none" or "any"' } as const;

/** The store's `PublishInput`. */
export const publishBodySchema = {
  type: 'object',
  properties: {
    changes: { type: 'object', minProperties: 1, additionalProperties: { type: 'object' }, description: 'Patch per stream id' },
    expected: { type: 'object', additionalProperties: expectedRevision, description: 'Expected head revision per stream id' },
    id: { type: 'string', description: 'Idempotency id: a retry with an accepted id answers the original transition' },
    meta: { type: 'object' },
    durability: { enum: ['buffered', 'fsync'] },
  },
  required: ['changes'],
  additionalProperties: false,
} as const;

/** Most inputs one `publish-many` (or transitions one `append-many`) request may carry: its cost stays bounded, like the body size. */
export const PUBLISH_MANY_LIMIT = 1_000;

/** `{ inputs }`: the store's `publishMany` input, at most {@link PUBLISH_MANY_LIMIT} of them. */
export const publishManyBodySchema = {
  type: 'object',
  properties: { inputs: { type: 'array', minItems: 1, maxItems: PUBLISH_MANY_LIMIT, items: publishBodySchema } },
  required: ['inputs'],
  additionalProperties: false,
} as const;

/** `{ from, to, at?, expected?, id? }`. */
export const forkBodySchema = {
  type: 'object',
  properties: { from: streamId, to: streamId, at: revision, expected: expectedRevision, id: { type: 'string' } },
  required: ['from', 'to'],
  additionalProperties: false,
} as const;

/** A conflict's resolution (core `MergeResolution`). */
const mergeResolution = {
  anyOf: [
    { enum: ['ours', 'theirs'] },
    { type: 'object', properties: { value: { description: 'any JSON value; null deletes the path' } }, required: ['value'], additionalProperties: false },
  ],
} as const;

/** The store's `MergeInput`. */
export const mergeBodySchema = {
  type: 'object',
  properties: {
    from: streamId,
    into: streamId,
    fromRev: { ...revision, description: "Revision of from to merge (default: its head)" },
    expected: { ...expectedRevision, description: 'Expected head revision of into' },
    resolve: { type: 'object', additionalProperties: mergeResolution, description: 'Resolution per conflict path (RFC 6901 pointer)' },
    prefer: { enum: ['ours', 'theirs'], description: 'The side taken at every conflict resolve does not name' },
    dryRun: { type: 'boolean', description: 'Answer the merge (status preview) without publishing' },
    id: { type: 'string', description: 'Idempotency id' },
    meta: { type: 'object', description: 'Metadata beside the merge record (may not hold merge or fork)' },
  },
  required: ['from', 'into'],
  additionalProperties: false,
} as const;

/** A merge conflict (core `MergeConflict`): `null` where the path is absent on that side. */
const mergeConflictSchema = {
  type: 'object',
  properties: {
    path: { type: 'string', description: 'RFC 6901 pointer into the state' },
    base: { description: 'The base value (null: absent)' },
    ours: { description: "into's value (null: deleted or absent)" },
    theirs: { description: "from's value (null: deleted or absent)" },
    resolution: mergeResolution,
  },
  required: ['path', 'base', 'ours', 'theirs'],
} as const;

/** `{ stream, rev }`. */
export const revertBodySchema = {
  type: 'object',
  properties: { stream: streamId, rev: revision },
  required: ['stream', 'rev'],
  additionalProperties: false,
} as const;

/** `{ stream, keepRevisions }`. */
export const compactBodySchema = {
  type: 'object',
  properties: { stream: streamId, keepRevisions: { type: 'integer', minimum: 1 } },
  required: ['stream', 'keepRevisions'],
  additionalProperties: false,
} as const;

/** `{ transition }`: an exported transition, appended verbatim (store `append`). */
export const appendBodySchema = {
  type: 'object',
  properties: { transition: { type: 'object' } },
  required: ['transition'],
  additionalProperties: false,
} as const;

/** `{ transitions }`: the store's `appendMany` input, at most {@link PUBLISH_MANY_LIMIT} of them. */
export const appendManyBodySchema = {
  type: 'object',
  properties: { transitions: { type: 'array', minItems: 1, maxItems: PUBLISH_MANY_LIMIT, items: { type: 'object' } } },
  required: ['transitions'],
  additionalProperties: false,
} as const;

/** `{}` (the audit takes no options). */
export const auditBodySchema = { type: 'object', additionalProperties: false } as const;

/** `GET /v1/watch?from=SEQ&stream=S…`. */
export const watchQuerySchema = {
  type: 'object',
  properties: {
    from: revision,
    stream: { anyOf: [streamId, streamList], description: 'a stream id (repeat the parameter for several)' },
    token,
  },
  additionalProperties: false,
} as const;

/** One changed stream of a transition. */
export const streamChangeSchema = {
  type: 'object',
  properties: { stream: streamId, rev: { type: 'integer', minimum: 1 }, patch: { type: 'object', description: 'The net patch' } },
  required: ['stream', 'rev', 'patch'],
} as const;

/** A transition (store `Transition`). */
export const transitionSchema = {
  type: 'object',
  properties: {
    seq: { type: 'integer', minimum: 1 },
    time: { type: 'string', format: 'date-time' },
    id: { type: 'string' },
    meta: { type: 'object' },
    changes: { type: 'array', items: streamChangeSchema },
    prevHash: { type: 'string', description: '64 hex; absent on a transition shown with only some of its changes' },
    hash: { type: 'string', description: '64 hex; absent on a transition shown with only some of its changes' },
  },
  required: ['seq', 'time', 'changes'],
} as const;

/** A stream head (store `StreamHead`). */
export const streamHeadSchema = {
  type: 'object',
  properties: { stream: streamId, rev: revision, seq: revision, origin: revision },
  required: ['stream', 'rev', 'seq', 'origin'],
} as const;

/** Store `PrunedTransition`: what compaction keeps of a transition (a `duplicate` of a pruned one carries it). */
export const prunedTransitionSchema = {
  type: 'object',
  properties: {
    pruned: { const: true },
    seq: { type: 'integer' },
    id: { type: 'string' },
    changes: { type: 'array', items: { type: 'object', properties: { stream: streamId, rev: revision }, required: ['stream', 'rev'] } },
    prevHash: { type: 'string' },
    hash: { type: 'string' },
  },
  required: ['pruned', 'seq', 'changes', 'prevHash', 'hash'],
} as const;

/** Store `PublishResult`. */
export const publishResultSchema = {
  type: 'object',
  properties: {
    status: { enum: ['accepted', 'duplicate', 'noop'] },
    transition: { anyOf: [transitionSchema, prunedTransitionSchema, { type: 'null' }] },
  },
  required: ['status', 'transition'],
} as const;

/** Store `MergeResult`: the plan (absent for a duplicate) and the transition. */
export const mergeResultSchema = {
  type: 'object',
  properties: {
    status: { enum: ['accepted', 'noop', 'preview', 'duplicate'] },
    transition: { anyOf: [transitionSchema, prunedTransitionSchema, { type: 'null' }] },
    from: streamId,
    fromRev: revision,
    into: streamId,
    intoRev: revision,
    base: { type: 'object', properties: { stream: streamId, rev: revision }, required: ['stream', 'rev'] },
    patch: { type: 'object', description: 'The net patch on into (published, or that would be)' },
    conflicts: { type: 'array', items: mergeConflictSchema },
  },
  required: ['status', 'transition'],
} as const;

/** Store `AuditReport`. */
export const auditReportSchema = {
  type: 'object',
  properties: {
    transitions: { type: 'integer' },
    streams: { type: 'integer' },
    checkpoints: { type: 'integer' },
    problems: {
      type: 'array',
      items: {
        type: 'object',
        properties: { code: { type: 'string' }, stream: { type: 'string' }, key: { type: 'string' }, detail: { type: 'string' } },
        required: ['code', 'detail'],
      },
    },
  },
  required: ['transitions', 'streams', 'checkpoints', 'problems'],
} as const;

/** `GET /v1/server`. */
export const serverInfoSchema = {
  type: 'object',
  properties: {
    version: { type: 'string' },
    lastSeq: revision,
    dir: { type: 'string', description: "Store directory (the store's owner only)" },
    pid: { type: 'integer', description: "Server process id (the store's owner only)" },
  },
  required: ['version', 'lastSeq'],
} as const;
