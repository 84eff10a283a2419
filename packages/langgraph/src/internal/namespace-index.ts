/**
 * Where each checkpoint of one namespace lives in its stream (README "Finding a checkpoint").
 *
 * Built from the stream's own log — `store.transitions({ stream })` and the `meta.langgraph` of
 * each revision — and from the namespace's index stream (`checkpoint-pointers.ts`), which says
 * where a checkpoint id lives without reading the log back to it; both hold across processes,
 * and an index lost with its process is read again from them.
 *
 * The log is read from the newest end, lazily: LangGraph mostly wants the head (resuming a
 * thread) or the newest checkpoints first (`getStateHistory`). A new index starts at the
 * stream's head and reads older transitions in windows of doubling size only until it finds
 * what was asked, so resuming a long thread in a new process reads the last few transitions,
 * not the whole thread. A checkpoint read by id is a point read through the index stream (and
 * the log read back to it only for checkpoints put before the index stream existed). Newer
 * transitions (another process writing) are read forward from the last one seen before each use.
 */
import { applyPatch } from '@stateflow/core';
import type { JsonObject } from '@stateflow/core';
import type { Store, StreamId, Transition } from '@stateflow/store';
import { isBucketed, pointerPatch } from './checkpoint-pointers.js';
import type { IndexForm } from './checkpoint-pointers.js';
import { readHeadId, readPointer } from './pointer-reads.js';
import { indexStreamOf } from './stream-names.js';
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
  /** The namespace's index stream (`checkpoint-pointers.ts`). */
  readonly indexStream: StreamId;
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
  /** Entries found through the index stream and not read from the log yet (not in #puts). */
  readonly #pointed = new Set<CheckpointEntry>();
  /** The head through the index stream, while no put was read from the log (see {@link head}). */
  #pointedHead: Promise<CheckpointEntry | null | undefined> | undefined;
  /**
   * The index stream's form as far as this saver knows it: bucketed (it wrote it, or read it so),
   * empty (no revision yet, or deleted), or unknown until read.
   */
  #indexForm: 'bucketed' | 'empty' | undefined;
  /** The state at #rev when this saver published it (else read from the store). */
  #state: JsonObject | undefined;
  #extending: Promise<void> | null = null;

  constructor(store: Store, stream: StreamId) {
    this.#store = store;
    this.stream = stream;
    this.indexStream = indexStreamOf(stream);
  }

  /** The stream revision indexed so far (the head when {@link catchUp} returned). */
  get rev(): number {
    return this.#rev;
  }

  /** Whether {@link catchUp} ran once: the index knows the stream up to {@link rev}. */
  get started(): boolean {
    return this.#seq >= 0;
  }

  /**
   * The state at {@link rev} when it is the one this saver's own publish left (exactly: the
   * store's net patch applied to the state before), else `undefined` (read it from the store).
   */
  get state(): JsonObject | undefined {
    return this.#state;
  }

  /** Read what the stream gained since the last call (and drop what compaction removed). */
  async catchUp(): Promise<void> {
    const head = await this.#store.head(this.stream);
    if (this.#seq < 0) {
      this.#seq = head.seq;
      this.#low = head.seq + 1;
      this.#rev = head.rev;
      this.#complete = head.rev === 0;
      // A stream without revisions has no index entries either: they are written together.
      if (head.rev === 0) this.#indexForm = 'empty';
    }
    if (head.origin !== this.#origin) this.#compacted(head.origin);
    if (head.rev === this.#rev) return;
    for await (const transition of this.#store.transitions({ stream: this.stream, from: this.#seq + 1 })) this.apply(transition);
  }

  /**
   * The namespace's head: its most recently put checkpoint (after the last deletion). Before
   * the log read holds a put, through the index stream's `$head` (a point read).
   */
  async head(): Promise<CheckpointEntry | undefined> {
    if (this.#puts.length === 0 && !this.#complete) {
      this.#pointedHead ??= this.#pointedHeadEntry();
      const pointed = await this.#pointedHead;
      if (this.#puts.length > 0) return this.#puts.at(-1); // a put read meanwhile is newer
      if (pointed !== undefined) return pointed ?? undefined;
    }
    while (this.#puts.length === 0 && !this.#complete) await this.#extend();
    return this.#puts.at(-1);
  }

  /**
   * The checkpoint `id`: from what was read, else through the index stream, else (a checkpoint
   * put before the index stream existed) reading older transitions until it is found or the log ends.
   * @throws StateflowError `STORE_CORRUPT` when the index stream's pointer disagrees with the log.
   */
  async get(id: string): Promise<CheckpointEntry | undefined> {
    const known = this.#known.get(id)?.entry;
    if (known !== undefined || this.#complete) return known;
    const pointed = await this.#pointedEntry(id);
    if (pointed !== undefined) return pointed ?? undefined;
    while (this.#known.get(id)?.entry === undefined && !this.#complete) await this.#extend();
    return this.#known.get(id)?.entry;
  }

  /**
   * The patch of the index stream for revision `rev` of this stream, which makes its state
   * checkpoint `id` (a put of it, or writes switching back to it; `left`: the checkpoint the
   * state was): published in the same transition.
   */
  async pointerPatch(id: string, rev: number, options: { put: boolean; left: string | undefined }): Promise<JsonObject> {
    let index: IndexForm = this.#indexForm === 'bucketed' ? 'bucketed' : {};
    if (this.#indexForm === undefined) {
      // Read while not known bucketed: an index written before buckets moves into them now.
      const state = await this.#store.state(this.indexStream);
      index = isBucketed(state) ? 'bucketed' : state;
      if (index === 'bucketed') this.#indexForm = 'bucketed';
    }
    return pointerPatch(id, rev, { ...options, index });
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

  /**
   * Index one newer transition of this stream (in seq order; ones already seen are ignored).
   * `before`: the state at the revision before it, when the caller published it (the state it
   * leaves is then kept, see {@link state}).
   */
  apply(transition: Transition, before?: JsonObject): void {
    if (transition.seq <= this.#seq) return;
    this.#seq = transition.seq;
    // This saver's own writes of the index leave it bucketed; another writer's are read again.
    if (transition.changes.some((c) => c.stream === this.indexStream)) this.#indexForm = before !== undefined || this.#indexForm === 'bucketed' ? 'bucketed' : undefined;
    const change = transition.changes.find((c) => c.stream === this.stream);
    if (change === undefined) return;
    this.#state = before !== undefined && change.rev === this.#rev + 1 ? applyPatch(before, change.patch) : undefined;
    this.#rev = change.rev;
    const meta = revisionMeta(transition);
    if (meta === null) return; // a revision another tool wrote: not a checkpoint
    if (meta.op === 'delete') {
      this.#known.clear();
      this.#pointed.clear();
      this.#pointedHead = undefined;
      this.#puts = [];
      this.#complete = true;
      this.#indexForm = 'empty';
      return;
    }
    if (meta.checkpointId === undefined) return;
    const known = this.#known.get(meta.checkpointId);
    if (meta.op === 'put') {
      if (known?.entry !== undefined) {
        this.#puts = this.#puts.filter((e) => e !== known.entry);
        this.#pointed.delete(known.entry);
      }
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
      if (known?.entry !== undefined) {
        // A later put of the same id wins; one found through the index is listed from here on.
        if (this.#pointed.delete(known.entry)) older.push(known.entry);
        continue;
      }
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

  /** The head through the index stream's `$head`: as {@link #pointedEntry}. */
  async #pointedHeadEntry(): Promise<CheckpointEntry | null | undefined> {
    const id = await readHeadId(this.#store, this.indexStream);
    return typeof id === 'string' ? this.#pointedEntry(id) : id;
  }

  /**
   * The checkpoint `id` through the index stream, checked against the log (its put's meta):
   * an entry, `null` when the index says there is none, `undefined` when it does not know.
   */
  async #pointedEntry(id: string): Promise<CheckpointEntry | null | undefined> {
    const found = await readPointer(this.#store, this.stream, this.indexStream, id, this.#origin);
    if (found === null || found === undefined) return found;
    // Found while another call read the log: that reading wins.
    const raced = this.#known.get(id)?.entry;
    if (raced !== undefined) return raced;
    const entry = entryOf(found.meta, id, found.put);
    // The head state's checkpoint: its latest revision is the head (writes on it add no pointer).
    const latest = found.isState ? Math.max(found.at, this.#rev) : found.at;
    entry.latestRev = Math.max(latest, this.#known.get(id)?.latestRev ?? 0);
    this.#known.set(id, { entry, latestRev: entry.latestRev });
    this.#pointed.add(entry);
    return entry;
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
    for (const entry of this.#pointed) if (entry.putRev <= origin) this.#pointed.delete(entry);
    for (const [id, known] of this.#known) if (known.entry !== undefined && known.entry.putRev <= origin) this.#known.delete(id);
    if (this.#rev < origin) {
      this.#rev = origin;
      this.#state = undefined;
    }
  }
}

function entryOf(meta: RevisionMeta, id: string, rev: number): CheckpointEntry {
  return { id, parentId: meta.parentId, putRev: rev, latestRev: rev, metadata: meta.metadata };
}
