/**
 * Shapes the page reads: the answers of the server's routes as its HTTP contract declares them
 * (`@stateflow/http-contract`; types only — the page loads none of its schemas), and the page's
 * own selection.
 */
import type { ShownTransition as Transition } from '@stateflow/http-contract';

export type { JsonObject, JsonValue } from '@stateflow/core';
export type {
  AuditJob,
  BlameEntry,
  BlamePage,
  LangGraphStep,
  LangGraphSteps,
  LineageEvent,
  LineageGraph,
  LineageStream,
  SearchHit,
  SearchPage,
  StepWrite,
  DiffEntry,
  DiffResult,
  EffectiveNode,
  Histogram,
  HistogramBucket,
  MergeConflict,
  MergeResult,
  NodeChild,
  NodePage,
  PathChange,
  PathHistoryPage,
  PublishResult,
  RevisionPage,
  RevisionRow,
  Scope,
  ShownValue,
  SlateFileView,
  SlatesAtCall,
  SlateView,
  StreamChange,
  StreamKind,
  StreamNode,
  StreamPage,
  StreamRow,
  StructuralDiff,
  UndoConflict,
  UndoResult,
  ValueSummary,
  WriterMatch,
} from '@stateflow/http-contract';
/** A transition as the page reads it (the log, the watch stream): its hashes absent when some changes are hidden. */
export type { Transition };

/** A transition (`GET /v1/store/transitions/{seq}`) with its hash link checked by the page. */
export interface InspectedTransition extends Omit<Transition, 'prevHash' | 'hash'> {
  /** The hash chain link; `null` when changes were left out (the hashed body is not all shown). */
  link: { prevHash: string; hash: string; previous: string | null; verified: boolean | null } | null;
}

/** What the page is looking at: one stream, or the effective overlay of a selection. */
export type Selection = { type: 'stream'; stream: string } | { type: 'effective'; global: boolean; cwd: string; session: string };
