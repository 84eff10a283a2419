/**
 * The OpenAPI paths of the history endpoints (`/v1/history/…`, the read-only views behind the
 * history page at `/ui/`), built from the schemas the routes validate with.
 */
import { queryParams } from '../openapi-store.js';
import type { OpenApiHelpers } from '../openapi-store.js';
import {
  diffQuerySchema,
  effectiveNodeQuerySchema,
  histogramQuerySchema,
  nodeQuerySchema,
  pathHistoryQuerySchema,
  revisionsQuerySchema,
  slatesAtQuerySchema,
  streamsQuerySchema,
} from './history-schemas.js';

const VISIBILITY = ' With API keys a caller sees only the streams of its own ladder sessions; other streams answer 404 NOT_FOUND.';

const summary = { type: 'object', description: 'kind (object, array, string, number, boolean), size (keys) or length (items, UTF-16 units), preview (scalars; strings cut at 200 with truncated: true)' };
const child = {
  type: 'object',
  description: 'One child: label (key or [i]), pointer, the value summary, changed (by the transition looked at), path (read_state path or null), and in the effective view scope and shadows',
};
const level = {
  type: 'object',
  properties: {
    pointer: { type: 'string' },
    changed: { type: ['boolean', 'null'], description: 'Whether the transition looked at changed this value (null: history before the origin)' },
    children: { type: 'array', items: child },
    offset: { type: 'integer' },
    total: { type: 'integer', description: 'Children the value has' },
    path: { type: ['string', 'null'], description: 'read_state path of the value, or null where none exists' },
    cli: { type: ['string', 'null'], description: 'The CLI command that shows it' },
  },
  description: `One level of the state (the keys projection plus change marks) and the value summary: ${summary.description}`,
};

/** The paths object entries. */
export function historyPaths({ json, errors }: OpenApiHelpers): Record<string, object> {
  const get = (operationId: string, text: string, schema: Parameters<typeof queryParams>[0], response: object, ...statuses: number[]) => ({
    get: { operationId, summary: text, parameters: queryParams(schema), responses: { '200': { description: 'OK', content: json(response) }, ...errors(400, 401, ...statuses) } },
  });
  return {
    '/v1/history/streams': get(
      'historyStreams',
      `One page of the visible streams sorted by id (filter, kind), each with head revision, origin and last change time, and the count per kind.${VISIBILITY}`,
      streamsQuerySchema,
      { type: 'object', properties: { lastSeq: { type: 'integer' }, streams: { type: 'array' }, counts: { type: 'object' }, next: { type: ['string', 'null'] } } },
    ),
    '/v1/history/histogram': get(
      'historyHistogram',
      'Transitions over wall time in equal-width buckets (at most 240), each with its seq range; of one stream when `stream` is given (required with API keys). Cost: O(buckets × log lastSeq) log reads.',
      histogramQuerySchema,
      { type: 'object', properties: { lastSeq: { type: 'integer' }, firstSeq: { type: 'integer' }, stream: { type: ['string', 'null'] }, buckets: { type: 'array' } } },
      404,
    ),
    '/v1/history/node': get(
      'historyNode',
      `One level of a stream's state at a revision (or as of a seq): the children of the value at \`pointer\`, paged, with changed-at-this-revision marks and read_state paths.${VISIBILITY}`,
      nodeQuerySchema,
      { ...level, description: `${level.description}; plus stream, streamKind, rev, seq (of rev), head, headSeq, origin` },
      404,
      410,
    ),
    '/v1/history/effective-node': get(
      'historyEffectiveNode',
      'One level of the effective overlay (global → cwd → session) as of a seq, each child with the scope it comes from and the lower values it shadows.',
      effectiveNodeQuerySchema,
      { ...level, description: `${level.description}; plus seq, lastSeq, streams` },
      404,
      410,
    ),
    '/v1/history/revisions': get(
      'historyRevisions',
      "One page of a stream's retained revisions from revision `from`: rev, seq, time, id, meta, streams changed.",
      revisionsQuerySchema,
      { type: 'object', properties: { stream: { type: 'string' }, head: { type: 'integer' }, origin: { type: 'integer' }, revisions: { type: 'array' }, next: { type: ['integer', 'null'] } } },
      404,
    ),
    '/v1/history/path-history': get(
      'historyPathHistory',
      'The revisions after `after` that changed the value at `pointer`, oldest first, with the value before and after (whole when ≤ 4,096 characters of JSON, else summarised); at most `limit` changes and `scan` revisions read per request, `next` resumes.',
      pathHistoryQuerySchema,
      { type: 'object', properties: { stream: { type: 'string' }, pointer: { type: 'string' }, changes: { type: 'array' }, next: { type: ['integer', 'null'] }, firstRev: { type: 'integer' } } },
      404,
      410,
    ),
    '/v1/history/diff': get(
      'historyDiff',
      'A structural diff (added / removed / changed values in document order, changed containers with the count of unchanged children) between two revisions of a stream, a revision of `stream` and one of `streamB` (a fork against its source), or two seqs of the effective view; with the patch from A to B, the stored patch when B = A + 1, and the equivalent CLI command.',
      diffQuerySchema,
      {
        type: 'object',
        properties: { entries: { type: 'array' }, counts: { type: 'object' }, truncated: { type: 'boolean' }, patch: { type: 'object' }, storedPatch: { type: ['object', 'null'] }, cli: { type: 'string' } },
      },
      404,
      410,
    ),
    '/v1/history/slates': get(
      'historySlates',
      'The slates of a ladder session as of one call (a revision of `slate:<ladder>:<session>`): folders, files with contents, user metatags and system metatags (size, tokens, created, modified, last read), and the structural diff the call made.',
      slatesAtQuerySchema,
      { type: 'object', properties: { stream: { type: 'string' }, rev: { type: 'integer' }, seq: { type: 'integer' }, slates: { type: 'array' }, call: { type: ['object', 'null'] } } },
      404,
      410,
    ),
  };
}
