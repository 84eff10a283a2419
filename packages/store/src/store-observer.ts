/**
 * The store's observation hooks (README "Observing a store"): what a metrics exporter needs to
 * know of publishes, commits and reads, told after each one, with no dependency on any metrics
 * library. `stateflow serve` implements it with Prometheus metrics (server README
 * "Observability"); a library caller may pass its own in {@link StoreOptions.observer}.
 *
 * Every hook is optional, called synchronously on the store's path and must not throw (a hook
 * that throws is ignored: an observer never fails a write or a read). Times are milliseconds from
 * `performance.now()`. No stream id, session or user reaches a hook, so what an observer labels
 * by stays bounded.
 */

/** How a publish ended: each call to `publish`, and each input of `publishMany`. */
export type PublishOutcome = 'accepted' | 'duplicate' | 'noop' | 'conflict' | 'error';

/** One input of a `publish` or `publishMany` call, after the call settled. */
export interface PublishObservation {
  /** The durability asked for (the store's default when the input named none): `Durability` of the store's types. */
  durability: 'buffered' | 'fsync';
  /** `conflict` for a `CONFLICT` failure; `error` for any other failure. */
  outcome: PublishOutcome;
  /** Time from the call to its answer, queueing and the commit included. */
  ms: number;
}

/** One atomic storage batch written by the store (a group commit, a fork, a merge, a revert, an append). */
export interface CommitObservation {
  /** Transitions in the batch (≥ 1). */
  transitions: number;
  /** Bytes of the values written (log, index, head, checkpoint and id records). */
  bytes: number;
  /** Whether the batch was synced to disk before it resolved (`fsync` durability on a backend that has it). */
  synced: boolean;
  /** Time the storage took to write the batch. */
  ms: number;
}

/**
 * What a read was: `state` — current state (`state`, `view`); `stateAt` — a historical state;
 * `transitions` — a log iteration; `audit` — a whole audit.
 */
export type ReadKind = 'state' | 'stateAt' | 'transitions' | 'audit';

/** One read, after it settled (`transitions`: once its iteration ended). */
export interface ReadObservation {
  kind: ReadKind;
  /** Whether it answered (`ok`) or threw (`error`). */
  outcome: 'ok' | 'error';
  ms: number;
}

/** Hooks the store calls (see the module comment); pass one as {@link StoreOptions.observer}. */
export interface StoreObserver {
  published?(observation: PublishObservation): void;
  committed?(observation: CommitObservation): void;
  read?(observation: ReadObservation): void;
}
