/**
 * The history endpoints behind the history page (`/ui/`): read-only views of the log shaped for
 * a browser. Every answer is bounded (pages, bucket counts, scan limits); none returns the whole
 * log. Query strings are coerced (`?rev=3` is the integer 3).
 */
import { Type } from '@sinclair/typebox';
import { errors } from './error-responses.js';
import { stringEnum } from './json-schemas.js';
import { WORK_BUDGET_NOTE } from './work-budget-note.js';
import { DiffResult, EffectiveNode, Histogram, PathHistoryPage, RevisionPage, STREAM_KINDS, SlatesAtCall, StreamNode, StreamPage } from './history-shapes.js';

/** Streams per page by default, and at most. */
export const STREAM_PAGE = { default: 200, max: 1000 } as const;
/** Histogram buckets by default, and at most. */
export const HISTOGRAM_BUCKETS = { default: 60, max: 240 } as const;
/** Children of a tree level per page by default, and at most. */
export const NODE_PAGE = { default: 200, max: 2000 } as const;
/** Revisions per page by default, and at most. */
export const REVISION_PAGE = { default: 200, max: 1000 } as const;
/** Path history entries per page by default and at most; revisions read per request by default and at most. */
export const PATH_HISTORY_PAGE = { default: 100, max: 500, scan: 5000, maxScan: 20000 } as const;
/** Transitions of a stream read at most for a histogram over meta dates. */
export const DATE_AXIS_SCAN = 200_000;
/** Structural diff entries by default and at most. */
export const DIFF_ENTRIES = { default: 2000, max: 10000 } as const;

const VISIBILITY = ' With API keys a caller sees only the streams of its own ladder sessions; other streams answer 404 NOT_FOUND.';

const uint = (description: string) => Type.Integer({ minimum: 0, description });
const stream = Type.String({ minLength: 1, maxLength: 1024, description: 'Stream id: global, cwd:/abs/dir, session:ID, slate:LADDER:SESSION, ladder-session:ID, …' });
const pointer = Type.String({ maxLength: 4096, pattern: '^(/.*)?$', default: '', description: 'RFC 6901 JSON pointer from the state root ("" = the root)' });
const limit = (page: { default: number; max: number }, what: string) =>
  Type.Integer({ minimum: 1, maximum: page.max, default: page.default, description: `${what} per page (default ${page.default}, at most ${page.max})` });
/** Which shape a history read shows (store README "Shapes"); as text, since a query string is text. */
const shape = Type.String({
  pattern: '^(stored|current|[1-9][0-9]{0,8})$',
  default: 'stored',
  description: "The shape the state is shown in: stored (default: as written), current (upcast to the latest version of the stream's shape) or a version number",
});
const firstChild = Type.Integer({ minimum: 0, description: 'First child to list', default: 0 });

/** The owners of an effective view (the state API's selection, as query parameters). */
const owners = {
  global: Type.Optional(stringEnum(['1', 'true'], { description: 'Include the global scope: 1 or true (as /mcp takes it); leave it out otherwise' })),
  cwd: Type.Optional(Type.String({ minLength: 2, pattern: '^/', description: 'Include the cwd scope of this absolute directory' })),
  session: Type.Optional(Type.String({ minLength: 1, description: 'Include the session scope of this id' })),
};

/** A history route: GET, its query, its answer, and the errors it adds to 400 and 401. */
function historyRoute<const U extends string, Q extends object, A extends object>(
  url: U,
  operationId: string,
  summary: string,
  querystring: Q,
  answer: A,
) {
  return { method: 'GET', url, schema: { operationId, summary, querystring, response: { 200: answer, ...errors(400, 401, 404, 410) } } } as const;
}

export const historyStreamsRoute = historyRoute(
  '/v1/history/streams',
  'historyStreams',
  `One page of the visible streams sorted by id (filter, kind), each with head revision, origin and last change time, and the count per kind.${VISIBILITY}`,
  Type.Object(
    {
      filter: Type.Optional(Type.String({ maxLength: 1024, description: 'Case-insensitive substring of the stream id' })),
      kind: Type.Optional(stringEnum(STREAM_KINDS, { description: 'Only streams of this kind' })),
      after: Type.Optional(Type.String({ maxLength: 1024, description: "List ids after this one (the previous page's `next`)" })),
      limit: Type.Optional(limit(STREAM_PAGE, 'Streams')),
    },
    { additionalProperties: false },
  ),
  Type.Object(StreamPage.properties, { description: 'One page of streams' }),
);

export const historyHistogramRoute = historyRoute(
  '/v1/history/histogram',
  'historyHistogram',
  'Transitions over wall time in equal-width buckets (at most 240), each with its seq range; of one stream when `stream` is given (required with API keys). Cost: O(buckets × log lastSeq) log reads.',
  Type.Object(
    {
      buckets: Type.Optional(limit(HISTOGRAM_BUCKETS, 'Buckets')),
      stream: Type.Optional(Type.String({ minLength: 1, maxLength: 1024, description: 'Count only the transitions that changed this stream (required with API keys)' })),
      axis: Type.Optional(
        stringEnum(['time', 'seq', 'date'], {
          default: 'time',
          description: `Buckets of equal wall time (default), of equal seq ranges, or of equal meta-date time (\`date\`: the transitions' \`meta.date\` or \`meta.import.date\`; needs \`stream\`, reads at most ${DATE_AXIS_SCAN} of its transitions)`,
        }),
      ),
    },
    { additionalProperties: false },
  ),
  Type.Object(Histogram.properties, { description: 'The histogram' }),
);

export const historyNodeRoute = historyRoute(
  '/v1/history/node',
  'historyNode',
  `One level of a stream's state at a revision (or as of a seq): the children of the value at \`pointer\`, paged, with changed-at-this-revision marks and read_state paths.${VISIBILITY}`,
  Type.Object(
    {
      stream,
      rev: Type.Optional(uint("Revision to read (default: the stream's revision as of `seq`, else its head)")),
      seq: Type.Optional(uint('Global seq: read the revision the stream had as of this transition')),
      pointer: Type.Optional(pointer),
      offset: Type.Optional(firstChild),
      limit: Type.Optional(limit(NODE_PAGE, 'Children')),
      shape: Type.Optional(shape),
    },
    { additionalProperties: false },
  ),
  Type.Object(StreamNode.properties, { description: 'One level of the state' }),
);

export const historyEffectiveNodeRoute = historyRoute(
  '/v1/history/effective-node',
  'historyEffectiveNode',
  'One level of the effective overlay (global → cwd → session) as of a seq, each child with the scope it comes from and the lower values it shadows.',
  Type.Object(
    {
      ...owners,
      seq: Type.Optional(uint('Global seq of the view (default: the last)')),
      pointer: Type.Optional(pointer),
      offset: Type.Optional(firstChild),
      limit: Type.Optional(limit(NODE_PAGE, 'Children')),
    },
    { additionalProperties: false },
  ),
  Type.Object(EffectiveNode.properties, { description: 'One level of the effective state' }),
);

export const historyRevisionsRoute = historyRoute(
  '/v1/history/revisions',
  'historyRevisions',
  "One page of a stream's retained revisions from revision `from`: rev, seq, time, id, meta, streams changed.",
  Type.Object(
    {
      stream,
      from: Type.Optional(Type.Integer({ minimum: 0, description: 'First revision to list', default: 1 })),
      limit: Type.Optional(limit(REVISION_PAGE, 'Revisions')),
    },
    { additionalProperties: false },
  ),
  Type.Object(RevisionPage.properties, { description: 'One page of revisions' }),
);

export const historyPathHistoryRoute = historyRoute(
  '/v1/history/path-history',
  'historyPathHistory',
  'The revisions after `after` that changed the value at `pointer`, oldest first, with the value before and after (whole when ≤ 4,096 characters of JSON, else summarised); at most `limit` changes and `scan` revisions read per request, `next` resumes.' + WORK_BUDGET_NOTE,
  Type.Object(
    {
      stream,
      pointer: Type.Optional(pointer),
      at: Type.Optional(uint('Revision at which the pointer is resolved (array item vs key); default the head')),
      after: Type.Optional(Type.Integer({ minimum: 0, description: "List changes in revisions after this one (the previous page's `next`)", default: 0 })),
      limit: Type.Optional(limit(PATH_HISTORY_PAGE, 'Changes')),
      scan: Type.Optional(
        Type.Integer({ minimum: 1, maximum: PATH_HISTORY_PAGE.maxScan, default: PATH_HISTORY_PAGE.scan, description: `Revisions read at most (default ${PATH_HISTORY_PAGE.scan})` }),
      ),
    },
    { additionalProperties: false },
  ),
  Type.Object(PathHistoryPage.properties, { description: 'One page of the changes' }),
);

export const historyDiffRoute = historyRoute(
  '/v1/history/diff',
  'historyDiff',
  'A structural diff (added / removed / changed values in document order, changed containers with the count of unchanged children) between two revisions of a stream, a revision of `stream` and one of `streamB` (a fork against its source), or two seqs of the effective view; with the patch from A to B, the stored patch when B = A + 1, and the equivalent CLI command.',
  Type.Object(
    {
      stream: Type.Optional(Type.String({ minLength: 1, maxLength: 1024, description: 'Stream of side A (and of side B unless `streamB` is given); omit for the effective view' })),
      streamB: Type.Optional(Type.String({ minLength: 1, maxLength: 1024, description: 'Stream of side B (a fork against its source)' })),
      a: uint('Side A: a revision of `stream`, or a seq of the effective view'),
      b: uint('Side B: a revision of `streamB` (else `stream`), or a seq of the effective view'),
      ...owners,
      limit: Type.Optional(limit(DIFF_ENTRIES, 'Entries')),
    },
    { additionalProperties: false },
  ),
  Type.Object(DiffResult.properties, { description: 'The diff' }),
);

export const historySlatesRoute = historyRoute(
  '/v1/history/slates',
  'historySlates',
  'The slates of a ladder session as of one call (a revision of `slate:<ladder>:<session>`): folders, files with contents, user metatags and system metatags (size, tokens, created, modified, last read), and the structural diff the call made.',
  Type.Object(
    {
      stream: Type.String({ minLength: 1, maxLength: 1024, pattern: '^slate:', description: 'A slate stream slate:<ladder>:<session>' }),
      rev: Type.Optional(uint('Revision (one ladder call each; default: as of `seq`, else the head)')),
      seq: Type.Optional(uint('Global seq: the revision the stream had as of this transition')),
    },
    { additionalProperties: false },
  ),
  Type.Object(SlatesAtCall.properties, { description: 'The slates at the call' }),
);

/** The routes of this module. */
export const HISTORY_ROUTES = [
  historyStreamsRoute,
  historyHistogramRoute,
  historyNodeRoute,
  historyEffectiveNodeRoute,
  historyRevisionsRoute,
  historyPathHistoryRoute,
  historyDiffRoute,
  historySlatesRoute,
] as const;
