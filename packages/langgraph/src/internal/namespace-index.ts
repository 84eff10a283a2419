/**
 * Where each checkpoint of one namespace lives in its stream (README "Finding a checkpoint").
 *
 * Built from the stream's own log — `store.transitions({ stream })` and the `meta.langgraph` of
 * each revision — so it holds across processes and nothing extra is stored: a stream's log is
 * the whole truth, and an index lost with its process is rebuilt from it.
 *
 * It is read from the newest end, lazily: LangGraph mostly wants the head (resuming a thread),
 * the newest checkpoints first (`getStateHistory`) or a checkpoint it listed recently. A new
 * index starts at the stream's head and reads older transitions in windows of doubling size
 * only until it finds what was asked, so resuming a long thread in a new process reads the
 * last few transitions, not the whole thread. Newer transitions (another process writing) are
 * read forward from the last one seen before each use.
 */
import type { JsonObject } from '@stateflow/core';
import type { Store, StreamId, Transition } from '@stateflow/store';
import { revisionMeta } from './transition-meta.js';
import type { RevisionMeta } from './transition-meta.js';

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

/** What the index knows of an id: writes seen before (in log order: after) its put was read. */
interface Known {
  entry: CheckpointEntry | undefined;
  latestRev: number;
}

/** Seqs the first backward window covers; each further window doubles. */
const FIRST_WINDOW = 64;

/** The checkpoints of one stream, by id and in put order, read from the newest end. */
export class NamespaceIndex {
  readonly stream: StreamId;
  readonly #store: Store;
  /** Forward frontier: every transition of the stream with seq ≤ this was seen (or is below #low). */
  #seq = -1;
  /** Backward frontier: transitions with seq ≥ this are indexed. */
  #low = 0;
  /** Nothing older than #low matters (start of the log, or a deletion). */
  #complete = false;
  #window = FIRST_WINDOW;
  #rev = 0;
  #origin = 0;
  readonly #known = new Map<string, Known>();
  /** Put entries in ascending putRev: the head is last. */
  #puts: CheckpointEntry[] = [];
  #extending: Promise<void> | null = null;

  constructor(store: Store, stream: StreamId) {
    this.#store = store;
    this.stream = stream;
  }

  /** The stream revision indexed so far (the head when {@link catchUp} returned). */
  get rev(): number {
    return this.#rev;
  }

  /** Read what the stream gained since the last call (and drop what compaction removed). */
  async catchUp(): Promise<void> {
    const head = await this.#store.head(this.stream);
    if (this.#seq < 0) {
      this.#seq = head.seq;
      this.#low = head.seq + 1;
      this.#rev = head.rev;
      this.#complete = head.rev === 0;
    }
    if (head.origin !== this.#origin) this.#compacted(head.origin);
    if (head.rev === this.#rev) return;
    for await (const transition of this.#store.transitions({ stream: this.stream, from: this.#seq + 1 })) this.apply(transition);
  }

  /** The namespace's head: its most recently put checkpoint (after the last deletion). */
  async head(): Promise<CheckpointEntry | undefined> {
    while (this.#puts.length === 0 && !this.#complete) await this.#extend();
    return this.#puts.at(-1);
  }

  /** The checkpoint `id`, reading older transitions until it is found or the log ends. */
  async get(id: string): Promise<CheckpointEntry | undefined> {
    while (this.#known.get(id)?.entry === undefined && !this.#complete) await this.#extend();
    return this.#known.get(id)?.entry;
  }

  /** The checkpoint `id` if the transitions read so far hold it (reads nothing). */
  known(id: string): CheckpointEntry | undefined {
    return this.#known.get(id)?.entry;
  }

  /** Every retained checkpoint, most recently put first, reading older windows as it goes. */
  async *newestFirst(): AsyncGenerator<CheckpointEntry> {
    let below = Number.POSITIVE_INFINITY;
    for (;;) {
      const next = this.#newestBelow(below);
      if (next !== undefined) {
        below = next.putRev;
        yield next;
        continue;
      }
      if (this.#complete) return;
      await this.#extend();
    }
  }

  /** Index one newer transition of this stream (in seq order; ones already seen are ignored). */
  apply(transition: Transition): void {
    if (transition.seq <= this.#seq) return;
    this.#seq = transition.seq;
    const change = transition.changes.find((c) => c.stream === this.stream);
    if (change === undefined) return;
    this.#rev = change.rev;
    const meta = revisionMeta(transition);
    if (meta === null) return; // a revision another tool wrote: not a checkpoint
    if (meta.op === 'delete') {
      this.#known.clear();
      this.#puts = [];
      this.#complete = true;
      return;
    }
    if (meta.checkpointId === undefined) return;
    const known = this.#known.get(meta.checkpointId);
    if (meta.op === 'put') {
      if (known?.entry !== undefined) this.#puts = this.#puts.filter((e) => e !== known.entry);
      const entry = entryOf(meta, meta.checkpointId, change.rev);
      this.#known.set(entry.id, { entry, latestRev: change.rev });
      this.#puts.push(entry);
      return;
    }
    if (known === undefined) this.#known.set(meta.checkpointId, { entry: undefined, latestRev: change.rev });
    else {
      known.latestRev = change.rev;
      if (known.entry !== undefined) known.entry.latestRev = change.rev;
    }
  }

  /** Read the next older window of the log (one reader at a time). */
  #extend(): Promise<void> {
    this.#extending ??= this.#readOlder().finally(() => (this.#extending = null));
    return this.#extending;
  }

  async #readOlder(): Promise<void> {
    if (this.#complete) return;
    const to = this.#low - 1;
    const from = Math.max(1, to - this.#window + 1);
    this.#window *= 2;
    const window: Transition[] = [];
    if (to >= 1) for await (const t of this.#store.transitions({ stream: this.stream, from, to })) window.push(t);
    const older: CheckpointEntry[] = [];
    for (let i = window.length - 1; i >= 0; i--) {
      const transition = window[i] as Transition;
      const change = transition.changes.find((c) => c.stream === this.stream);
      const meta = change === undefined ? null : revisionMeta(transition);
      if (change === undefined || meta === null || meta.checkpointId === undefined) {
        if (meta?.op === 'delete') {
          this.#complete = true;
          break;
        }
        continue;
      }
      const known = this.#known.get(meta.checkpointId);
      if (meta.op === 'writes') {
        if (known === undefined) this.#known.set(meta.checkpointId, { entry: undefined, latestRev: change.rev });
        continue;
      }
      if (known?.entry !== undefined) continue; // a later put of the same id wins
      if (change.rev <= this.#origin) continue;
      const entry = entryOf(meta, meta.checkpointId, known?.latestRev ?? change.rev);
      entry.putRev = change.rev;
      this.#known.set(entry.id, { entry, latestRev: entry.latestRev });
      older.push(entry);
    }
    this.#puts = [...older.reverse(), ...this.#puts];
    this.#low = from;
    if (from <= 1) this.#complete = true;
  }

  /** The put entry with the largest putRev below `rev`. */
  #newestBelow(rev: number): CheckpointEntry | undefined {
    let lo = 0;
    let hi = this.#puts.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.#puts[mid] as CheckpointEntry).putRev < rev) lo = mid + 1;
      else hi = mid;
    }
    return this.#puts[lo - 1];
  }

  /**
   * Compaction prunes the transition that made the origin revision too (its state is the
   * origin checkpoint): a checkpoint put at or below the origin has lost its metadata, as an
   * index read from the retained log would never see it.
   */
  #compacted(origin: number): void {
    this.#origin = origin;
    this.#puts = this.#puts.filter((e) => e.putRev > origin);
    for (const [id, known] of this.#known) if (known.entry !== undefined && known.entry.putRev <= origin) this.#known.delete(id);
    if (this.#rev < origin) this.#rev = origin;
  }
}

function entryOf(meta: RevisionMeta, id: string, rev: number): CheckpointEntry {
  return { id, parentId: meta.parentId, putRev: rev, latestRev: rev, metadata: meta.metadata };
}
