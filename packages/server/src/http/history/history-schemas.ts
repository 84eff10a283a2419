/**
 * Request schemas of the history endpoints (`/v1/history/…`), shared by the routes (validation:
 * query strings coerced to numbers, see request-validation.ts) and the OpenAPI document.
 */
import { DIFF_ENTRIES } from './structural-diff.js';
import { HISTOGRAM_BUCKETS } from './histogram.js';
import { NODE_PAGE } from './state-node.js';
import { PATH_HISTORY_PAGE } from './path-history.js';
import { STREAM_KINDS } from './read-paths.js';
import { STREAM_PAGE } from './stream-list.js';

const uint = (description: string) => ({ type: 'integer', minimum: 0, description }) as const;
const stream = { type: 'string', minLength: 1, maxLength: 1024, description: 'Stream id: global, cwd:/abs/dir, session:ID, slate:LADDER:SESSION, ladder-session:ID, …' } as const;
const pointer = { type: 'string', maxLength: 4096, pattern: '^(/.*)?$', default: '', description: 'RFC 6901 JSON pointer from the state root ("" = the root)' } as const;
const limit = (page: { default: number; max: number }, what: string) =>
  ({ type: 'integer', minimum: 1, maximum: page.max, default: page.default, description: `${what} per page (default ${page.default}, at most ${page.max})` }) as const;
/** The owners of an effective view (the state API's selection, as query parameters). */
const owners = {
  global: { type: 'string', enum: ['1', 'true'], description: 'Include the global scope: 1 or true (as /mcp takes it); leave it out otherwise' },
  cwd: { type: 'string', minLength: 2, pattern: '^/', description: 'Include the cwd scope of this absolute directory' },
  session: { type: 'string', minLength: 1, description: 'Include the session scope of this id' },
} as const;

/** `GET /v1/history/streams`. */
export const streamsQuerySchema = {
  type: 'object',
  properties: {
    filter: { type: 'string', maxLength: 1024, description: 'Case-insensitive substring of the stream id' },
    kind: { type: 'string', enum: [...STREAM_KINDS], description: 'Only streams of this kind' },
    after: { type: 'string', maxLength: 1024, description: 'List ids after this one (the previous page\'s `next`)' },
    limit: limit(STREAM_PAGE, 'Streams'),
  },
  additionalProperties: false,
} as const;

/** `GET /v1/history/histogram`. */
export const histogramQuerySchema = {
  type: 'object',
  properties: {
    buckets: limit(HISTOGRAM_BUCKETS, 'Buckets'),
    stream: { ...stream, description: 'Count only the transitions that changed this stream (required with API keys)' },
    axis: { type: 'string', enum: ['time', 'seq'], default: 'time', description: 'Buckets of equal wall time (default) or of equal seq ranges' },
  },
  additionalProperties: false,
} as const;

/** `GET /v1/history/node`. */
export const nodeQuerySchema = {
  type: 'object',
  properties: {
    stream,
    rev: uint('Revision to read (default: the stream\'s revision as of `seq`, else its head)'),
    seq: uint('Global seq: read the revision the stream had as of this transition'),
    pointer,
    offset: { ...uint('First child to list'), default: 0 },
    limit: limit(NODE_PAGE, 'Children'),
  },
  required: ['stream'],
  additionalProperties: false,
} as const;

/** `GET /v1/history/effective-node`. */
export const effectiveNodeQuerySchema = {
  type: 'object',
  properties: { ...owners, seq: uint('Global seq of the view (default: the last)'), pointer, offset: { ...uint('First child to list'), default: 0 }, limit: limit(NODE_PAGE, 'Children') },
  additionalProperties: false,
} as const;

/** `GET /v1/history/revisions`. */
export const revisionsQuerySchema = {
  type: 'object',
  properties: { stream, from: { ...uint('First revision to list'), default: 1 }, limit: limit({ default: 200, max: 1000 }, 'Revisions') },
  required: ['stream'],
  additionalProperties: false,
} as const;

/** `GET /v1/history/path-history`. */
export const pathHistoryQuerySchema = {
  type: 'object',
  properties: {
    stream,
    pointer,
    at: uint('Revision at which the pointer is resolved (array item vs key); default the head'),
    after: { ...uint('List changes in revisions after this one (the previous page\'s `next`)'), default: 0 },
    limit: limit(PATH_HISTORY_PAGE, 'Changes'),
    scan: { type: 'integer', minimum: 1, maximum: PATH_HISTORY_PAGE.maxScan, default: PATH_HISTORY_PAGE.scan, description: `Revisions read at most (default ${PATH_HISTORY_PAGE.scan})` },
  },
  required: ['stream'],
  additionalProperties: false,
} as const;

/** `GET /v1/history/diff`. */
export const diffQuerySchema = {
  type: 'object',
  properties: {
    stream: { ...stream, description: 'Stream of side A (and of side B unless `streamB` is given); omit for the effective view' },
    streamB: { ...stream, description: 'Stream of side B (a fork against its source)' },
    a: uint('Side A: a revision of `stream`, or a seq of the effective view'),
    b: uint('Side B: a revision of `streamB` (else `stream`), or a seq of the effective view'),
    ...owners,
    limit: limit(DIFF_ENTRIES, 'Entries'),
  },
  required: ['a', 'b'],
  additionalProperties: false,
} as const;

/** `GET /v1/history/slates`. */
export const slatesAtQuerySchema = {
  type: 'object',
  properties: {
    stream: { ...stream, pattern: '^slate:', description: 'A slate stream slate:<ladder>:<session>' },
    rev: uint('Revision (one ladder call each; default: as of `seq`, else the head)'),
    seq: uint('Global seq: the revision the stream had as of this transition'),
  },
  required: ['stream'],
  additionalProperties: false,
} as const;
