/**
 * The saver's namespace indexes, caught up with their streams (README "Finding a checkpoint"):
 * the most recently used ones kept in memory, and what a call reads through them — the state at
 * the revision indexed and at each checkpoint's latest revision, in the saver's shape.
 */
import type { JsonObject } from '@stateflow/core';
import type { ShapeSelector, Store, StreamId } from '@stateflow/store';
import { AppendMemo } from './append-memo.js';
import { NamespaceIndex } from './namespace-index.js';
import type { CheckpointEntry } from './namespace-index.js';

/** Namespace indexes kept in memory before the least recently used is dropped (and read again on use). */
const INDEX_CACHE_SIZE = 1024;

/** A namespace's index with the revision it was caught up to and that revision's state. */
export interface Snapshot {
  index: NamespaceIndex;
  /** What the namespace's channels were last stored from (`append-memo.ts`). */
  memo: AppendMemo;
  rev: number;
  /**
   * Whether `rev` was the stream's head when the snapshot was taken (read from the store); a
   * writer's first attempt goes without, and the store's CAS on `rev` says whether it was.
   */
  fresh: boolean;
  /** The state at `rev`, read on first use (a read of a past checkpoint never needs it). */
  current(): Promise<JsonObject>;
}

/** The namespace indexes of one saver. */
export class NamespaceSnapshots {
  readonly #store: Store;
  /** The shape every state is read in (README "Shapes"). */
  readonly #shape: { shape: ShapeSelector };
  readonly #indexes = new Map<StreamId, { index: NamespaceIndex; memo: AppendMemo }>();

  constructor(store: Store, shape: ShapeSelector) {
    this.#store = store;
    this.#shape = { shape };
  }

  /**
   * The namespace's index — caught up with its stream (`catchUp`, the default), or as this
   * saver last left it (`catchUp: false`, for a publish the store's CAS checks; an index never
   * caught up is caught up anyway) — and the state at the revision indexed.
   */
  async take(stream: StreamId, options: { catchUp?: boolean } = {}): Promise<Snapshot> {
    let kept = this.#indexes.get(stream);
    if (kept === undefined) {
      kept = { index: new NamespaceIndex(this.#store, stream), memo: new AppendMemo() };
      if (this.#indexes.size >= INDEX_CACHE_SIZE) this.#indexes.delete(this.#indexes.keys().next().value as StreamId);
    } else this.#indexes.delete(stream);
    this.#indexes.set(stream, kept);
    const { index, memo } = kept;
    const fresh = options.catchUp !== false || !index.started;
    if (fresh) await index.catchUp();
    const rev = index.rev;
    const known = index.state;
    let current: Promise<JsonObject> | undefined = known === undefined ? undefined : Promise.resolve(known);
    return { index, memo, rev, fresh, current: () => (current ??= this.#store.stateAt(stream, rev, this.#shape)) };
  }

  /** The state of `entry` at its latest revision. */
  stateOf(snapshot: Snapshot, entry: CheckpointEntry): Promise<JsonObject> {
    return entry.latestRev === snapshot.rev ? snapshot.current() : this.#store.stateAt(snapshot.index.stream, entry.latestRev, this.#shape);
  }
}
