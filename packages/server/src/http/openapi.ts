/**
 * The OpenAPI 3.1 document served at `GET /openapi.json` (server README "Endpoints"), built from the same schemas
 * the routes validate with.
 */
import { patchStateInputSchema, readStateInputSchema } from '@stateflow/tools';
import {
  chatCompletionBodySchema,
  chatCompletionChunkSchema,
  chatCompletionSchema,
  createSessionBodySchema,
  createdSessionSchema,
  errorSchema,
  modelListSchema,
  selectionSchema,
  sessionSchema,
  slateHistoryQuerySchema,
  slateHistorySchema,
  slatesResponseSchema,
} from './schemas.js';
import {
  atSeqBodySchema,
  auditReportSchema,
  compactBodySchema,
  forkBodySchema,
  mergeBodySchema,
  mergeResultSchema,
  publishBodySchema,
  publishResultSchema,
  revertBodySchema,
  serverInfoSchema,
  streamHeadSchema,
  transitionSchema,
  viewBodySchema,
} from './store-schemas.js';
import { storePaths } from './openapi-store.js';
import { historyPaths } from './history/history-openapi.js';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: unknown) => ({ 'application/json': { schema } });
/** Error responses of an operation; every operation can answer 403 (the keyless loopback guard). */
const errors = (...statuses: number[]) =>
  Object.fromEntries([...statuses, 403].sort((a, b) => a - b).map((s) => [String(s), { description: ERROR_TEXT[s] ?? 'Error', content: json(ref('Error')) }]));
/** Error responses of an operation with a JSON request body: also 413 and 415. */
const bodyErrors = (...statuses: number[]) => errors(...statuses, 413, 415);

const ERROR_TEXT: Record<number, string> = {
  400: 'Bad input (INPUT_INVALID, PATH_*, PATCH_INVALID, …)',
  401: 'Missing or unknown API key, or a server that requires its token without it (UNAUTHORIZED)',
  403: 'Without API keys: a Host that is not localhost/127.0.0.1/[::1], or a non-loopback Origin; with API keys: a local/ ladder (FORBIDDEN)',
  413: 'Request body over the limit (BODY_TOO_LARGE)',
  415: 'Request body not sent as Content-Type: application/json (MEDIA_TYPE_UNSUPPORTED)',
  422: 'The answer would pass a response cap: more than 100 paths in a batch, or more than 8 MiB of results (RESPONSE_TOO_LARGE)',
  404: 'Unknown ladder, or unknown or foreign session (NOT_FOUND, SESSION_NOT_FOUND, REVISION_NOT_FOUND)',
  409: 'Stale If-Match revision (CONFLICT) or paused session (SESSION_PAUSED)',
  410: 'Session closed or expired (SESSION_CLOSED), or history no longer retained',
  502: 'The model upstream failed (MODEL_FAILED)',
  503: 'No model configured (MODEL_UNAVAILABLE)',
};

const ladderParams = [
  { name: 'author', in: 'path', required: true, schema: { type: 'string' }, description: 'Ladder author (`alice` or `@alice`)' },
  { name: 'ladder', in: 'path', required: true, schema: { type: 'string' }, description: 'Ladder name' },
];
const sessionParams = [...ladderParams, { name: 'id', in: 'path', required: true, schema: { type: 'string' } }];

/** A tool's input schema with the `selection` member the HTTP state API adds. */
function withSelection(schema: { properties: object; required?: readonly string[] }): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = schema as { $schema?: string; properties: object; required?: readonly string[] };
  return { ...rest, properties: { ...rest.properties, selection: ref('Selection') }, required: [...(rest.required ?? []), 'selection'] };
}

function lifecycleOp(verb: string, summary: string) {
  return {
    post: {
      operationId: `${verb}Session`,
      summary,
      parameters: sessionParams,
      responses: { '200': { description: 'The session after the change', content: json(ref('Session')) }, ...errors(401, 404, 410) },
    },
  };
}

/**
 * Build the OpenAPI document.
 * @param serverUrl base URL the server listens on, listed under `servers`.
 */
export function openApiDocument(serverUrl: string): Record<string, unknown> {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Stateflow HTTP API',
      version: '0.1.0',
      description:
        'Ladder sessions, OpenAI-compatible chat/completions over a ladder, time-travel slate reads, the read_state/patch_state state API, ' +
        'the store API (/v1/store/…: the store this server holds, for other processes), the live watch stream (/v1/watch, Server-Sent Events), MCP over Streamable HTTP (/mcp), and the read-only history views behind the history page at /ui/ (/v1/history/…).',
    },
    servers: [{ url: serverUrl }],
    security: [{ bearer: [] }, { token: [] }],
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'An API key from --keys / STATEFLOW_API_KEYS, or (without keys) the server token' },
        token: { type: 'apiKey', in: 'header', name: 'X-Stateflow-Token', description: "The server token from stateflow-server.json in the store directory: required by background servers and --require-token; on a server with API keys it stands for the store's owner" },
      },
      schemas: {
        CreateSession: createSessionBodySchema,
        CreatedSession: createdSessionSchema,
        Session: sessionSchema,
        ChatCompletionRequest: chatCompletionBodySchema,
        ChatCompletion: chatCompletionSchema,
        ChatCompletionChunk: chatCompletionChunkSchema,
        ModelList: modelListSchema,
        Slates: slatesResponseSchema,
        SlateHistory: slateHistorySchema,
        Selection: selectionSchema,
        Error: errorSchema,
        Transition: transitionSchema,
        StreamHead: streamHeadSchema,
        PublishInput: publishBodySchema,
        PublishResult: publishResultSchema,
        ForkInput: forkBodySchema,
        RevertInput: revertBodySchema,
        MergeInput: mergeBodySchema,
        MergeResult: mergeResultSchema,
        CompactInput: compactBodySchema,
        StreamsInput: viewBodySchema,
        StreamsAtInput: atSeqBodySchema,
        AuditReport: auditReportSchema,
        ServerInfo: serverInfoSchema,
      },
    },
    paths: {
      '/v1/{author}/{ladder}/sessions': {
        post: {
          operationId: 'createSession',
          summary: 'Create a session of the ladder (declared slate files initialised)',
          parameters: ladderParams,
          requestBody: { required: false, content: json(ref('CreateSession')) },
          responses: { '200': { description: 'Created', content: json(ref('CreatedSession')) }, ...bodyErrors(400, 401, 404) },
        },
        get: {
          operationId: 'listSessions',
          summary: "The caller's sessions of the ladder",
          parameters: ladderParams,
          responses: {
            '200': { description: 'Sessions', content: json({ type: 'object', properties: { data: { type: 'array', items: ref('Session') } } }) },
            ...errors(401, 404),
          },
        },
      },
      '/v1/{author}/{ladder}/sessions/{id}': {
        get: {
          operationId: 'getSession',
          summary: 'One of your sessions',
          parameters: sessionParams,
          responses: { '200': { description: 'The session', content: json(ref('Session')) }, ...errors(401, 404) },
        },
      },
      '/v1/{author}/{ladder}/sessions/{id}/close': lifecycleOp('close', 'Close the session (calls then answer 410)'),
      '/v1/{author}/{ladder}/sessions/{id}/pause': lifecycleOp(
        'pause',
        'Pause the session: a call in flight finishes its current step, records its execution state and waits; answers once paused',
      ),
      '/v1/{author}/{ladder}/sessions/{id}/resume': {
        post: {
          operationId: 'resumeSession',
          summary: 'Resume a paused session; a call paused by an earlier server process is run to completion and its answer returned as `completion`',
          parameters: sessionParams,
          responses: {
            '200': {
              description: 'The session after the change, plus `completion` when a recorded call was continued',
              content: json({ allOf: [ref('Session')], properties: { completion: ref('ChatCompletion') } }),
            },
            ...errors(401, 404, 410, 502, 503),
          },
        },
      },
      '/v1/{author}/{ladder}/sessions/{id}/slates': {
        get: {
          operationId: 'readSlates',
          summary: "The session's slate projection, now or at a past revision",
          parameters: [...sessionParams, { name: 'at', in: 'query', required: false, schema: { type: 'integer', minimum: 0 } }],
          responses: { '200': { description: 'Slates', content: json(ref('Slates')) }, ...errors(400, 401, 404, 410) },
        },
      },
      '/v1/{author}/{ladder}/sessions/{id}/slates/history': {
        get: {
          operationId: 'readSlateHistory',
          summary: "What each call wrote: one entry per revision of the session's slates (rev, seq, time, files changed and read), oldest first, paged",
          parameters: [
            ...sessionParams,
            { name: 'after', in: 'query', required: false, schema: slateHistoryQuerySchema.properties.after },
            { name: 'limit', in: 'query', required: false, schema: slateHistoryQuerySchema.properties.limit },
          ],
          responses: { '200': { description: 'One page of the slate history', content: json(ref('SlateHistory')) }, ...errors(400, 401, 404, 410) },
        },
      },
      '/v1/{author}/{ladder}/chat/completions': {
        post: {
          operationId: 'chatCompletion',
          summary:
            'Run the ladder on the conversation: the last user message is input.context, the turns before it input.messages, the system messages input.system. ' +
            'With stream: true the answer is Server-Sent Events (text/event-stream), each `data:` a ChatCompletionChunk, ending with `data: [DONE]`; ' +
            'errors before the first content byte are JSON errors with their status, a failure after it one `data: {"error": …}` event.',
          parameters: [
            ...ladderParams,
            { name: 'X-Session-Id', in: 'header', required: false, schema: { type: 'string' }, description: 'Run on this session (omit: a fresh slate, nothing persisted; empty: 400)' },
            { name: 'If-Match', in: 'header', required: false, schema: { type: 'string' }, description: 'Expected slate revision, "3" or 3 (weak W/ tags are refused); stale → 409' },
          ],
          requestBody: { required: true, content: json(ref('ChatCompletionRequest')) },
          responses: {
            '200': {
              description: 'Completion (or, with stream: true, its chunks as Server-Sent Events)',
              content: { ...json(ref('ChatCompletion')), 'text/event-stream': { schema: ref('ChatCompletionChunk') } },
            },
            ...bodyErrors(400, 401, 404, 409, 410, 502, 503),
          },
        },
      },
      '/v1/{author}/{ladder}/models': {
        get: {
          operationId: 'listModels',
          summary: "The ladder as the one model of its base URL (the OpenAI client's models.list())",
          parameters: ladderParams,
          responses: { '200': { description: 'Models', content: json(ref('ModelList')) }, ...errors(401, 404) },
        },
      },
      '/v1/state/read': {
        post: {
          operationId: 'readState',
          summary: 'read_state: the tool input plus a `selection`; answers exactly the tool output',
          requestBody: {
            required: true,
            content: json(withSelection(readStateInputSchema)),
          },
          responses: { '200': { description: 'The read_state output' }, ...bodyErrors(400, 401, 404, 410, 422) },
        },
      },
      '/v1/state/patch': {
        post: {
          operationId: 'patchState',
          summary: 'patch_state: the tool input plus a `selection`; answers exactly the tool output',
          requestBody: {
            required: true,
            content: json(withSelection(patchStateInputSchema)),
          },
          responses: {
            '200': {
              description: 'The patch_state output',
              headers: {
                'Stateflow-Transition': { description: 'The seq of the transition the call published; absent when the patch changed nothing', schema: { type: 'integer' } },
              },
            },
            ...bodyErrors(400, 401, 404, 409, 410),
          },
        },
      },
      ...storePaths({ ref, json, errors, bodyErrors }),
      ...historyPaths({ ref, json, errors, bodyErrors }),
    },
  };
}
