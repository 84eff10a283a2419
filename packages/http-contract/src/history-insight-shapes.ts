/**
 * The answers of the history page's second set of views (`/v1/history/search`, `…/blame`,
 * `…/lineage`, `…/langgraph-steps`, `…/audit-job`): search through time, blame of a subtree,
 * the lineage of a stream, a LangGraph thread as steps, and the audit run as a background job.
 */
import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { enumOf, jsonObject } from './json-schemas.js';
import { ShownValue } from './history-shapes.js';
import { AuditReport } from './store-shapes.js';

/** Who and when of a transition, as the history page names it. */
const transitionRef = {
  stream: Type.String(),
  rev: Type.Integer({ description: 'The revision of `stream` the transition produced' }),
  seq: Type.Integer(),
  time: Type.String({ format: 'date-time', description: 'When the store accepted the transition' }),
  date: Type.Optional(Type.String({ description: "The transition's meta date (`meta.date`, or `meta.import.date` of an import), when it has one" })),
  writer: Type.Optional(Type.String({ description: 'Who wrote it, when the meta says (`meta.writer`, `meta.user`, `meta.agent` or `meta.author`, the first that is a string)' })),
};

/** One matching value of a search: where it is and what it is. */
export const SearchMatch = Type.Object({
  pointer: Type.String({ description: 'RFC 6901 pointer of the matching value from the state root' }),
  value: ShownValue,
});
export type SearchMatch = Static<typeof SearchMatch>;

/** One revision where a match appeared or disappeared (`GET /v1/history/search`). */
export const SearchHit = Type.Object({
  ...transitionRef,
  appeared: Type.Array(SearchMatch, { description: 'Matches the revision brought (at most 20; `more` counts the rest)' }),
  disappeared: Type.Array(SearchMatch, { description: 'Matches the revision took away, with the value they had (at most 20)' }),
  more: Type.Optional(Type.Integer({ description: 'Matches left out of the two lists' })),
});
export type SearchHit = Static<typeof SearchHit>;

/** `GET /v1/history/search`. */
export const SearchPage = Type.Object({
  hits: Type.Array(SearchHit),
  scanned: Type.Integer({ description: 'Transitions read by this request (at most `scan`)' }),
  next: Type.Union([Type.Integer(), Type.Null()], {
    description: 'The last seq read: pass it as `after` to go on (a page may be empty and still have a next). null when the log (or the stream) was read to its end',
  }),
  lastSeq: Type.Integer({ description: "The store's last seq when the search started" }),
});
export type SearchPage = Static<typeof SearchPage>;

/** Which transition last changed one child (`GET /v1/history/blame`). */
export const BlameEntry = Type.Object({
  label: Type.String({ description: 'Object key, or [i] for an array item' }),
  pointer: Type.String(),
  change: Type.Union([Type.Object(transitionRef), Type.Null()], {
    description: 'The last transition at or below `rev` that changed this child (or anything below it); null when none was found within the scan',
  }),
  atOrBefore: Type.Optional(Type.Integer({ description: 'With change null: the child was last changed at or before this revision (outside the scan, or before the origin)' })),
});
export type BlameEntry = Static<typeof BlameEntry>;

/** `GET /v1/history/blame`. */
export const BlamePage = Type.Object({
  stream: Type.String(),
  rev: Type.Integer(),
  pointer: Type.String(),
  entries: Type.Array(BlameEntry),
  offset: Type.Integer(),
  total: Type.Integer({ description: 'Children the value has' }),
  scanned: Type.Integer({ description: 'Revisions read (the last `scan` up to `rev` at most)' }),
  from: Type.Integer({ description: 'The first revision read: changes before it are not seen' }),
  next: Type.Union([Type.Integer(), Type.Null()], {
    description: 'The work budget ended the page before the scan window did: ask again with `until` = next to read the revisions below it (null: the window was read)',
  }),
});
export type BlamePage = Static<typeof BlamePage>;

/** One fork, merge or revert of a stream's lineage. */
export const LineageEvent = Type.Object({
  kind: enumOf(['fork', 'merge', 'revert']),
  ...transitionRef,
  from: Type.Optional(
    Type.Object({ stream: Type.String(), rev: Type.Integer() }, { description: 'fork and merge: the source and the revision of it taken in' }),
  ),
  base: Type.Optional(Type.Object({ stream: Type.String(), rev: Type.Integer() }, { description: 'merge: the merge base' })),
  to: Type.Optional(Type.Integer({ description: 'revert: the revision whose state was restored' })),
});
export type LineageEvent = Static<typeof LineageEvent>;

/** One stream of a lineage graph. */
export const LineageStream = Type.Object({
  stream: Type.String(),
  head: Type.Integer(),
  origin: Type.Integer(),
  relation: enumOf(['self', 'ancestor', 'descendant'], { description: 'The stream asked for, one it took in (a fork or merge source, recursively), or one forked from it' }),
});
export type LineageStream = Static<typeof LineageStream>;

/** `GET /v1/history/lineage`. */
export const LineageGraph = Type.Object({
  stream: Type.String(),
  streams: Type.Array(LineageStream),
  events: Type.Array(LineageEvent, { description: 'Oldest first (by seq)' }),
  truncated: Type.Boolean({ description: 'True when a scan bound was reached: older records, or further streams, may be missing' }),
});
export type LineageGraph = Static<typeof LineageGraph>;

/** A pending write of a LangGraph step, decoded. */
export const StepWrite = Type.Object({
  task_id: Type.String(),
  channel: Type.String(),
  value: Type.Unknown({ description: 'The written value as LangGraph shows it (a message as its fields with its type; null where LangGraph has one)' }),
  node: Type.Optional(Type.String({ description: 'The node whose task wrote it (from the task path of a pull task)' })),
});
export type StepWrite = Static<typeof StepWrite>;

/** One checkpoint of a LangGraph thread (`GET /v1/history/langgraph-steps`). */
export const LangGraphStep = Type.Object({
  ...transitionRef,
  checkpoint_id: Type.String(),
  parent_checkpoint_id: Type.Optional(Type.String()),
  ts: Type.String({ description: "The checkpoint's own time (LangGraph's ts)" }),
  step: Type.Union([Type.Integer(), Type.Null()], { description: 'metadata.step: -1 for the input, 0, 1, … for the loop; null when the metadata has none' }),
  source: Type.Union([Type.String(), Type.Null()], { description: 'metadata.source: input, loop, update or fork' }),
  channel_values: Type.Unsafe<Record<string, unknown>>({ type: 'object', description: 'Every channel value of the checkpoint, decoded' }),
  changed: Type.Array(Type.String(), { description: 'The channels whose value differs from the revision before' }),
  messages: Type.Array(Type.Unknown(), { description: 'The messages channel (`messages`) as LangGraph shows it; empty when there is none' }),
  pending_writes: Type.Array(StepWrite, { description: 'Writes stored against the checkpoint (what its tasks wrote), with their task' }),
  revs: Type.Integer({ description: "Revisions of the stream that describe this checkpoint (its put, and each batch of writes); the step shows the last one's writes" }),
});
export type LangGraphStep = Static<typeof LangGraphStep>;

/** `GET /v1/history/langgraph-steps`. */
export const LangGraphSteps = Type.Object({
  stream: Type.String(),
  thread_id: Type.Union([Type.String(), Type.Null()]),
  steps: Type.Array(LangGraphStep),
  next: Type.Union([Type.Integer(), Type.Null()], { description: 'First revision of the next page (pass as `from`), or null' }),
});
export type LangGraphSteps = Static<typeof LangGraphSteps>;

/** The audit as a background job (`/v1/history/audit-job`). */
export const AuditJob = Type.Object({
  id: Type.String({ description: 'The job id (one per run)' }),
  state: enumOf(['running', 'done', 'cancelled', 'failed']),
  startedAt: Type.String({ format: 'date-time' }),
  endedAt: Type.Optional(Type.String({ format: 'date-time' })),
  done: Type.Integer({ description: 'Log records verified so far' }),
  total: Type.Integer({ description: 'Log records to verify' }),
  report: Type.Optional(Type.Object(AuditReport.properties, { description: 'state done: the report' })),
  findings: Type.Optional(
    Type.Array(
      Type.Object({
        code: Type.String(),
        stream: Type.Optional(Type.String()),
        key: Type.Optional(Type.String()),
        detail: Type.String(),
        seq: Type.Optional(Type.Integer({ description: 'The transition the finding is about, when its key names one (L/<seq>, S/<stream>/<seq>)' })),
        rev: Type.Optional(Type.Integer({ description: 'The revision of `stream` the finding is about, when its key names one (R/…, C/…)' })),
      }),
      { description: 'state done: the problems, each with the transition it names' },
    ),
  ),
  error: Type.Optional(jsonObject({ description: 'state failed: the error body' })),
});
export type AuditJob = Static<typeof AuditJob>;
