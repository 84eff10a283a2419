/**
 * Public shapes of the Stateflow event store (DESIGN.md "Store model").
 *
 * This file is the contract that `tools`, `slates`, `server`, `cli`, `conformance` and `bench`
 * code against. Implementation lives beside it.
 */
import type { JsonObject, JsonValue } from '@stateflow/core';
import type { AuditCode } from './audit-code.js';

/**
 * A stream id: `global`, `cwd:<absolute directory>`, `session:<id>`, `slate:<ladder>:<session>`,
 * or any other non-empty id of printable characters (≤ 1,024 bytes UTF-8).
 */
export type StreamId = string;

/** Expected revision for optimistic concurrency (EventStoreDB style). */
export type ExpectedRevision = number | 'none' | 'any';

/** One stream's part of a transition: its new revision and the net patch applied. */
export interface StreamChange {
  stream: StreamId;
  /** The stream's revision after this transition (≥ 1). */
  rev: number;
  /** Net patch: `applyPatch(stateAt(stream, rev - 1), patch)` deep-equals `stateAt(stream, rev)`. */
  patch: JsonObject;
}

/** One accepted publication: the single identity across every stream it changed. */
export interface Transition {
  /** Global sequence number, 1, 2, 3, … */
  seq: number;
  /** Acceptance time, ISO 8601 UTC. */
  time: string;
  /** Client idempotency id, when one was given. */
  id?: string;
  /** Caller metadata (JSON object), stored verbatim. */
  meta?: JsonObject;
  /** Changed streams, in the order given by the caller. */
  changes: StreamChange[];
  /** Hash of the previous transition (64 hex), or 64 zeros for seq 1. */
  prevHash: string;
  /** sha256(prevHash ‖ canonical(body)) as 64 hex; body = every field above except hashes. */
  hash: string;
}

/** Input of {@link Store.publish}. */
export interface PublishInput {
  /** Patch per stream (DESIGN.md "Patches"), each interpreted against the captured basis. */
  changes: Record<StreamId, JsonObject>;
  /** Expected head revision per stream; streams not listed default to `'any'`. */
  expected?: Record<StreamId, ExpectedRevision>;
  /** Idempotency id: a retry with an accepted id returns the original transition. */
  id?: string;
  /** Metadata stored with the transition. */
  meta?: JsonObject;
  /** `'fsync'` waits for the batch to reach disk (LevelDB `sync: true`). */
  durability?: Durability;
}

/** Result of {@link Store.publish}. */
export type PublishResult =
  | { status: 'accepted'; transition: Transition }
  | { status: 'duplicate'; transition: Transition }
  | { status: 'noop'; transition: null };

/** Write durability: `'buffered'` (OS page cache) or `'fsync'` (synced before acknowledging). */
export type Durability = 'buffered' | 'fsync';

/** A stream's head. `rev` 0 means the stream has no accepted change (empty state). */
export interface StreamHead {
  stream: StreamId;
  rev: number;
  /** Global seq of the transition that produced `rev` (0 when rev is 0). */
  seq: number;
  /** Oldest retained revision; reads below fail with HISTORY_NOT_RETAINED. */
  origin: number;
}

/** A consistent view of several streams captured at one moment (one global seq). */
export interface StoreView {
  /** Last global seq visible in this view. */
  seq: number;
  streams: Record<StreamId, { rev: number; state: JsonObject }>;
}

/** Problem found by {@link Store.audit}. */
export interface AuditProblem {
  /** One of {@link AuditCode} (`HASH_MISMATCH`, `CHAIN_BROKEN`, `CHECKPOINT_MISMATCH`, …). */
  code: string;
  stream?: StreamId;
  key?: string;
  detail: string;
}

/** Report of {@link Store.audit}. */
export interface AuditReport {
  transitions: number;
  streams: number;
  checkpoints: number;
  problems: AuditProblem[];
}

/** Options for opening a store. */
export interface StoreOptions {
  /** Revisions between checkpoints per stream (K). Default 64, minimum 1. */
  checkpointInterval?: number;
  /** Default durability for publish. Default `'buffered'`. */
  durability?: Durability;
  /** Reconstructed historical states kept in the LRU cache. Default 256. */
  cacheSize?: number;
  /**
   * Retention applied on publish: after a transition, each changed stream whose retained
   * history exceeds `keepRevisions` is compacted, with its origin moved to the highest
   * checkpoint revision that still keeps at least `keepRevisions` revisions (so retention never
   * writes an extra checkpoint; a stream keeps between `keepRevisions` and
   * `keepRevisions + K − 1` revisions). Best effort: a failure is retried on the next publish.
   */
  retention?: { keepRevisions: number };
  /** Clock for transition times (tests inject one). */
  clock?: () => Date;
}

/** Options of {@link Store.fork}. */
export interface ForkOptions {
  /** Revision of `from` to fork (default: its head). */
  at?: number;
  /**
   * Expected revision of `to` (default `'none'`: `to` must have no revision). With `'any'` or a
   * number, `to` keeps its history and the fork's transition sets its state to `from`@`at`.
   */
  expected?: ExpectedRevision;
  /** Idempotency id of the fork's transition. */
  id?: string;
}

/** Options for a catch-up subscription. */
export interface WatchOptions {
  /** Yield transitions with seq > from. Default: current last seq (live only). */
  from?: number;
  /** Only transitions touching one of these streams. */
  streams?: StreamId[];
  /** Abort to end the iteration. */
  signal?: AbortSignal;
}

/**
 * The event store. Every method may throw STORE_CLOSED after {@link Store.close}.
 * States returned are deeply frozen and structurally shared; never mutate them.
 */
export interface Store {
  /** Directory on disk, or `null` for an in-memory store. */
  readonly location: string | null;
  /** Last accepted global seq (0 for an empty store). */
  lastSeq(): number;
  head(stream: StreamId): Promise<StreamHead>;
  /** Every stream that has at least one revision. */
  streams(): Promise<StreamHead[]>;
  state(stream: StreamId): Promise<JsonObject>;
  /** Capture the current state and revision of several streams consistently. */
  view(streams: StreamId[]): Promise<StoreView>;
  stateAt(stream: StreamId, rev: number): Promise<JsonObject>;
  patchAt(stream: StreamId, rev: number): Promise<JsonObject>;
  /** State of each listed stream as of global transition `seq` (streams with no rev ≤ seq are `{}`). */
  statesAt(streams: StreamId[], seq: number): Promise<Record<StreamId, JsonObject>>;
  /** Overlay (core `overlay`) of `streams` in order low → high priority as of global transition `seq`. */
  effectiveAt(streams: StreamId[], seq: number): Promise<JsonObject>;
  publish(input: PublishInput): Promise<PublishResult>;
  transition(seq: number): Promise<Transition>;
  transitions(range?: { from?: number; to?: number; stream?: StreamId }): AsyncIterable<Transition>;
  diff(stream: StreamId, revA: number, revB: number): Promise<JsonObject>;
  compact(stream: StreamId, options: { keepRevisions: number }): Promise<{ origin: number; deleted: number }>;
  fork(from: StreamId, to: StreamId, options?: ForkOptions): Promise<PublishResult>;
  revert(stream: StreamId, toRev: number): Promise<PublishResult>;
  /** Append an exported transition verbatim (same seq, time and hash) after verifying it. */
  append(transition: Transition): Promise<void>;
  audit(options?: { onProgress?: (done: number, total: number) => void }): Promise<AuditReport>;
  watch(options?: WatchOptions): AsyncIterable<Transition>;
  close(): Promise<void>;
}

export type { JsonObject, JsonValue };
