/**
 * The history page's second set of views: search through time (`/v1/history/search`), blame of
 * a subtree (`…/blame`), the lineage of a stream (`…/lineage`), a LangGraph thread as steps
 * (`…/langgraph-steps`), and the audit as a background job (`…/audit-job`). Each read is bounded
 * by a scan budget per request (documented on the route); none reads the whole log at once.
 * Search and blame are also bounded by the server's work budget (wall-clock ms, `work-budget-note.ts`).
 */
import { Type } from '@sinclair/typebox';
import { bodyErrors, errors } from './error-responses.js';
import { jsonValue } from './json-schemas.js';
import { WORK_BUDGET_NOTE } from './work-budget-note.js';
import { AuditJob, BlamePage, LangGraphSteps, LineageGraph, SearchPage } from './history-insight-shapes.js';

/** Search: hits per page by default and at most; transitions read per request by default and at most. */
export const SEARCH_PAGE = { default: 50, max: 200, scan: 5000, maxScan: 50000 } as const;
/** Blame: children per page by default and at most; revisions read per request by default and at most. */
export const BLAME_PAGE = { default: 200, max: 2000, scan: 5000, maxScan: 50000 } as const;
/** Lineage: transitions read per stream at most, streams in the graph at most, streams whose first revision is checked for a fork at most. */
export const LINEAGE_SCAN = { perStream: 20000, streams: 32, candidates: 5000 } as const;
/** LangGraph steps: steps per page by default and at most. */
export const LANGGRAPH_STEP_PAGE = { default: 50, max: 200 } as const;

const VISIBILITY = ' With API keys a caller sees only the streams of its own ladder sessions; other streams answer 404 NOT_FOUND.';
const OWNER_ONLY = " The store's owner only (the server token, or a keyless server): an API-key user gets 403 FORBIDDEN.";

const uint = (description: string) => Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description });
const stream = Type.String({ minLength: 1, maxLength: 1024, description: 'Stream id' });
const pointer = Type.String({ maxLength: 4096, pattern: '^(/.*)?$', default: '', description: 'RFC 6901 JSON pointer from the state root ("" = the root)' });
const page = (bounds: { default: number; max: number }, what: string) =>
  Type.Integer({ minimum: 1, maximum: bounds.max, default: bounds.default, description: `${what} per page (default ${bounds.default}, at most ${bounds.max})` });
const scan = (bounds: { scan: number; maxScan: number }, what: string) =>
  Type.Integer({ minimum: 1, maximum: bounds.maxScan, default: bounds.scan, description: `${what} read at most by this request (default ${bounds.scan}, at most ${bounds.maxScan}): the scan budget` });

/** A GET route of this module: its query, its answer, and the errors it adds. */
function readRoute<const U extends string, Q extends object, A extends object>(url: U, operationId: string, summary: string, querystring: Q, answer: A) {
  return { method: 'GET', url, schema: { operationId, summary, querystring, response: { 200: answer, ...errors(400, 401, 404, 410) } } } as const;
}

export const historySearchRoute = readRoute(
  '/v1/history/search',
  'historySearch',
  "Search through time (git's pickaxe): the revisions where a match appears or disappears, oldest first, over one stream or every visible stream. " +
    'A match is a value at a key (`key`: a key name, or a pointer suffix such as `/dependencies/eslint`), a leaf equal to a JSON value (`value`), or a string leaf — or a key — containing a text ' +
    '(`text`, case-insensitive); `key` with `value` or `text` matches only values at that key. Only the parts of the state each transition changed are looked at. ' +
    `Reads at most \`scan\` transitions per request (default ${SEARCH_PAGE.scan}) and returns at most \`limit\` hits: a page may be empty and carry a \`next\` to go on from.${WORK_BUDGET_NOTE}${VISIBILITY}`,
  Type.Object(
    {
      stream: Type.Optional(Type.String({ minLength: 1, maxLength: 1024, description: 'Search this stream only (default: every stream visible to the caller)' })),
      key: Type.Optional(Type.String({ minLength: 1, maxLength: 4096, description: 'A key name (any depth), or a pointer suffix starting with / (RFC 6901 escapes)' })),
      value: Type.Optional(Type.String({ minLength: 1, maxLength: 4096, description: 'JSON text of a value a leaf must equal ("9.2.0" with its quotes, 3, true)' })),
      text: Type.Optional(Type.String({ minLength: 1, maxLength: 1024, description: 'Text a string leaf or a key must contain (case-insensitive)' })),
      after: Type.Optional(uint('Read transitions with a seq after this one (the previous page\'s `next`; default 0)')),
      limit: Type.Optional(page(SEARCH_PAGE, 'Hits')),
      scan: Type.Optional(scan(SEARCH_PAGE, 'Transitions')),
    },
    { additionalProperties: false },
  ),
  Type.Object(SearchPage.properties, { description: 'One page of the search' }),
);

export const historyBlameRoute = readRoute(
  '/v1/history/blame',
  'historyBlame',
  'Blame of a subtree: for each child of the value at `pointer` at revision `rev` (default the head), the last transition at or below `rev` that changed it — seq, revision, time, meta date and writer. ' +
    `Reads at most the last \`scan\` revisions up to \`rev\` (default ${BLAME_PAGE.scan}); a child not changed within them says \`atOrBefore\`. ` +
    'Read newest first: a page the work budget ended has a `next`; ask again with `until` = next, and keep for each child the first change that is not null (else the last page\'s `atOrBefore`).' +
    `${WORK_BUDGET_NOTE}${VISIBILITY}`,
  Type.Object(
    {
      stream,
      rev: Type.Optional(uint('Revision of the tree (default: the head)')),
      pointer: Type.Optional(pointer),
      offset: Type.Optional(Type.Integer({ minimum: 0, default: 0, description: 'First child' })),
      limit: Type.Optional(page(BLAME_PAGE, 'Children')),
      scan: Type.Optional(scan(BLAME_PAGE, 'Revisions')),
      until: Type.Optional(uint('Read revisions at or below this one only (the previous page\'s `next`; default `rev`); the window still ends at `rev` − `scan`')),
    },
    { additionalProperties: false },
  ),
  Type.Object(BlamePage.properties, { description: 'The blame of one level' }),
);

export const historyLineageRoute = readRoute(
  '/v1/history/lineage',
  'historyLineage',
  "The lineage of a stream from the `fork`, `merge` and `revert` records of transition meta: the streams it took in (fork and merge sources, recursively), the streams forked from it, and every such record of their histories. " +
    `Reads at most ${LINEAGE_SCAN.perStream} transitions per stream, ${LINEAGE_SCAN.streams} streams, and the first revision of at most ${LINEAGE_SCAN.candidates} streams; \`truncated\` says when a bound was reached.${VISIBILITY}`,
  Type.Object({ stream }, { additionalProperties: false }),
  Type.Object(LineageGraph.properties, { description: 'The lineage graph' }),
);

export const historyLangGraphStepsRoute = {
  method: 'GET',
  url: '/v1/history/langgraph-steps',
  schema: {
    operationId: 'historyLangGraphSteps',
    summary:
      "A LangGraph thread (a `langgraph:` stream of @stateflow/langgraph's checkpointer) as steps: one per checkpoint, oldest first, with step number, source, channel values and messages decoded as LangGraph shows them (not the stored `$len`/`$null` form), and the pending writes with their task. " +
      'It needs @stateflow/langgraph installed beside the server (an optional peer dependency): without it, 501 PACKAGE_NOT_INSTALLED.' +
      VISIBILITY,
    querystring: Type.Object(
      {
        stream: Type.String({ minLength: 1, maxLength: 1024, pattern: '^langgraph:', description: 'A checkpoint stream langgraph:<thread>[/<namespace>]' }),
        from: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, default: 1, description: 'First revision to read' })),
        limit: Type.Optional(page(LANGGRAPH_STEP_PAGE, 'Steps')),
      },
      { additionalProperties: false },
    ),
    response: { 200: Type.Object(LangGraphSteps.properties, { description: 'One page of steps' }), ...errors(400, 401, 404, 410, 501) },
  },
} as const;

const jobAnswer = Type.Object({ job: Type.Union([AuditJob, Type.Null()], { description: 'The latest audit job of this server, or null before the first' }) });

export const auditJobStartRoute = {
  method: 'POST',
  url: '/v1/history/audit-job',
  schema: {
    operationId: 'auditJobStart',
    summary: `Start the audit (store \`audit\`) as a background job, or join the one running: one job at a time per store. Takes \`{}\`.${OWNER_ONLY}`,
    body: Type.Object({}, { additionalProperties: false }),
    response: {
      200: Type.Object({ started: Type.Boolean({ description: 'false: a job was running already, and `job` is that one' }), job: AuditJob }),
      ...bodyErrors(401),
    },
  },
} as const;

export const auditJobGetRoute = {
  method: 'GET',
  url: '/v1/history/audit-job',
  schema: { operationId: 'auditJobGet', summary: `The latest audit job: its state, progress and, once done, its report.${OWNER_ONLY}`, response: { 200: jobAnswer, ...errors(401) } },
} as const;

export const auditJobCancelRoute = {
  method: 'DELETE',
  url: '/v1/history/audit-job',
  schema: {
    operationId: 'auditJobCancel',
    summary: `Cancel the running audit job (it ends as \`cancelled\` within one log record); answers the latest job as it is when none runs.${OWNER_ONLY}`,
    response: { 200: jobAnswer, ...errors(401) },
  },
} as const;

export const auditJobEventsRoute = {
  method: 'GET',
  url: '/v1/history/audit-job/events',
  schema: {
    operationId: 'auditJobEvents',
    summary: `Server-Sent Events of the latest audit job: \`job\` at once (the job as it is), \`progress\` {done, total} as it goes (at most about 10 a second), and a last \`job\` event when it ends; the stream then closes.${OWNER_ONLY}`,
    response: {
      200: { description: 'The event stream', content: { 'text/event-stream': { schema: jsonValue({ description: 'job: an AuditJob; progress: {done, total}' }) } } },
      ...errors(401, 404),
    },
  },
} as const;

/** The routes of this module. */
export const HISTORY_INSIGHT_ROUTES = [
  historySearchRoute,
  historyBlameRoute,
  historyLineageRoute,
  historyLangGraphStepsRoute,
  auditJobStartRoute,
  auditJobGetRoute,
  auditJobCancelRoute,
  auditJobEventsRoute,
] as const;
