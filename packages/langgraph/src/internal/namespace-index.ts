/**
 * Where each checkpoint of one namespace lives in its stream (README "Finding a checkpoint").
 *
 * Built from the stream's own log (`store.transitions({ stream })` and the `meta.langgraph` of
 * each revision) and kept up to date incrementally, so it holds across processes: before each
 * use the saver compares the stream's head with the last revision indexed and reads only the
 * transitions after it. Nothing here is stored: a stream's log is the whole truth, and an index
 * lost with its process is rebuilt from it.
 */
import type { JsonObject } from '@stateflow/core';
import type { Store, StreamId, Transition } from '@stateflow/store';
import { revisionMeta } from './transition-meta.js';

/** One checkpoint of the namespace. */
export interface CheckpointEntry {
  id: string;
  parentId: string | undefined;
  /** The revision that put the checkpoint (its transition carries the metadata). */
  putRev: number;
  /** The latest revision whose state is this checkpoint: its pending writes are all there. */
  latestRev: number;
  /** The put's metadata as stored in its transition meta. */
  metadata: JsonObject | undefined;
}

/** The checkpoints of one stream, by id and in put order. */
export class NamespaceIndex {
  readonly stream: StreamId;
  #seq = 0;
  #rev = 0;
  #origin = 0;
  /** Insertion order is put order: a repeated put of an id moves it to the end. */
  readonly #entries = new Map<string, CheckpointEntry>();
  #head: CheckpointEntry | undefined;

  constructor(stream: StreamId) {
    this.stream = stream;
  }

  /** The stream revision indexed so far. */
  get rev(): number {
    return this.#rev;
  }

  /** The namespace's head: its most recently put checkpoint (after the last deletion). */
  head(): CheckpointEntry | undefined {
    return this.#head;
  }

  get(id: string): CheckpointEntry | undefined {
    return this.#entries.get(id);
  }

  /** Every retained checkpoint, most recently put first. */
  newestFirst(): CheckpointEntry[] {
    return [...this.#entries.values()].reverse();
  }

  /**
   * Read what the stream gained since the last call. Revisions below the stream's origin
   * (compacted) drop out.
   */
  async catchUp(store: Store): Promise<void> {
    const head = await store.head(this.stream);
    if (head.origin !== this.#origin) {
      this.#origin = head.origin;
      // Compaction prunes the transition that made the origin revision too (its state is the
      // origin checkpoint): a checkpoint put there has lost its metadata, as a fresh index
      // built from the retained log would never see it.
      for (const [id, entry] of this.#entries) if (entry.putRev <= head.origin) this.#entries.delete(id);
      if (this.#head !== undefined && !this.#entries.has(this.#head.id)) this.#head = undefined;
      if (this.#rev < head.origin) this.#rev = head.origin;
    }
    if (head.rev === this.#rev) return;
    for await (const transition of store.transitions({ stream: this.stream, from: this.#seq + 1 })) this.apply(transition);
  }

  /** Index one transition of this stream (in seq order; earlier ones are ignored). */
  apply(transition: Transition): void {
    if (transition.seq <= this.#seq) return;
    const change = transition.changes.find((c) => c.stream === this.stream);
    this.#seq = transition.seq;
    if (change === undefined) return;
    this.#rev = change.rev;
    const meta = revisionMeta(transition);
    if (meta === null) return; // a revision another tool wrote: not a checkpoint
    if (meta.op === 'delete') {
      this.#entries.clear();
      this.#head = undefined;
      return;
    }
    if (meta.checkpointId === undefined) return;
    if (meta.op === 'put') {
      const entry: CheckpointEntry = { id: meta.checkpointId, parentId: meta.parentId, putRev: change.rev, latestRev: change.rev, metadata: meta.metadata };
      this.#entries.delete(entry.id);
      this.#entries.set(entry.id, entry);
      this.#head = entry;
      return;
    }
    const entry = this.#entries.get(meta.checkpointId);
    if (entry !== undefined) entry.latestRev = change.rev; // else: early writes, picked up by the put
  }
}
