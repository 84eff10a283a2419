/**
 * The answers of the history endpoints (`/v1/history/…`), read by the history page: the streams
 * rail, the time histogram, one level of a state tree, revisions, a path's history, a
 * structural diff, the slates of a ladder session at a call.
 */
import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { enumOf, jsonObject, jsonValue } from './json-schemas.js';
import { StreamHead } from './store-shapes.js';

/** Stream kinds of the streams rail, in display order (by id prefix: `cwd:/x` → `cwd`; unknown prefixes → `other`). */
export const STREAM_KINDS = ['global', 'cwd', 'session', 'slate', 'ladder-session', 'other'] as const;

/** A stream's kind. */
export const StreamKind = enumOf(STREAM_KINDS);
export type StreamKind = Static<typeof StreamKind>;

/** The scopes of the effective overlay, low → high priority. */
export const Scope = enumOf(['global', 'cwd', 'session']);
export type Scope = Static<typeof Scope>;

/** One row of the rail (`GET /v1/history/streams`). */
export const StreamRow = Type.Object({
  ...StreamHead.properties,
  kind: StreamKind,
  time: Type.String({ format: 'date-time', description: 'Time of the transition that produced the head' }),
});
export type StreamRow = Static<typeof StreamRow>;

/** One page of the rail (`GET /v1/history/streams`). */
export const StreamPage = Type.Object({
  lastSeq: Type.Integer({ description: "The store's last seq when the page was read" }),
  streams: Type.Array(StreamRow),
  counts: Type.Unsafe<Record<StreamKind, number>>({
    type: 'object',
    additionalProperties: { type: 'integer' },
    description: 'Streams per kind after the filter (every kind listed, zeros included)',
  }),
  next: Type.Union([Type.String(), Type.Null()], { description: 'Pass as `after` for the next page; null on the last page' }),
});
export type StreamPage = Static<typeof StreamPage>;

/** One bucket: `[start, end)` in wall time, seqs `fromSeq … toSeq` (inclusive; empty when toSeq < fromSeq). */
export const HistogramBucket = Type.Object({
  start: Type.String({ format: 'date-time' }),
  end: Type.String({ format: 'date-time' }),
  fromSeq: Type.Integer(),
  toSeq: Type.Integer(),
  count: Type.Integer({ description: 'Transitions in the bucket (of the stream, when one was given)' }),
});
export type HistogramBucket = Static<typeof HistogramBucket>;

/** `GET /v1/history/histogram`. */
export const Histogram = Type.Object({
  lastSeq: Type.Integer(),
  firstSeq: Type.Integer({ description: 'First retained seq (1 unless compaction pruned the oldest transitions)' }),
  stream: Type.Union([Type.String(), Type.Null()]),
  axis: enumOf(['time', 'seq', 'date'], {
    description:
      "time: equal wall-time buckets; seq: equal seq ranges (start/end are their first and last transition's times); date: equal spans of meta date (each bucket's seqs are the lowest and highest it holds)",
  }),
  buckets: Type.Array(HistogramBucket),
  undated: Type.Optional(Type.Integer({ description: 'axis date: transitions of the stream without a meta date (counted in no bucket); 0 means every one has a date' })),
  truncated: Type.Optional(Type.Boolean({ description: 'axis date: the stream has more transitions than were read' })),
});
export type Histogram = Static<typeof Histogram>;

/** What a row shows of a value: its kind, its size, and scalars (strings cut at 200 UTF-16 units). */
const valueSummary = {
  kind: enumOf(['object', 'array', 'string', 'number', 'boolean', 'null']),
  size: Type.Optional(Type.Integer({ description: 'Immediate key count of an object' })),
  length: Type.Optional(Type.Integer({ description: 'Item count of an array, UTF-16 length of a string' })),
  preview: Type.Optional(Type.Union([Type.String(), Type.Number(), Type.Boolean()], { description: 'The value of a scalar (a string cut at 200 UTF-16 units)' })),
  truncated: Type.Optional(Type.Boolean({ description: 'True when preview is a cut string' })),
};
export const ValueSummary = Type.Object(valueSummary);
export type ValueSummary = Static<typeof ValueSummary>;

/** A value as the page shows it: absent, whole when small (≤ 4,096 characters of JSON), else summarised. */
export const ShownValue = Type.Union([
  Type.Object({ absent: Type.Literal(true) }),
  Type.Object({ value: jsonValue() }),
  Type.Object({ summary: ValueSummary }),
]);
export type ShownValue = Static<typeof ShownValue>;

/** One child of a tree level. */
export const NodeChild = Type.Object({
  ...valueSummary,
  label: Type.String({ description: 'Object key, or [i] for an array item' }),
  pointer: Type.String({ description: "RFC 6901 pointer of the child from the stream state's root" }),
  changed: Type.Boolean({ description: 'True when the transition looked at changed this child (or something below it)' }),
  path: Type.Union([Type.String(), Type.Null()], { description: 'read_state path, or null where none exists (a key outside the path grammar)' }),
  scope: Type.Optional(enumOf(['global', 'cwd', 'session'], { description: 'Effective view: the highest scope holding a value here' })),
  shadows: Type.Optional(
    Type.Array(Type.Object({ ...valueSummary, scope: Scope }), { description: "Effective view: the lower scopes' values this one hides (an object merges instead)" }),
  ),
  merges: Type.Optional(Type.Array(Scope, { description: 'Effective view: every scope whose object is merged into this one, low → high (two or more)' })),
});
export type NodeChild = Static<typeof NodeChild>;

/** One page of one level of a state tree. */
const nodePage = {
  ...valueSummary,
  pointer: Type.String(),
  changed: Type.Union([Type.Boolean(), Type.Null()], {
    description: 'True when the transition looked at changed this value; null when that is not known (history before the origin)',
  }),
  children: Type.Array(NodeChild),
  offset: Type.Integer({ description: 'Index of the first child sent' }),
  total: Type.Integer({ description: 'Children the value has' }),
};
export const NodePage = Type.Object(nodePage);
export type NodePage = Static<typeof NodePage>;

/** `GET /v1/history/node`. */
export const StreamNode = Type.Object({
  ...nodePage,
  stream: Type.String(),
  streamKind: StreamKind,
  rev: Type.Integer(),
  seq: Type.Union([Type.Integer(), Type.Null()], {
    description: 'Seq of the transition that produced rev; null for revision 0 and at or below the origin (that transition may be pruned)',
  }),
  head: Type.Integer(),
  headSeq: Type.Integer(),
  origin: Type.Integer(),
  path: Type.Union([Type.String(), Type.Null()], { description: 'read_state path of the value, or null' }),
  cli: Type.String({ description: 'The CLI command that shows the value' }),
  shape: Type.Optional(
    Type.Object(
      {
        name: Type.String({ description: 'The shape that governs the stream now' }),
        written: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
          description: 'The version the revision was written in (0: before any shape); null at or below the origin, whose transition may be pruned',
        }),
        shown: Type.Integer({ minimum: 0, description: 'The version the state is shown in (written, for stored)' }),
        latest: Type.Integer({ minimum: 1, description: "The shape's latest version" }),
      },
      { description: 'Present when a shape governs the stream (store README "Shapes")' },
    ),
  ),
});
export type StreamNode = Static<typeof StreamNode>;

/** `GET /v1/history/effective-node`. */
export const EffectiveNode = Type.Object({
  ...nodePage,
  seq: Type.Integer(),
  lastSeq: Type.Integer(),
  streams: Type.Array(Type.String()),
  path: Type.Union([Type.String(), Type.Null()]),
  cli: Type.Union([Type.String(), Type.Null()]),
});
export type EffectiveNode = Static<typeof EffectiveNode>;

/** One revision of a stream (`GET /v1/history/revisions`). */
export const RevisionRow = Type.Object({
  rev: Type.Integer(),
  seq: Type.Integer(),
  time: Type.String({ format: 'date-time' }),
  id: Type.Optional(Type.String()),
  meta: Type.Optional(jsonObject()),
  streams: Type.Integer({ description: 'Streams the transition changed' }),
  date: Type.Optional(Type.String({ description: "The transition's meta date (meta.date or meta.import.date), when it has one" })),
});
export type RevisionRow = Static<typeof RevisionRow>;

/** `GET /v1/history/revisions`. */
export const RevisionPage = Type.Object({
  stream: Type.String(),
  head: Type.Integer(),
  origin: Type.Integer(),
  revisions: Type.Array(RevisionRow),
  next: Type.Union([Type.Integer(), Type.Null()], { description: 'First revision of the next page, or null' }),
});
export type RevisionPage = Static<typeof RevisionPage>;

const change = enumOf(['added', 'removed', 'changed']);

/** One change of a path (`GET /v1/history/path-history`). */
export const PathChange = Type.Object({
  rev: Type.Integer(),
  seq: Type.Integer(),
  time: Type.String({ format: 'date-time' }),
  change: enumOf(['added', 'removed', 'changed'], { description: 'added (absent before), removed (absent after) or changed' }),
  date: Type.Optional(Type.String({ description: "The transition's meta date (meta.date or meta.import.date), when it has one" })),
  before: ShownValue,
  after: ShownValue,
});
export type PathChange = Static<typeof PathChange>;

/** `GET /v1/history/path-history`. */
export const PathHistoryPage = Type.Object({
  stream: Type.String(),
  pointer: Type.String(),
  changes: Type.Array(PathChange),
  next: Type.Union([Type.Integer(), Type.Null()], { description: 'Last revision read; pass as after for the next page. null when the head was reached' }),
  firstRev: Type.Integer({ description: 'The first revision that could be read (origin + 1): earlier changes were compacted away' }),
});
export type PathHistoryPage = Static<typeof PathHistoryPage>;

/** One row of a structural diff. */
export const DiffEntry = Type.Object({
  pointer: Type.String(),
  depth: Type.Integer({ description: "Depth below the root (the root's children are 1)" }),
  label: Type.String({ description: 'Key, or [i]' }),
  change,
  container: Type.Optional(Type.Object({ unchanged: Type.Integer() }, { description: 'A changed object or array whose children follow; unchanged counts the collapsed ones' })),
  before: Type.Optional(ShownValue),
  after: Type.Optional(ShownValue),
});
export type DiffEntry = Static<typeof DiffEntry>;

/** A structural diff, bounded to a number of entries. */
const structuralDiff = {
  entries: Type.Array(DiffEntry),
  counts: Type.Object({ added: Type.Integer(), removed: Type.Integer(), changed: Type.Integer() }),
  truncated: Type.Boolean(),
};
export const StructuralDiff = Type.Object(structuralDiff);
export type StructuralDiff = Static<typeof StructuralDiff>;

/** `GET /v1/history/diff`. */
export const DiffResult = Type.Object({
  ...structuralDiff,
  patch: jsonObject({ description: 'The patch from A to B (core diff)' }),
  storedPatch: Type.Union([jsonObject(), Type.Null()], { description: 'The stored net patch when B = A + 1 of one stream (or the diff of consecutive effective seqs)' }),
  cli: Type.String(),
});
export type DiffResult = Static<typeof DiffResult>;

/** One file of a slate as of a call. */
export const SlateFileView = Type.Object({
  name: Type.String(),
  contents: Type.String({ description: 'Contents (cut at 20,000 UTF-16 units)' }),
  truncated: Type.Boolean(),
  metatags: jsonObject(),
  system: Type.Object(
    {
      size: Type.Integer(),
      tokens: Type.Integer(),
      created: Type.String(),
      modified: Type.String(),
      lastRead: Type.Optional(Type.String()),
    },
    { description: 'System metatags: size in bytes (UTF-8), tokens, times' },
  ),
});
export type SlateFileView = Static<typeof SlateFileView>;

/** One slate as of a call. */
export const SlateView = Type.Object({
  title: Type.String(),
  folders: Type.Array(Type.Object({ path: Type.String(), files: Type.Array(SlateFileView) })),
});
export type SlateView = Static<typeof SlateView>;

/** `GET /v1/history/slates`. */
export const SlatesAtCall = Type.Object({
  stream: Type.String(),
  rev: Type.Integer(),
  seq: Type.Union([Type.Integer(), Type.Null()], { description: 'As StreamNode.seq' }),
  head: Type.Integer(),
  origin: Type.Integer(),
  time: Type.Union([Type.String(), Type.Null()]),
  slates: Type.Array(SlateView),
  call: Type.Union([StructuralDiff, Type.Null()], { description: 'What the call changed, or null when the revision before it is not retained' }),
});
export type SlatesAtCall = Static<typeof SlatesAtCall>;
