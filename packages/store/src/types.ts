/**
 * Public shapes of the Stateflow event store (DESIGN.md "Store model").
 *
 * This file is the contract that `tools`, `slates`, `server`, `cli`, `conformance` and `bench`
 * code against. Implementation lives beside it.
 */
import type { JsonObject, JsonValue, MergeConflict, MergeResolution, PatchPathStep, WriterMatch } from '@stateflow/core';
import type { AuditCode } from './audit-code.js';
import type { StoreObserver } from './store-observer.js';
import type { PoolUse } from './storage.js';

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
  /**
   * Whose idempotency id `id` is (README "Idempotency ids"): ids of two principals never meet, so a
   * retry answers `duplicate` only with its own principal's transition. Absent: the store's owner,
   * whose ids are the unscoped ones every store before principals kept. The server sets it from
   * the caller's credentials. Non-empty, no control characters, ≤ 1,024 bytes UTF-8.
   */
  principal?: string;
  /** Metadata stored with the transition. */
  meta?: JsonObject;
  /** `'fsync'` waits for the batch to reach disk (LevelDB `sync: true`). */
  durability?: Durability;
}

/**
 * What compaction keeps of a transition no retained revision needs (README "Compaction"): its
 * seq, its idempotency id, which revision of which stream it produced, and its chain link. The
 * body (time, meta, patches) is gone.
 */
export interface PrunedTransition {
  pruned: true;
  seq: number;
  /** Its idempotency id, when it was accepted with one (a retry still answers `duplicate`). */
  id?: string;
  changes: { stream: StreamId; rev: number }[];
  prevHash: string;
  hash: string;
}

/**
 * What {@link Store.transitionOutlines} tells of a retained transition: its seq and time and, per
 * change, the stream, the revision and the UTF-8 bytes of the net patch as JSON — without the patches.
 */
export interface TransitionOutline {
  seq: number;
  /** Acceptance time, ISO 8601. */
  time: string;
  changes: { stream: StreamId; rev: number; bytes: number }[];
}

/** Options of {@link Store.publishMany}. */
export interface PublishManyOptions {
  /**
   * Wall-clock time the batch's staging may take, in ms (a non-negative integer; default: no
   * budget). Past it the batch is refused whole before anything is written — `INPUT_INVALID`
   * `{ field: 'inputs', reason: 'over-budget' }` — so one request cannot hold the writer for
   * seconds. Whatever the budget, a batch yields to the event loop every ~10 ms of staging. The
   * server sets its `workBudgetMs`; over HTTP (`openRemoteStore`) the server's budget applies.
   */
  budgetMs?: number;
}

/**
 * Result of {@link Store.publish}. A `duplicate` carries the transition first accepted with the
 * id — or, once compaction pruned it, its {@link PrunedTransition} stub.
 */
export type PublishResult =
  | { status: 'accepted'; transition: Transition }
  | { status: 'duplicate'; transition: Transition | PrunedTransition }
  | { status: 'noop'; transition: null };

/**
 * Something an open found that a person should know, though the store opened (README
 * "Durability contract"). `BUFFERED_TRANSITIONS_LOST`: after an OS crash or power loss, the
 * unsynced tail of the write-ahead log was damaged with no synced transition after it, so it was
 * dropped (its bytes kept in `keptIn`): transitions from `fromSeq` on that were acknowledged
 * with `buffered` durability are lost (`throughSeq`: the last one the dropped bytes still name;
 * `null` when none verifies, and then only those there were, if any). Also when the store was
 * not closed before the reboot and nothing is damaged: then buffered transitions from `fromSeq`
 * on *may* have been lost without a trace (`throughSeq` `null`, `file` `''`, `offset` 0,
 * `keptIn` empty). The CLI and `stateflow serve` print it.
 */
export interface StoreNotice {
  code: 'BUFFERED_TRANSITIONS_LOST';
  message: string;
  details: { fromSeq: number; throughSeq: number | null; file: string; offset: number; keptIn: string[] };
}

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
  /**
   * Told of every publish, storage commit and read (README "Observing a store"); default none.
   * @throws INPUT_INVALID `{ field: 'observer' }` at open when a hook is not a function.
   */
  observer?: StoreObserver;
  /**
   * Create the store when its storage holds none (default `true`). With `false`, opening
   * (`openStoreOver`, and every backend's opener) opens only an existing Stateflow store:
   * storage with no format record and no data fails with `NOT_FOUND` and nothing is created or
   * written (`openStore(dir)` of `@stateflow/store-leveldb`: also a directory without LevelDB's
   * `CURRENT` file, checked before LevelDB writes its `LOCK`/`LOG` files). `openMemoryStore`
   * ignores it (a memory store is always new).
   */
  createIfMissing?: boolean;
  /**
   * Automatic savepoints (README "Tags"): when a writer (`meta.writer`, its one-line label)
   * publishes after at least `idleMs` milliseconds without a transition of its own — or for the
   * first time since the store was opened — the store tags the seq before that transition
   * `savepoint.<writer>` (moved on each new burst), in a transition of its own right after it.
   * Default: off. `idleMs` an integer ≥ 1.
   */
  savepoints?: { idleMs: number };
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
  /** Whose id `id` is ({@link PublishInput.principal}). */
  principal?: string;
}

/** A revision of a stream: where two streams' histories meet (README "Merge"). */
export interface MergeBase {
  stream: StreamId;
  rev: number;
}

/** Input of {@link Store.merge}. */
export interface MergeInput {
  /** The stream whose changes are brought in ("theirs"). */
  from: StreamId;
  /** The stream that receives them ("ours"): the one stream the merge's transition changes. */
  into: StreamId;
  /** Revision of `from` to merge (default: its head), so a preview and its publish merge the same thing. */
  fromRev?: number;
  /** Expected revision of `into` (default `'any'`): the head a preview showed. */
  expected?: ExpectedRevision;
  /** How to settle conflicts, per conflict path (RFC 6901): `'ours'`, `'theirs'` or `{ value }` (`{ value: null }` deletes). */
  resolve?: Record<string, MergeResolution>;
  /** The side taken at every conflict `resolve` does not name. Default: none (open conflicts refuse the merge). */
  prefer?: 'ours' | 'theirs';
  /** Compute and answer the merge (`status: 'preview'`), open conflicts included, without publishing. Default `false`. */
  dryRun?: boolean;
  /** Idempotency id of the merge's transition. */
  id?: string;
  /** Whose id `id` is ({@link PublishInput.principal}). */
  principal?: string;
  /** Metadata stored with the transition beside `merge` (which it may not hold, nor `fork`). */
  meta?: JsonObject;
}

/** What a merge computed: its two sides, their base, the patch of `into` and the conflicts. */
export interface MergePlan {
  from: StreamId;
  /** The revision of `from` merged. */
  fromRev: number;
  into: StreamId;
  /** The revision of `into` the merge read (the transition's basis). */
  intoRev: number;
  /** The merge base: the nearest revision both `from`@`fromRev` and `into`@`intoRev` descend from. */
  base: MergeBase;
  /**
   * The net patch on `into`: what the transition publishes (accepted), would publish (preview; with
   * open conflicts, only the changes that do not meet one), or `{}` (noop).
   */
  patch: JsonObject;
  /** Every conflict (core `MergeConflict`, `null` = absent), the settled ones with their `resolution`. */
  conflicts: MergeConflict[];
}

/**
 * Result of {@link Store.merge}: `accepted` (one transition on `into`), `noop` (`into` already
 * holds everything; nothing recorded), `preview` (a dry run; nothing recorded) — each with the
 * {@link MergePlan} — or `duplicate`: an id already accepted, with that transition (or its pruned stub).
 */
export type MergeResult =
  | (MergePlan & { status: 'accepted'; transition: Transition })
  | (MergePlan & { status: 'noop' | 'preview'; transition: null })
  | { status: 'duplicate'; transition: Transition | PrunedTransition };

/**
 * Where an undo starts (README "Undo"): after global seq `N` (a number or `{ seq }`), at the
 * first transition whose time is at or after `time` (ISO 8601), or after the seq a tag names.
 */
export type UndoSince = number | { seq: number } | { time: string } | { tag: string };

/** Input of {@link Store.undo}. */
export interface UndoInput {
  /** Whose transitions to undo: every field named must match `meta.writer` (core `WriterMatch`). */
  writer: WriterMatch;
  /** Undo the matching transitions after this point. */
  since: UndoSince;
  /** Only these streams (default: every stream a matching transition changed; declaration streams never). */
  streams?: StreamId[];
  /** Expected head revision per stream (the `heads` a preview answered): else `CONFLICT`. */
  expected?: Record<StreamId, ExpectedRevision>;
  /**
   * How to settle conflicts, per stream and RFC 6901 path: `'ours'` keeps the state as it is
   * (the later writes), `'theirs'` takes the state without the undone transitions, `{ value }`
   * (`{ value: null }` deletes).
   */
  resolve?: Record<StreamId, Record<string, MergeResolution>>;
  /** The side taken at every conflict `resolve` does not name. Default: none (open conflicts refuse the undo). */
  prefer?: 'ours' | 'theirs';
  /** Compute and answer the undo (`status: 'preview'`), open conflicts included, without publishing. Default `false`. */
  dryRun?: boolean;
  /** Idempotency id of the undo's transition. */
  id?: string;
  /** Whose id `id` is ({@link PublishInput.principal}). */
  principal?: string;
  /** Metadata stored with the transition beside `undo` (which it may not hold). */
  meta?: JsonObject;
}

/** A conflict of an undo: core's `MergeConflict` (`base`: with the undone changes, `ours`: now, `theirs`: without them) and its stream. */
export interface UndoConflict extends MergeConflict {
  stream: StreamId;
}

/** What an undo computed. */
export interface UndoPlan {
  writer: WriterMatch;
  /** The seq after which transitions were undone (`since` resolved). */
  since: number;
  /** The last seq the undo read: matching transitions after it are not undone. */
  through: number;
  /** The seqs of the transitions undone (matching, in range, changing a stream in scope), ascending. */
  undone: number[];
  /** The head revision of each stream in scope as read (pass as `expected` to publish what a preview showed). */
  heads: Record<StreamId, number>;
  /** The net patch per stream: what the transition publishes (accepted), would publish (preview; with open conflicts, only what meets none), `{}` for an unchanged stream. */
  patches: Record<StreamId, JsonObject>;
  /** Every conflict, the settled ones with their `resolution`. */
  conflicts: UndoConflict[];
}

/**
 * Result of {@link Store.undo}: `accepted` (one transition), `noop` (nothing to undo, or
 * everything settled `'ours'`), `preview` — each with the {@link UndoPlan} — or `duplicate`.
 */
export type UndoResult =
  | (UndoPlan & { status: 'accepted'; transition: Transition })
  | (UndoPlan & { status: 'noop' | 'preview'; transition: null })
  | { status: 'duplicate'; transition: Transition | PrunedTransition };

/**
 * The shape a read returns (README "Shapes"): `'stored'` (default: the state as written),
 * `'current'` (upcast to the latest version of the stream's shape) or a version number ≥ 1.
 * Reads in a shape throw as `stateAtShape`: `SHAPE_NOT_FOUND`, `SHAPE_UPCAST_FAILED`.
 */
export interface ShapeReadOptions {
  shape?: ShapeSelector;
}

/** Which shape a read returns: the state as written, upcast to the latest version, or to version N (≥ 1). */
export type ShapeSelector = 'stored' | 'current' | number;

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
 * The event store (DESIGN.md "Store model"). Every method may throw `STORE_CLOSED` after
 * {@link Store.close}; every method naming a stream throws `STREAM_INVALID` for a bad id; a stream
 * whose stored records fail verification throws `STORE_CORRUPT` `{ stream, key, detail }` (fail
 * closed; nothing is rewritten; other streams stay usable). States returned are deeply frozen
 * and structurally shared; never mutate them. Revisions and seqs are non-negative integers
 * (`INPUT_INVALID` otherwise).
 */
export interface Store {
  /** Directory on disk, or `null` for an in-memory store. */
  readonly location: string | null;
  /** What opening this store found and repaired ({@link StoreNotice}); empty on most opens. */
  readonly notices: readonly StoreNotice[];
  /**
   * The use of the storage's connection pools now (PostgreSQL's; `[]` for a backend without
   * any). Optional: a store over HTTP has none to report. Synchronous, from memory.
   */
  connections?(): readonly PoolUse[];
  /** Last accepted global seq (0 for an empty store). Synchronous, from memory. */
  lastSeq(): number;
  /** A stream's head; a stream with no revision gives `{ rev: 0, seq: 0, origin: 0 }`. */
  head(stream: StreamId): Promise<StreamHead>;
  /** Every stream that has at least one revision, sorted by id. */
  streams(): Promise<StreamHead[]>;
  /** Current state (from memory; loaded from the latest checkpoint + tail on first use). `{}` for rev 0. */
  state(stream: StreamId): Promise<JsonObject>;
  /** Capture the current state and revision of several streams consistently (one seq). */
  view(streams: StreamId[]): Promise<StoreView>;
  /**
   * State of `stream` at revision `rev`: nearest checkpoint ≤ rev, then at most K−1 stored net
   * patches (an LRU keeps recent results).
   * With `options.shape` other than `'stored'` the state is upcast ({@link ShapeReadOptions}).
   * @throws `REVISION_NOT_FOUND` `{ stream, rev, head }` when rev > head; `HISTORY_NOT_RETAINED`
   *   `{ stream, rev, origin }` when rev < origin.
   */
  stateAt(stream: StreamId, rev: number, options?: ShapeReadOptions): Promise<JsonObject>;
  /**
   * The value at `path` of `stream`'s state at revision `rev`, or `undefined` where the path does
   * not resolve (a missing member, an index past the end, a step into a value of another kind).
   * It costs the path, not the state: at the head it is read from the current state tree, else
   * from the nearest checkpoint plus the tail replayed into a tree, building only the value found
   * (README "Historical reads"). The value is plain and deeply frozen, as `stateAt`'s.
   * @param path key and index steps (`{ kind: 'key', key }`, `{ kind: 'index', index }`; core's
   *   `PatchPathStep`; other fields such as `column` are ignored); `[]` is the whole state.
   * @throws as {@link Store.stateAt}; `INPUT_INVALID` `{ field: 'path' }` for a path that is not an
   *   array of such steps.
   */
  valueAt(stream: StreamId, rev: number, path: readonly PatchPathStep[]): Promise<JsonValue | undefined>;
  /**
   * The net patch that produced revision `rev` (≥ 1): `applyPatch(stateAt(rev − 1), patch)`
   * deep-equals `stateAt(rev)`.
   * @throws `REVISION_NOT_FOUND` when rev is 0 or > head; `HISTORY_NOT_RETAINED` when rev − 1 < origin.
   */
  patchAt(stream: StreamId, rev: number): Promise<JsonObject>;
  /**
   * The global seq of the transition that produced revision `rev` (≥ 1) of `stream`: one point
   * read of the revision index (the history page moves its cursor to a revision with it).
   * @throws `REVISION_NOT_FOUND` when rev is 0 or > head; `HISTORY_NOT_RETAINED` when rev < origin.
   */
  revisionSeq(stream: StreamId, rev: number): Promise<number>;
  /**
   * State of each listed stream as of global transition `seq` (streams with no rev ≤ seq are
   * `{}`), through the per-stream seq index.
   * @throws `TRANSITION_NOT_FOUND` `{ seq, lastSeq }` when seq > lastSeq; `HISTORY_NOT_RETAINED`
   *   when a stream's revision at seq is below its origin.
   */
  statesAt(streams: StreamId[], seq: number): Promise<Record<StreamId, JsonObject>>;
  /**
   * Overlay (core `overlay`) of `streams` in order low → high priority as of global transition
   * `seq`. Throws as {@link Store.statesAt}.
   */
  effectiveAt(streams: StreamId[], seq: number): Promise<JsonObject>;
  /**
   * Publish one transition, atomically (log entry, revision and seq index entries, heads, due
   * checkpoints, idempotency record). Group commit: publishes that arrive while a batch is
   * being written are staged in call order, each checked as if they ran one after another, and
   * the accepted ones are written together in one LevelDB batch (synced if any asked for
   * `fsync`); each resolves only after that batch was written. Order of checks: idempotency id (→ `duplicate`, nothing written), expected revisions,
   * every patch validated against the captured basis, net patches (unchanged streams get no
   * revision; no change at all → `noop`, nothing written).
   * @throws `CONFLICT` `{ stream, expected, actual }`; `PATCH_INVALID` (core details, or
   *   `reason: 'invalid-state'` when the result would be an invalid state, e.g. a non-object
   *   `lazy` plane in a scope stream; `reason: 'not-json'` for any non-JSON value or a lone
   *   surrogate in a patch); `INPUT_INVALID` for a malformed input (empty `changes`, bad `id`,
   *   `expected`, `durability`, a `meta` that is not plain JSON: cycles, BigInt, functions,
   *   symbols, class instances, NaN/±Infinity, holes, `undefined`, lone surrogates); `STORE_CORRUPT` when a changed stream fails to load or
   *   the chain tip does not verify, and `STORE_CORRUPT { key: 'I/<id>' }` when the id's record
   *   points at a transition that does not carry the id (a duplicate answer never hands out
   *   another request's transition). A failed publish writes nothing.
   */
  publish(input: PublishInput): Promise<PublishResult>;
  /**
   * Publish several inputs at once, all or nothing: each is staged as its own transition (its own
   * seq and hash, checked as if the inputs were published one after another, each against the
   * state the ones before it leave), and the transitions are written in one atomic batch — synced
   * if any input asks for `fsync`. The results are in input order (`accepted`, `duplicate` for an
   * id accepted before or earlier in the list, `noop`). The bulk path (import): one storage write
   * for the group instead of one per transition.
   * @throws what {@link Store.publish} throws for the first input that fails, with `Input N of M:`
   *   before its message; then nothing is published. `INPUT_INVALID` when `inputs` is not a
   *   non-empty array.
   */
  publishMany(inputs: PublishInput[], options?: PublishManyOptions): Promise<PublishResult[]>;
  /**
   * One transition by global seq.
   * @throws `TRANSITION_NOT_FOUND` for 0 or seq > lastSeq; `HISTORY_NOT_RETAINED` when compaction
   *   pruned it.
   */
  transition(seq: number): Promise<Transition>;
  /**
   * Retained transitions with `from ≤ seq ≤ to` (both inclusive; defaults 1 and the last seq at
   * the call), in seq order; with `stream`, only those that changed it. Pruned transitions are
   * skipped. Each one's hash is verified as it is read.
   * @throws StateflowError `STORE_CORRUPT { key, detail }` when a log record in the range is
   *   missing (every seq up to the last one keeps a record or a pruned stub), or when a
   *   stream's seq index names a missing record: a lost transition is never skipped silently.
   */
  transitions(range?: { from?: number; to?: number; stream?: StreamId } & ShapeReadOptions): AsyncIterable<Transition>;
  /**
   * The outlines of the retained transitions with `from ≤ seq ≤ to` (both inclusive), in seq
   * order: what {@link Store.transitions} yields without the patches, read without decoding them
   * (each record checked against its seal; the audit ties it to the chain). Optional: `retain`
   * reads {@link Store.transitions} without it.
   * @throws as {@link Store.transitions}
   */
  transitionOutlines?(range: { from: number; to: number }): AsyncIterable<TransitionOutline>;
  /** The core `diff` from `stateAt(revA)` to `stateAt(revB)`, both in `options.shape`. Throws as {@link Store.stateAt}. */
  diff(stream: StreamId, revA: number, revB: number, options?: ShapeReadOptions): Promise<JsonObject>;
  /**
   * Move `stream`'s origin to `max(origin, head − keepRevisions + 1)` in one batch: checkpoint at
   * the origin, delete older checkpoints and revision-index entries, and replace transitions
   * that no retained revision of any stream needs by pruned stubs that keep the hash chain and
   * the idempotency id ({@link PrunedTransition}). Waits for running historical reads. `deleted` counts the
   * revisions no longer retained.
   * @throws `INPUT_INVALID` when keepRevisions is not an integer ≥ 1.
   */
  compact(stream: StreamId, options: { keepRevisions: number }): Promise<{ origin: number; deleted: number }>;
  /**
   * Give the space of what compaction removed back to the file system now (README "Retention"):
   * the storage's `reclaim` (LevelDB: a compaction of its whole key range); nothing on a
   * backend that deletes as it commits. Optional: a store over HTTP has none. `retain` calls it
   * after a run that removed anything.
   * @throws STORE_IO, STORE_CLOSED
   */
  reclaimSpace?(): Promise<void>;
  /**
   * One transition that sets `to` to `from`'s state at `at` (default head), with meta
   * `{ fork: { from, rev } }`; `noop` when `to` already has that state. The idempotency id is
   * checked first (→ `duplicate` with the original, even though `to` is no longer empty).
   * @throws `CONFLICT` when `to` is not at the expected revision (default `'none'`);
   *   `REVISION_NOT_FOUND` / `HISTORY_NOT_RETAINED` for `at`; `INPUT_INVALID` when from = to.
   */
  fork(from: StreamId, to: StreamId, options?: ForkOptions): Promise<PublishResult>;
  /**
   * Three-way merge of `from` into `into` (README "Merge"): the changes `from` made since the
   * merge base that `into` did not make too are applied to `into` (core `threeWayMerge`, `ours` =
   * `into`), as one transition on `into` with meta `{ ...meta, merge: { from, fromRev, base: {
   * stream, rev } } }`, guarded by `expected`, read and committed alone under the write lock.
   * The merge base is the nearest revision both descend from through the `fork` and `merge`
   * records of their histories (the latest when there are several); the merge's own record
   * makes the next merge start from there. Check order: idempotency id (→ `duplicate`),
   * `expected`, the merge base, the merge, the resulting state.
   * @throws `MERGE_CONFLICT` `{ from, into, fromRev, intoRev, base, conflicts }` when conflicts
   *   are left open (not with `dryRun`); nothing is published. `MERGE_UNRELATED` `{ from, into }`
   *   when no fork or merge record connects them. `HISTORY_NOT_RETAINED` `{ stream, rev, origin }`
   *   when the base lies before its stream's retained origin, or compaction removed the records
   *   that could lead to it. `CONFLICT` for `expected`; `REVISION_NOT_FOUND` for `fromRev`;
   *   `INPUT_INVALID` for a malformed input (from = into, `resolve`/`prefer` as core refuses them,
   *   a `meta` holding `merge` or `fork`); `PATCH_INVALID` `reason: 'invalid-state'` when a
   *   resolution leaves an invalid state.
   */
  merge(input: MergeInput): Promise<MergeResult>;
  /**
   * Undo one writer's transitions since a point (README "Undo"): per stream, a three-way merge
   * (core `threeWayMerge`) of the head ("ours") and the state without the writer's transitions
   * ("theirs": the base before the first of them with every other transition's net patch
   * replayed, `fitPatch`ted) over the state with only them ("base": the same base with only the
   * writer's patches), published as one transition with meta `{ ...meta, undo: { writer, since,
   * through, seqs } }`, read and committed alone under the write lock. Paths only other writers
   * changed stay exactly as they are. Check order: idempotency id, `expected`, `since`, the
   * transitions, the merge and its resolutions, the resulting states, the open conflicts.
   * @throws UNDO_CONFLICT `{ since, through, undone, conflicts }` when conflicts are left open (not
   *   with `dryRun`); TAG_NOT_FOUND for `since.tag`; HISTORY_NOT_RETAINED when compaction removed a
   *   transition or state the undo needs; CONFLICT for `expected`; INPUT_INVALID for a malformed
   *   input (`writer` as core `checkWriterMatch` refuses it, `since`, `streams`, `resolve` naming a
   *   stream out of scope or a path that is no conflict, `meta.undo`); PATCH_INVALID
   *   `invalid-state` when a resolution leaves an invalid state.
   */
  undo(input: UndoInput): Promise<UndoResult>;
  /**
   * Publish a new transition whose net patch restores `stream`'s state at `toRev` (the core
   * `diff` from the current state), with meta `{ revert: { stream, rev } }`; `noop` when the
   * state already equals it. History is never rewritten.
   * @throws `REVISION_NOT_FOUND` / `HISTORY_NOT_RETAINED` for `toRev`.
   */
  revert(stream: StreamId, toRev: number): Promise<PublishResult>;
  /**
   * Append an exported transition verbatim (same seq, time, id, meta and hash) after verifying
   * it: seq = lastSeq + 1, prevHash = the last hash, each change's rev = that stream's head + 1,
   * each patch valid for the current state and changing it, the recomputed hash equal to `hash`,
   * the id not used yet. Used by `stateflow replay`.
   * @throws `INPUT_INVALID` `{ field, reason }` naming the check that failed; `PATCH_INVALID`.
   */
  append(transition: Transition): Promise<void>;
  /**
   * {@link Store.append} for several exported transitions in order, all or nothing: each is
   * verified against the state the ones before it leave, and all are written in one atomic batch
   * (the bulk path of `stateflow replay`).
   * @throws what `append` throws for the first transition that fails, with `Transition N of M:`
   *   before its message; then nothing is written. `INPUT_INVALID` for an empty list.
   */
  appendMany(transitions: Transition[]): Promise<void>;
  /**
   * Verify everything stored: replay every stream from its origin, the hash chain link by link,
   * every checkpoint (its own hash and against the replay), every head, the revision and seq
   * indexes and the idempotency records. Never writes; reads one snapshot of the storage, so
   * writers go on meanwhile (what they commit is not part of this audit).
   * `onProgress(done, total)` counts log records.
   */
  audit(options?: { onProgress?: (done: number, total: number) => void }): Promise<AuditReport>;
  /**
   * Catch-up subscription: first the retained transitions with seq > `from`, then live ones as
   * they are accepted, filtered by `streams`. Ends when `signal` aborts, `return()` is called,
   * or the store closes.
   */
  watch(options?: WatchOptions): AsyncIterable<Transition>;
  /**
   * Run `fn` holding the named lock `name` (README "Named locks"): after every holder of `name`
   * before it, in this process and — on a storage many processes share (PostgreSQL) — in every
   * process on the store; released when `fn` settles. Not reentrant. A lock orders writers; it
   * never replaces CAS (a holder whose connection died goes on unprotected).
   * @returns what `fn` returned
   * @throws what `fn` throws; STORE_UNAVAILABLE, STORE_IO taking a shared lock
   */
  withLock<T>(name: string, fn: () => Promise<T>): Promise<T>;
  /**
   * Run `fn` holding `name` only if no one holds or waits for it right now (see
   * {@link Store.withLock}); `{ ran: false }` at once otherwise. With `local: 'wait'` it first
   * waits behind the holders in this process (which will release it) and declines only when
   * another process holds it.
   */
  withLockIfFree<T>(name: string, fn: () => Promise<T>, options?: { local?: 'decline' | 'wait' }): Promise<{ ran: true; value: T } | { ran: false }>;
  /** Wait for running writes, end watches, close the storage. Idempotent. */
  close(): Promise<void>;
}

export type { JsonObject, JsonValue, MergeConflict, MergeResolution, WriterMatch };
