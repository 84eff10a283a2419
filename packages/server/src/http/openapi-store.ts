/**
 * The OpenAPI paths of the store API, the watch stream, `GET /v1/server` and `/mcp` (server
 * README "Store API", "Watch", "MCP over HTTP"), built from the schemas the routes validate with.
 */
import {
  diffQuerySchema,
  patchQuerySchema,
  proofQuerySchema,
  serverProofSchema,
  stateQuerySchema,
  streamQuerySchema,
  transitionsQuerySchema,
  watchQuerySchema,
} from './store-schemas.js';

/** The document helpers of `openapi.ts`. */
export interface OpenApiHelpers {
  ref: (name: string) => object;
  json: (schema: unknown) => object;
  errors: (...statuses: number[]) => object;
  bodyErrors: (...statuses: number[]) => object;
}

/** Query parameters of an object schema, as OpenAPI parameters (also used by the history paths). */
export function queryParams(schema: { properties: Record<string, unknown>; required?: readonly string[] }): object[] {
  return Object.entries(schema.properties).map(([name, property]) => ({
    name,
    in: 'query',
    required: schema.required?.includes(name) ?? false,
    schema: property,
  }));
}

const VISIBILITY =
  ' With API keys a caller sees only the streams of its own ladder sessions (`ladder-session:ID`, `slate:…:ID`, `session:ID`); other streams answer 404 NOT_FOUND.';

/** The paths object entries. */
export function storePaths({ ref, json, errors, bodyErrors }: OpenApiHelpers): Record<string, object> {
  const ok = (description: string, schema: unknown) => ({ '200': { description, content: json(schema) } });
  const get = (operationId: string, summary: string, parameters: object[], response: object, ...statuses: number[]) => ({
    get: { operationId, summary, parameters, responses: { ...response, ...errors(401, ...statuses) } },
  });
  const post = (operationId: string, summary: string, body: object, response: object, ...statuses: number[]) => ({
    post: { operationId, summary, requestBody: { required: true, content: json(body) }, responses: { ...response, ...bodyErrors(400, 401, ...statuses) } },
  });
  const stateResult = { type: 'object', properties: { stream: { type: 'string' }, rev: { type: 'integer' }, seq: { type: 'integer' }, state: { type: 'object' } } };
  const patchResult = { type: 'object', properties: { stream: { type: 'string' }, rev: { type: 'integer' }, patch: { type: 'object' } } };
  return {
    '/v1/server': get(
      'serverInfo',
      "Who serves this store: version and last seq; for the store's owner also the pid and store directory (clients compare the pid with the discovery file)",
      [],
      ok('The server', ref('ServerInfo')),
    ),
    '/v1/server/proof': {
      get: {
        operationId: 'serverProof',
        summary:
          'The proof that this server holds its token, for a fresh client nonce: HMAC-SHA256(token, "stateflow-server-proof:" + nonce). Needs no credential: a client that read the token from the discovery file checks the proof before it sends the token.',
        security: [],
        parameters: queryParams(proofQuerySchema),
        responses: { ...ok('The proof', serverProofSchema), ...errors(400) },
      },
    },
    '/v1/store/streams': get(
      'listStreams',
      `Every stream with at least one revision, sorted by id, and the last seq.${VISIBILITY}`,
      [],
      ok('Streams', { type: 'object', properties: { lastSeq: { type: 'integer' }, streams: { type: 'array', items: ref('StreamHead') } } }),
    ),
    '/v1/store/head': get('streamHead', `A stream's head (rev 0 for a stream with no revision).${VISIBILITY}`, queryParams(streamQuerySchema), ok('The head', ref('StreamHead')), 400, 404),
    '/v1/store/state': get(
      'streamState',
      `A stream's state now (with the rev and the seq of the view), or at revision \`rev\`.${VISIBILITY}`,
      queryParams(stateQuerySchema),
      ok('The state', stateResult),
      400,
      404,
      410,
    ),
    '/v1/store/patch': get('streamPatch', `The net patch that produced revision \`rev\` (≥ 1).${VISIBILITY}`, queryParams(patchQuerySchema), ok('The patch', patchResult), 400, 404, 410),
    '/v1/store/revision-seq': get(
      'revisionSeq',
      `The global seq of the transition that produced revision \`rev\` (≥ 1) of a stream (store \`revisionSeq\`: one point read).${VISIBILITY}`,
      queryParams(patchQuerySchema),
      ok('The seq', { type: 'object', properties: { stream: { type: 'string' }, rev: { type: 'integer' }, seq: { type: 'integer' } }, required: ['stream', 'rev', 'seq'] }),
      400,
      404,
      410,
    ),
    '/v1/store/diff': get(
      'streamDiff',
      `The patch that turns revision \`from\` of a stream into revision \`to\`.${VISIBILITY}`,
      queryParams(diffQuerySchema),
      ok('The patch', { type: 'object', properties: { stream: { type: 'string' }, from: { type: 'integer' }, to: { type: 'integer' }, patch: { type: 'object' } } }),
      400,
      404,
      410,
    ),
    '/v1/store/view': post('storeView', `The current state and revision of several streams, captured at one seq.${VISIBILITY}`, ref('StreamsInput'), ok('The view', { type: 'object', properties: { seq: { type: 'integer' }, streams: { type: 'object' } } }), 404),
    '/v1/store/states-at': post(
      'statesAt',
      `The state of each stream as of global transition \`seq\`.${VISIBILITY}`,
      ref('StreamsAtInput'),
      ok('The states', { type: 'object', properties: { seq: { type: 'integer' }, states: { type: 'object' } } }),
      404,
      410,
    ),
    '/v1/store/effective-at': post(
      'effectiveAt',
      `The overlay of the streams (low → high priority) as of global transition \`seq\`.${VISIBILITY}`,
      ref('StreamsAtInput'),
      ok('The effective state', { type: 'object', properties: { seq: { type: 'integer' }, state: { type: 'object' } } }),
      404,
      410,
    ),
    '/v1/store/transitions': get(
      'listTransitions',
      'Retained transitions with from ≤ seq ≤ to (default: all up to the last seq at the first page), oldest first, optionally only those that changed `stream`. ' +
        'A page scans at most `limit` transitions; `next` is the `from` of the next page (null at the end) and `to` the end to pass with it. ' +
        `With API keys a transition shows only the caller's streams (without hashes when some were left out) and one with none is left out.${VISIBILITY}`,
      queryParams(transitionsQuerySchema),
      ok('A page', {
        type: 'object',
        properties: { transitions: { type: 'array', items: ref('Transition') }, next: { type: ['integer', 'null'] }, to: { type: 'integer' } },
      }),
      400,
      404,
      500,
    ),
    '/v1/store/transitions/{seq}': {
      get: {
        operationId: 'getTransition',
        summary: 'One transition by seq (404 TRANSITION_NOT_FOUND above the last seq, or when it changed none of the caller\'s streams; 410 when compaction pruned it)',
        parameters: [{ name: 'seq', in: 'path', required: true, schema: { type: 'integer', minimum: 0 } }],
        responses: { ...ok('The transition', ref('Transition')), ...errors(400, 401, 404, 410) },
      },
    },
    '/v1/store/publish': post(
      'publish',
      `Publish one transition atomically with CAS (store \`publish\`): a patch per stream, expected revisions, an idempotency id, meta, durability.${VISIBILITY}`,
      ref('PublishInput'),
      ok('accepted, duplicate (an id already accepted) or noop', ref('PublishResult')),
      404,
      409,
      500,
      503,
    ),
    '/v1/store/publish-many': post(
      'publishMany',
      `Publish up to 1,000 inputs all or nothing (store \`publishMany\`): each its own transition, one atomic write; \`results\` in input order. The first input that fails fails the request and nothing is published.${VISIBILITY}`,
      { type: 'object', properties: { inputs: { type: 'array', minItems: 1, maxItems: 1000, items: ref('PublishInput') } }, required: ['inputs'] },
      ok('One result per input', { type: 'object', properties: { results: { type: 'array', items: ref('PublishResult') } }, required: ['results'] }),
      404,
      409,
      500,
      503,
    ),
    '/v1/store/fork': post('fork', `Set stream \`to\` to \`from\`'s state at \`at\` (default its head) in one transition.${VISIBILITY}`, ref('ForkInput'), ok('The result', ref('PublishResult')), 404, 409, 410),
    '/v1/store/merge': post(
      'merge',
      'Three-way merge of stream `from` into stream `into` from their merge base (store `merge`): one transition on `into` with meta `merge`. ' +
        'Conflicts left open answer 409 MERGE_CONFLICT with every conflict in `error.details.conflicts`, and nothing is published; `dryRun` answers the plan (status preview) instead. ' +
        `Streams with no common origin answer 422 MERGE_UNRELATED; a base compacted away 410.${VISIBILITY}`,
      ref('MergeInput'),
      ok('accepted, noop, preview or duplicate', ref('MergeResult')),
      404,
      409,
      410,
      422,
    ),
    '/v1/store/revert': post('revert', `A new transition restoring the stream's state at \`rev\`; history is never rewritten.${VISIBILITY}`, ref('RevertInput'), ok('The result', ref('PublishResult')), 404, 410),
    '/v1/store/compact': post(
      'compact',
      `Keep the newest \`keepRevisions\` revisions of a stream; reads below the new origin answer 410.${VISIBILITY}`,
      ref('CompactInput'),
      ok('The new origin and the revisions deleted', { type: 'object', properties: { origin: { type: 'integer' }, deleted: { type: 'integer' } } }),
      404,
    ),
    '/v1/store/append': post(
      'append',
      "Append an exported transition verbatim (store `append`: same seq, time, id, meta and hash, each checked), as `stateflow replay` does. For the store's owner only (403 FORBIDDEN for an API-key user).",
      { type: 'object', properties: { transition: ref('Transition') }, required: ['transition'] },
      ok('Appended', { type: 'object', properties: { seq: { type: 'integer' } } }),
    ),
    '/v1/store/append-many': post(
      'appendMany',
      "Append up to 1,000 exported transitions verbatim, all or nothing (store `appendMany`: each checked as `append` checks it, against the ones before it; one atomic write). For the store's owner only (403 FORBIDDEN for an API-key user).",
      { type: 'object', properties: { transitions: { type: 'array', minItems: 1, maxItems: 1000, items: ref('Transition') } }, required: ['transitions'] },
      ok('Appended; `seq` is the last seq', { type: 'object', properties: { seq: { type: 'integer' } } }),
    ),
    '/v1/store/audit': post(
      'audit',
      "Replay and verify the whole store (hash chain, checkpoints, heads, indexes). For the store's owner only (403 FORBIDDEN for an API-key user). Takes `{}`.",
      { type: 'object', additionalProperties: false },
      ok('The report: problems is empty when clean', ref('AuditReport')),
      500,
    ),
    '/v1/watch': {
      get: {
        operationId: 'watch',
        summary:
          'Server-Sent Events: a `ready` event (`id:` = the seq the stream starts after), then one `transition` event per transition with `id:` = its seq — the retained ones after the start, then live ones. ' +
          'Start: the `Last-Event-ID` header (wins), else `from`, else the last seq now (live only). A comment line every 15 s keeps it open. When the server stops, the last event is `stopping` (no id). ' +
          `\`stream\` (repeatable) keeps only transitions that changed one of them. With API keys only the caller's streams.${VISIBILITY}`,
        parameters: [
          ...queryParams(watchQuerySchema),
          { name: 'Last-Event-ID', in: 'header', required: false, schema: { type: 'string' }, description: 'The seq of the last event received: the stream resumes after it' },
        ],
        responses: { '200': { description: 'The event stream', content: { 'text/event-stream': { schema: { type: 'string' } } } }, ...errors(400, 401, 404) },
      },
    },
    '/mcp': {
      post: {
        operationId: 'mcp',
        summary:
          'MCP over Streamable HTTP, stateless with JSON responses: tools read_state and patch_state and the resource stateflow://baseline, for the owners selected in the URL. ' +
          'With API keys only your sessions (404 SESSION_NOT_FOUND for another user\'s; global and cwd answer 400). GET and DELETE answer 405.',
        parameters: [
          { name: 'global', in: 'query', required: false, schema: { enum: ['1', 'true'] } },
          { name: 'cwd', in: 'query', required: false, schema: { type: 'string' }, description: 'An absolute directory' },
          { name: 'session', in: 'query', required: false, schema: { type: 'string' } },
          { name: 'mode', in: 'query', required: false, schema: { enum: ['active', 'passive'], default: 'active' } },
        ],
        requestBody: { required: true, content: json({ type: 'object', description: 'A JSON-RPC 2.0 message (or batch) of MCP' }) },
        responses: {
          '200': { description: 'The JSON-RPC response', content: json({ type: 'object' }) },
          '202': { description: 'A notification or response was accepted' },
          ...bodyErrors(400, 401, 404, 406),
        },
      },
    },
  };
}
