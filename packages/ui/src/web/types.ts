/**
 * Shapes the page reads from the server's history endpoints (`/v1/history/…`, documented in the
 * server's OpenAPI document) and the watch stream.
 */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

export type StreamKind = 'global' | 'cwd' | 'session' | 'slate' | 'ladder-session' | 'other';
export type Scope = 'global' | 'cwd' | 'session';

export interface StreamRow {
  stream: string;
  kind: StreamKind;
  rev: number;
  seq: number;
  origin: number;
  time: string;
}

export interface StreamPage {
  lastSeq: number;
  streams: StreamRow[];
  counts: Record<StreamKind, number>;
  next: string | null;
}

export interface HistogramBucket {
  start: string;
  end: string;
  fromSeq: number;
  toSeq: number;
  count: number;
}

export interface Histogram {
  lastSeq: number;
  firstSeq: number;
  stream: string | null;
  buckets: HistogramBucket[];
}

export interface ValueSummary {
  kind: 'object' | 'array' | 'string' | 'number' | 'boolean' | 'null';
  size?: number;
  length?: number;
  preview?: string | number | boolean;
  truncated?: boolean;
}

export interface NodeChild extends ValueSummary {
  label: string;
  pointer: string;
  changed: boolean;
  path: string | null;
  scope?: Scope;
  shadows?: Array<ValueSummary & { scope: Scope }>;
  merges?: Scope[];
}

export interface NodePage extends ValueSummary {
  pointer: string;
  changed: boolean | null;
  children: NodeChild[];
  offset: number;
  total: number;
  path: string | null;
  cli: string | null;
}

/** `GET /v1/history/node`. */
export interface StreamNode extends NodePage {
  stream: string;
  streamKind: StreamKind;
  rev: number;
  seq: number;
  head: number;
  headSeq: number;
  origin: number;
}

/** `GET /v1/history/effective-node`. */
export interface EffectiveNode extends NodePage {
  seq: number;
  lastSeq: number;
  streams: string[];
}

export interface StreamChange {
  stream: string;
  rev: number;
  patch: JsonObject;
}

export interface Transition {
  seq: number;
  time: string;
  id?: string;
  meta?: JsonObject;
  changes: StreamChange[];
  prevHash: string;
  hash: string;
}

/** A transition (`GET /v1/store/transitions/{seq}`) with its hash link checked by the page. */
export interface InspectedTransition extends Omit<Transition, 'prevHash' | 'hash'> {
  /** The hash chain link; `null` when changes were left out (the hashed body is not all shown). */
  link: { prevHash: string; hash: string; previous: string | null; verified: boolean | null } | null;
}

export interface RevisionRow {
  rev: number;
  seq: number;
  time: string;
  id?: string;
  meta?: JsonObject;
  streams: number;
}

export interface RevisionPage {
  stream: string;
  head: number;
  origin: number;
  revisions: RevisionRow[];
  next: number | null;
}

export type ShownValue = { absent: true } | { value: JsonValue } | { summary: ValueSummary };

export interface PathChange {
  rev: number;
  seq: number;
  time: string;
  change: 'added' | 'removed' | 'changed';
  before: ShownValue;
  after: ShownValue;
}

export interface PathHistoryPage {
  stream: string;
  pointer: string;
  changes: PathChange[];
  next: number | null;
  firstRev: number;
}

export interface DiffEntry {
  pointer: string;
  depth: number;
  label: string;
  change: 'added' | 'removed' | 'changed';
  container?: { unchanged: number };
  before?: JsonValue | { summary: ValueSummary };
  after?: JsonValue | { summary: ValueSummary };
}

export interface DiffResult {
  entries: DiffEntry[];
  counts: { added: number; removed: number; changed: number };
  truncated: boolean;
  patch: JsonObject;
  storedPatch: JsonObject | null;
  cli: string;
}

export interface SlateFileView {
  name: string;
  contents: string;
  truncated: boolean;
  metatags: JsonObject;
  system: { size: number; tokens: number; created: string; modified: string; lastRead?: string };
}

export interface SlatesAtCall {
  stream: string;
  rev: number;
  seq: number;
  head: number;
  origin: number;
  time: string | null;
  slates: Array<{ title: string; folders: Array<{ path: string; files: SlateFileView[] }> }>;
  call: { entries: DiffEntry[]; counts: DiffResult['counts']; truncated: boolean } | null;
}

/** `POST /v1/store/publish` and `/v1/store/fork`. */
export interface PublishResult {
  status: 'accepted' | 'duplicate' | 'noop';
  transition: Transition | null;
}

/** What the page is looking at: one stream, or the effective overlay of a selection. */
export type Selection = { type: 'stream'; stream: string } | { type: 'effective'; global: boolean; cwd: string; session: string };
