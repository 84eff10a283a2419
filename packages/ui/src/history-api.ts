/**
 * The JSON shapes of the history endpoints (`/v1/history/…`), the contract between the server
 * that answers them (`@stateflow/server`, which documents them in its OpenAPI document) and the
 * page that reads them. Types only: the server imports them from this package, the page from
 * this file, so both sides compile against one definition.
 */
import type { JsonObject, JsonValue } from '@stateflow/core';
import type { StreamHead } from '@stateflow/store';

/** Stream kinds of the streams rail, by id prefix (`cwd:/x` → `cwd`; unknown prefixes → `other`). */
export type StreamKind = 'global' | 'cwd' | 'session' | 'slate' | 'ladder-session' | 'other';

/** The scopes of the effective overlay, low → high priority. */
export type Scope = 'global' | 'cwd' | 'session';

/** One row of the rail (`GET /v1/history/streams`). */
export interface StreamRow extends StreamHead {
  kind: StreamKind;
  /** Time of the transition that produced the head (ISO 8601). */
  time: string;
}

/** One page of the rail (`GET /v1/history/streams`). */
export interface StreamPage {
  /** The store's last seq when the page was read. */
  lastSeq: number;
  streams: StreamRow[];
  /** Streams per kind after the filter (every kind listed, zeros included). */
  counts: Record<StreamKind, number>;
  /** Pass as `after` for the next page; `null` on the last page. */
  next: string | null;
}

/** One bucket: `[start, end)` in wall time, seqs `fromSeq … toSeq` (inclusive; empty when toSeq < fromSeq). */
export interface HistogramBucket {
  start: string;
  end: string;
  fromSeq: number;
  toSeq: number;
  /** Transitions in the bucket (of the stream, when one was given). */
  count: number;
}

/** `GET /v1/history/histogram`. */
export interface Histogram {
  lastSeq: number;
  /** First retained seq (1 unless compaction pruned the oldest transitions). */
  firstSeq: number;
  stream: string | null;
  /** `time`: equal wall-time buckets; `seq`: equal seq ranges (start/end are their first and last transition's times). */
  axis: 'time' | 'seq';
  buckets: HistogramBucket[];
}

/** What a row shows of a value: its kind, its size, and scalars (strings cut at 200 UTF-16 units). */
export interface ValueSummary {
  kind: 'object' | 'array' | 'string' | 'number' | 'boolean' | 'null';
  /** Immediate key count of an object. */
  size?: number;
  /** Item count of an array, UTF-16 length of a string. */
  length?: number;
  /** The value of a scalar (a string cut at 200 UTF-16 units). */
  preview?: string | number | boolean;
  /** True when `preview` is a cut string. */
  truncated?: boolean;
}

/** A value as the page shows it: absent, whole when small (≤ 4,096 characters of JSON), else summarised. */
export type ShownValue = { absent: true } | { value: JsonValue } | { summary: ValueSummary };

/** One child of a tree level. */
export interface NodeChild extends ValueSummary {
  /** Object key, or `[i]` for an array item. */
  label: string;
  /** RFC 6901 pointer of the child from the stream state's root. */
  pointer: string;
  /** True when the transition looked at changed this child (or something below it). */
  changed: boolean;
  /** `read_state` path, or `null` where none exists (a key outside the path grammar). */
  path: string | null;
  /** Effective view: the highest scope holding a value here. */
  scope?: Scope;
  /** Effective view: the lower scopes' values this one hides (an object merges instead). */
  shadows?: Array<ValueSummary & { scope: Scope }>;
  /** Effective view: every scope whose object is merged into this one, low → high (two or more). */
  merges?: Scope[];
}

/** One page of one level of a state tree. */
export interface NodePage extends ValueSummary {
  pointer: string;
  /** True when the transition looked at changed this value; `null` when that is not known (history before the origin). */
  changed: boolean | null;
  children: NodeChild[];
  /** Index of the first child sent, and how many the value has. */
  offset: number;
  total: number;
}

/** `GET /v1/history/node`. */
export interface StreamNode extends NodePage {
  stream: string;
  streamKind: StreamKind;
  rev: number;
  /** Seq of the transition that produced `rev`; `null` for revision 0 and at or below the origin (that transition may be pruned). */
  seq: number | null;
  head: number;
  headSeq: number;
  origin: number;
  /** `read_state` path of the value, or `null`. */
  path: string | null;
  /** The CLI command that shows the value. */
  cli: string;
}

/** `GET /v1/history/effective-node`. */
export interface EffectiveNode extends NodePage {
  seq: number;
  lastSeq: number;
  streams: string[];
  path: string | null;
  cli: string | null;
}

/** One revision of a stream (`GET /v1/history/revisions`). */
export interface RevisionRow {
  rev: number;
  seq: number;
  time: string;
  id?: string;
  meta?: JsonObject;
  /** Streams the transition changed. */
  streams: number;
}

/** `GET /v1/history/revisions`. */
export interface RevisionPage {
  stream: string;
  head: number;
  origin: number;
  revisions: RevisionRow[];
  /** First revision of the next page, or `null`. */
  next: number | null;
}

/** One change of a path (`GET /v1/history/path-history`). */
export interface PathChange {
  rev: number;
  seq: number;
  time: string;
  /** `added` (absent before), `removed` (absent after) or `changed`. */
  change: 'added' | 'removed' | 'changed';
  before: ShownValue;
  after: ShownValue;
}

/** `GET /v1/history/path-history`. */
export interface PathHistoryPage {
  stream: string;
  pointer: string;
  changes: PathChange[];
  /** Last revision read; pass as `after` for the next page. `null` when the head was reached. */
  next: number | null;
  /** The first revision that could be read (origin + 1): earlier changes were compacted away. */
  firstRev: number;
}

/** One row of a structural diff. */
export interface DiffEntry {
  pointer: string;
  /** Depth below the root (the root's children are 1). */
  depth: number;
  /** Key, or `[i]`. */
  label: string;
  change: 'added' | 'removed' | 'changed';
  /** A changed object or array whose children follow; `unchanged` counts the collapsed ones. */
  container?: { unchanged: number };
  /** The value before (absent for `added` and containers). */
  before?: ShownValue;
  /** The value after (absent for `removed` and containers). */
  after?: ShownValue;
}

/** A structural diff, bounded to a number of entries. */
export interface StructuralDiff {
  entries: DiffEntry[];
  counts: { added: number; removed: number; changed: number };
  truncated: boolean;
}

/** `GET /v1/history/diff`. */
export interface DiffResult extends StructuralDiff {
  /** The patch from A to B (core `diff`). */
  patch: JsonObject;
  /** The stored net patch when B = A + 1 of one stream (or the diff of consecutive effective seqs). */
  storedPatch: JsonObject | null;
  cli: string;
}

/** One file of a slate as of a call. */
export interface SlateFileView {
  name: string;
  /** Contents (cut at 20,000 UTF-16 units). */
  contents: string;
  truncated: boolean;
  metatags: JsonObject;
  /** System metatags: size in bytes (UTF-8), tokens, times. */
  system: { size: number; tokens: number; created: string; modified: string; lastRead?: string };
}

/** One slate as of a call. */
export interface SlateView {
  title: string;
  folders: Array<{ path: string; files: SlateFileView[] }>;
}

/** `GET /v1/history/slates`. */
export interface SlatesAtCall {
  stream: string;
  rev: number;
  /** As {@link StreamNode}.seq. */
  seq: number | null;
  head: number;
  origin: number;
  time: string | null;
  slates: SlateView[];
  /** What the call changed, or `null` when the revision before it is not retained. */
  call: StructuralDiff | null;
}
