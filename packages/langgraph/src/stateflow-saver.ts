/**
 * `StateflowSaver`: a LangGraph.js checkpointer over a Stateflow store (README).
 *
 * Each thread and checkpoint namespace is one stream; each checkpoint is one revision whose
 * state is that checkpoint (net patch: what changed since the revision before); each
 * `putWrites` batch is a revision that adds the batch to its checkpoint's state. The LangGraph
 * metadata of a checkpoint is its transition's meta. So `stateflow log --stream langgraph:<thread>`
 * is the thread's history, `stateflow diff` shows what a step changed, and `audit` verifies it.
 */
import { isDeepStrictEqual } from 'node:util';
import { StateflowError, diff, isStateflowError } from '@stateflow/core';
import type { JsonObject } from '@stateflow/core';
import { BaseCheckpointSaver, getCheckpointId } from '@langchain/langgraph-checkpoint';
import type {
  ChannelVersions,
  Checkpoint,
  CheckpointListOptions,
  CheckpointMetadata,
  CheckpointPendingWrite,
  CheckpointTuple,
  DeltaChannelHistory,
  PendingWrite,
  SerializerProtocol,
} from '@langchain/langgraph-checkpoint';
import type { RunnableConfig } from '@langchain/core/runnables';
import { SerialQueue, retryOnConflict } from '@stateflow/store';
import type { Durability, Store, StreamId } from '@stateflow/store';
import { CheckpointConflictError } from './checkpoint-conflict.js';
import { HeadLeases } from './internal/head-leases.js';
import { escapeKey, isWellFormed } from './internal/json-mapping.js';
import { NamespaceIndex } from './internal/namespace-index.js';
import type { CheckpointEntry } from './internal/namespace-index.js';
import { checkpointState, decodeCheckpoint, decodeWrites, mergeWrites, stateCheckpointId, storedWrites } from './internal/revision-state.js';
import type { DecodeContext } from './internal/revision-state.js';
import { loadValue } from './internal/stored-value.js';
import { belongsToThread, namespaceRef, parseStream, threadStream } from './internal/stream-names.js';
import type { NamespaceRef } from './internal/stream-names.js';
import { deleteMeta, loadMetadata, putMeta, writesMeta } from './internal/transition-meta.js';

/** Options of {@link StateflowSaver}. */
export interface StateflowSaverOptions {
  /**
   * Write fencing (README "Write fencing"): a put that continues a thread must still find its
   * parent at the head, else it fails with {@link CheckpointConflictError}. Default `true`.
   */
  fencing?: boolean;
  /** LangGraph's serializer for channel values, writes and metadata. Default `JsonPlusSerializer`. */
  serde?: SerializerProtocol;
  /** Durability of every revision this saver publishes. Default: the store's. */
  durability?: Durability;
}

/** Namespace indexes kept in memory before the least recently used is dropped (and rebuilt on use). */
const INDEX_CACHE_SIZE = 1024;
/** Publishes retried after losing a CAS to a write that does not conflict (a writes batch, a branch). */
const MAX_ATTEMPTS = 16;

/** A namespace's index, caught up, with the revision it was caught up to and that revision's state. */
interface Snapshot {
  index: NamespaceIndex;
  rev: number;
  /** The state at `rev`, read on first use (a read of a past checkpoint never needs it). */
  current(): Promise<JsonObject>;
}

/**
 * A LangGraph.js `BaseCheckpointSaver` over a Stateflow {@link Store} (any backend: LevelDB,
 * memory, and every other `Store`). The saver does not own the store: close the store yourself.
 *
 * All methods throw `StateflowError`s for store failures (`STORE_CLOSED`, `STORE_IO`,
 * `STORE_CORRUPT`, …) and `INPUT_INVALID` `{ field, reason }` for ids that cannot name a stream
 * (empty or not well-formed Unicode, or a stream id over 1,024 bytes). Writes fail closed: a
 * refused call writes nothing.
 */
export class StateflowSaver extends BaseCheckpointSaver {
  readonly store: Store;
  readonly #fencing: boolean;
  readonly #durability: Durability | undefined;
  readonly #leases = new HeadLeases();
  /**
   * One write at a time per stream, in call order: a saver's writes to one stream read the
   * head, compute a net patch against it and publish with that head as the expected revision;
   * queued, a saver's own calls never fail each other's CAS, and LangGraph's order (a task's
   * writes before the next checkpoint) is the log's.
   */
  readonly #queue = new SerialQueue();
  readonly #indexes = new Map<StreamId, NamespaceIndex>();

  /**
   * @param store the Stateflow store that holds the checkpoints (`openStore(dir)`,
   *   `openMemoryStore()`, or any other `Store`).
   * @param options `fencing` (default `true`), `serde`, `durability`.
   */
  constructor(store: Store, options: StateflowSaverOptions = {}) {
    super(options.serde);
    this.store = store;
    this.#fencing = options.fencing ?? true;
    this.#durability = options.durability;
  }

  /**
   * The checkpoint `config` names (`checkpoint_id`), or the namespace's head (its most recently
   * put checkpoint) without one. `undefined` when there is none, or when `config` has no
   * `thread_id`.
   */
  async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    const ref = optionalRef(config);
    if (ref === undefined) return undefined;
    const id = getCheckpointId(config) || undefined;
    const snapshot = await this.#snapshot(ref.stream);
    const head = await snapshot.index.head();
    const entry = id === undefined ? head : await snapshot.index.get(id);
    if (entry === undefined) {
      if (id === undefined) this.#leases.grant(ref.stream, undefined);
      return undefined;
    }
    if (entry === head) this.#leases.grant(ref.stream, entry.id);
    else this.#leases.release(ref.stream, entry.id);
    return this.#tuple(ref, snapshot, entry);
  }

  /**
   * Checkpoints newest first: of one namespace (`thread_id` and `checkpoint_ns`), of every
   * namespace of a thread (`thread_id` only), or of every thread; `options.before` keeps ids
   * below its `checkpoint_id`, `options.filter` keeps checkpoints whose metadata has each given
   * key equal (deeply) to the given value, `options.limit` stops after that many.
   */
  async *list(config: RunnableConfig, options: CheckpointListOptions = {}): AsyncGenerator<CheckpointTuple> {
    const { before, filter } = options;
    let limit = options.limit;
    const beforeId = before === undefined ? undefined : getCheckpointId(before) || undefined;
    const onlyId = getCheckpointId(config) || undefined;
    for (const ref of await this.#listedNamespaces(config)) {
      const snapshot = await this.#snapshot(ref.stream);
      for await (const entry of snapshot.index.newestFirst()) {
        if (onlyId !== undefined && entry.id !== onlyId) continue;
        if (beforeId !== undefined && !(entry.id < beforeId)) continue;
        if (filter !== undefined && !(await this.#matches(entry, filter))) continue;
        if (limit !== undefined && limit-- <= 0) return;
        const tuple = await this.#tuple(ref, snapshot, entry);
        if (tuple !== undefined) yield tuple;
      }
    }
  }

  /**
   * Store `checkpoint` as a child of `config.configurable.checkpoint_id` (a first checkpoint
   * without one), with the channel values named by `newVersions`; other channels keep the
   * parent's values while their version is unchanged. One revision, one transition whose meta
   * carries `metadata`.
   * @throws StateflowError `INPUT_INVALID` for a config without `thread_id` or a checkpoint
   *   without an `id`; {@link CheckpointConflictError} (`CONFLICT`) when fencing refuses it.
   */
  async put(config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata, newVersions: ChannelVersions): Promise<RunnableConfig> {
    const ref = requiredRef(config, 'put');
    const id = identifier(checkpoint?.id, 'checkpoint.id');
    const parentId = getCheckpointId(config) || undefined;
    const meta = await putMeta(this.serde, { threadId: ref.threadId, checkpointNs: ref.checkpointNs, checkpointId: id, parentId }, metadata);
    await this.#queue.run(ref.stream, async () => {
      // A fencing refusal is a CONFLICT too, but a final one: looking again would not change it.
      await retryOnConflict({ attempts: MAX_ATTEMPTS, retryable: (err) => !(err instanceof CheckpointConflictError) }, async () => {
        const snapshot = await this.#snapshot(ref.stream);
        const { index } = snapshot;
        const state = await snapshot.current();
        const head = await index.head();
        if (this.#fencing && this.#leases.holds(ref.stream, parentId) && head?.id !== parentId) {
          throw new CheckpointConflictError({
            stream: ref.stream,
            expected: parentId === undefined ? 'none' : ((await index.get(parentId))?.latestRev ?? 'none'),
            actual: snapshot.rev,
            thread_id: ref.threadId,
            checkpoint_ns: ref.checkpointNs,
            parent_checkpoint_id: parentId ?? null,
            head_checkpoint_id: head?.id ?? null,
          });
        }
        const parent = parentId === undefined ? undefined : await index.get(parentId);
        // A repeated put of an id keeps its writes; only ids already read are looked up, so a
        // first put never reads the whole log to find that its id is new.
        const previous = index.known(id);
        const next = await checkpointState({
          serde: this.serde,
          base: parent === undefined ? {} : await this.#stateOf(snapshot, parent),
          checkpoint,
          parentId,
          newVersions: newVersions ?? {},
          writes: previous === undefined ? undefined : ((await this.#stateOf(snapshot, previous))['writes'] as JsonObject | undefined),
          earlyWrites: state['early_writes'] as JsonObject | undefined,
        });
        await this.#publish(snapshot, ref.stream, diff(state, next), meta);
      });
      this.#leases.grant(ref.stream, id);
    });
    return { configurable: { thread_id: ref.threadId, checkpoint_ns: ref.checkpointNs, checkpoint_id: id } };
  }

  /**
   * Store a task's writes against the checkpoint `config` names (one revision; nothing when
   * every write is already stored). A regular write whose (task, index) is stored is kept as it
   * was; special writes (errors, interrupts, scheduled, resume) replace. Writes to a checkpoint
   * not put yet wait in `early_writes` and join it when it is put.
   * @throws StateflowError `INPUT_INVALID` for a config without `thread_id` or `checkpoint_id`.
   */
  async putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string, taskPath = ''): Promise<void> {
    const ref = requiredRef(config, 'putWrites');
    const id = identifier(getCheckpointId(config) || undefined, 'checkpoint_id');
    const task = identifier(taskId, 'task_id');
    const batch = await storedWrites(this.serde, writes, task, taskPath);
    const meta = writesMeta({ threadId: ref.threadId, checkpointNs: ref.checkpointNs, checkpointId: id }, task, [...new Set(writes.map(([channel]) => channel))]);
    await this.#queue.run(ref.stream, () =>
      retryOnConflict({ attempts: MAX_ATTEMPTS }, async () => {
        const snapshot = await this.#snapshot(ref.stream);
        const next = await this.#withWrites(snapshot, id, batch);
        if (next !== null) await this.#publish(snapshot, ref.stream, diff(await snapshot.current(), next), meta);
      }),
    );
  }

  /**
   * Delete every checkpoint and write of a thread, in all its namespaces: one transition sets
   * each of its streams to `{}` (meta `{ langgraph: { op: 'delete' } }`), then each stream is
   * compacted to that revision, so the data is gone from the store (pruned stubs keep the hash
   * chain verifiable). Nothing to do for an unknown thread.
   */
  async deleteThread(threadId: string): Promise<void> {
    const root = threadStream(identifier(threadId, 'thread_id'));
    const streams = (await this.store.streams()).map((h) => h.stream).filter((s) => belongsToThread(s, root));
    await this.#queue.runAll(streams, async () => {
      await retryOnConflict({ attempts: MAX_ATTEMPTS }, async () => {
        const snapshots = await Promise.all(streams.map((s) => this.#snapshot(s)));
        const changes: Record<StreamId, JsonObject> = {};
        const expected: Record<StreamId, number> = {};
        for (const [i, snapshot] of snapshots.entries()) {
          const keys = Object.keys(await snapshot.current());
          if (keys.length === 0) continue;
          changes[streams[i] as StreamId] = Object.fromEntries(keys.map((k) => [k, null]));
          expected[streams[i] as StreamId] = snapshot.rev;
        }
        if (Object.keys(changes).length === 0) return;
        const result = await this.store.publish({ changes, expected, meta: deleteMeta(threadId), ...this.#durabilityOption() });
        if (result.status === 'accepted') for (const s of snapshots) s.index.apply(result.transition);
      });
      for (const stream of streams) await this.store.compact(stream, { keepRevisions: 1 });
    });
  }

  /**
   * The delta-channel walk of `BaseCheckpointSaver` (same result), over the stream's index
   * instead of one `getTuple` per ancestor, and without counting as a read for write fencing.
   */
  override async getDeltaChannelHistory(options: { config: RunnableConfig; channels: string[] }): Promise<Record<string, DeltaChannelHistory>> {
    const { config, channels } = options;
    const result: Record<string, DeltaChannelHistory> = {};
    if (channels.length === 0) return result;
    const collected = new Map<string, CheckpointPendingWrite[]>(channels.map((ch) => [ch, []]));
    const seeds = new Map<string, unknown>();
    const ref = optionalRef(config);
    if (ref !== undefined) {
      const snapshot = await this.#snapshot(ref.stream);
      const target = (getCheckpointId(config) || undefined) ?? (await snapshot.index.head())?.id;
      const remaining = new Set(channels);
      let cursor = target === undefined ? undefined : (await snapshot.index.get(target))?.parentId;
      while (cursor !== undefined && remaining.size > 0) {
        const entry = await snapshot.index.get(cursor);
        if (entry === undefined) break;
        const state = await this.#stateOf(snapshot, entry);
        const stored = (state['channels'] ?? {}) as JsonObject;
        const terminated: string[] = [];
        for (const ch of remaining) {
          const key = escapeKey(ch);
          if (!Object.prototype.hasOwnProperty.call(stored, key)) continue;
          const value = await loadValue(this.serde, stored[key]);
          if (value === undefined) continue;
          seeds.set(ch, value);
          terminated.push(ch);
        }
        const writes = await decodeWrites(this.serde, state['writes']);
        for (let i = writes.length - 1; i >= 0; i--) {
          const write = writes[i] as CheckpointPendingWrite;
          if (remaining.has(write[1])) collected.get(write[1])?.push(write);
        }
        for (const ch of terminated) remaining.delete(ch);
        cursor = entry.parentId;
      }
    }
    for (const ch of channels) {
      const entry: DeltaChannelHistory = { writes: (collected.get(ch) ?? []).slice().reverse() };
      if (seeds.has(ch)) entry.seed = seeds.get(ch);
      result[ch] = entry;
    }
    return result;
  }

  /** The namespace's index caught up with its stream, and the state at the revision indexed. */
  async #snapshot(stream: StreamId): Promise<Snapshot> {
    let index = this.#indexes.get(stream);
    if (index === undefined) {
      index = new NamespaceIndex(this.store, stream);
      if (this.#indexes.size >= INDEX_CACHE_SIZE) this.#indexes.delete(this.#indexes.keys().next().value as StreamId);
    } else this.#indexes.delete(stream);
    this.#indexes.set(stream, index);
    await index.catchUp();
    const rev = index.rev;
    let current: Promise<JsonObject> | undefined;
    return { index, rev, current: () => (current ??= this.store.stateAt(stream, rev)) };
  }

  /** The state of `entry` at its latest revision. */
  #stateOf(snapshot: Snapshot, entry: CheckpointEntry): Promise<JsonObject> {
    return entry.latestRev === snapshot.rev ? snapshot.current() : this.store.stateAt(snapshot.index.stream, entry.latestRev);
  }

  /**
   * The state after adding `batch` to checkpoint `id`: in place when the head state is that
   * checkpoint, else its latest state with the writes (the revision switches back to it), else
   * (not put yet) the head state with the writes waiting in `early_writes`. `null`: no change.
   */
  async #withWrites(snapshot: Snapshot, id: string, batch: Awaited<ReturnType<typeof storedWrites>>): Promise<JsonObject | null> {
    const state = await snapshot.current();
    const entry = stateCheckpointId(state) === id ? undefined : await snapshot.index.get(id);
    if (stateCheckpointId(state) === id || entry === undefined) {
      const onHead = stateCheckpointId(state) === id;
      const early = { ...((state['early_writes'] ?? {}) as JsonObject) };
      const merged = mergeWrites((onHead ? state['writes'] : early[escapeKey(id)]) as JsonObject | undefined, batch);
      if (merged === null) return null;
      if (onHead) return { ...state, writes: merged };
      early[escapeKey(id)] = merged;
      return { ...state, early_writes: early };
    }
    const target = await this.#stateOf(snapshot, entry);
    const merged = mergeWrites(target['writes'] as JsonObject | undefined, batch);
    if (merged === null) return null;
    const next: JsonObject = { ...target, writes: merged };
    delete next['early_writes'];
    if (state['early_writes'] !== undefined) next['early_writes'] = state['early_writes'];
    return next;
  }

  /**
   * Publish `patch` on the snapshot's revision (nothing when it is empty) and index the
   * transition.
   * @throws CONFLICT when another writer published first: the caller looks again.
   */
  async #publish(snapshot: Snapshot, stream: StreamId, patch: JsonObject, meta: JsonObject): Promise<void> {
    if (Object.keys(patch).length === 0) return;
    const result = await this.store.publish({ changes: { [stream]: patch }, expected: { [stream]: snapshot.rev }, meta, ...this.#durabilityOption() });
    if (result.status === 'accepted') snapshot.index.apply(result.transition);
  }

  #durabilityOption(): { durability?: Durability } {
    return this.#durability === undefined ? {} : { durability: this.#durability };
  }

  /** A tuple of `entry`, or `undefined` when compaction removed it since it was indexed. */
  async #tuple(ref: NamespaceRef, snapshot: Snapshot, entry: CheckpointEntry): Promise<CheckpointTuple | undefined> {
    let state: JsonObject;
    try {
      state = await this.#stateOf(snapshot, entry);
    } catch (err) {
      if (isStateflowError(err, 'HISTORY_NOT_RETAINED')) return undefined;
      throw err;
    }
    const decoded = await decodeCheckpoint(this.#decodeContext(snapshot), state);
    const tuple: CheckpointTuple = {
      config: { configurable: { thread_id: ref.threadId, checkpoint_ns: ref.checkpointNs, checkpoint_id: entry.id } },
      checkpoint: decoded.checkpoint,
      metadata: await loadMetadata(this.serde, entry.metadata),
      pendingWrites: decoded.pendingWrites,
    };
    if (decoded.parentId !== undefined) {
      tuple.parentConfig = { configurable: { thread_id: ref.threadId, checkpoint_ns: ref.checkpointNs, checkpoint_id: decoded.parentId } };
    }
    return tuple;
  }

  #decodeContext(snapshot: Snapshot): DecodeContext {
    return {
      serde: this.serde,
      parentWrites: async (parentId) => {
        const parent = await snapshot.index.get(parentId);
        return parent === undefined ? [] : decodeWrites(this.serde, (await this.#stateOf(snapshot, parent))['writes']);
      },
      firstVersion: () => this.getNextVersion(undefined),
    };
  }

  async #matches(entry: CheckpointEntry, filter: Record<string, unknown>): Promise<boolean> {
    const metadata = ((await loadMetadata(this.serde, entry.metadata)) ?? {}) as Record<string, unknown>;
    return Object.entries(filter).every(([key, value]) => isDeepStrictEqual(metadata[key], value));
  }

  /** The namespaces `list` walks for `config`, in stream order. */
  async #listedNamespaces(config: RunnableConfig): Promise<NamespaceRef[]> {
    const threadId = configurable(config)['thread_id'];
    const checkpointNs = configurable(config)['checkpoint_ns'];
    if (threadId !== undefined && checkpointNs !== undefined) return [namespaceRef(threadIdText(threadId), namespaceText(checkpointNs))];
    const root = threadId === undefined ? undefined : threadStream(identifier(threadIdText(threadId), 'thread_id'));
    const refs: NamespaceRef[] = [];
    for (const { stream } of await this.store.streams()) {
      if (root !== undefined && !belongsToThread(stream, root)) continue;
      const ref = parseStream(stream);
      if (ref !== null && (checkpointNs === undefined || ref.checkpointNs === checkpointNs)) refs.push(ref);
    }
    return refs;
  }
}

function configurable(config: RunnableConfig | undefined): Record<string, unknown> {
  const c = config?.configurable;
  return typeof c === 'object' && c !== null ? (c as Record<string, unknown>) : {};
}

/** The namespace a config names, or `undefined` without a `thread_id` (reads return nothing). */
function optionalRef(config: RunnableConfig): NamespaceRef | undefined {
  const threadId = configurable(config)['thread_id'];
  if (threadId === undefined || threadId === null) return undefined;
  return namespaceRef(threadIdText(threadId), namespaceText(configurable(config)['checkpoint_ns']));
}

/** The namespace a writing config names. @throws `INPUT_INVALID` `{ field: 'thread_id' }` */
function requiredRef(config: RunnableConfig, method: string): NamespaceRef {
  const ref = optionalRef(config);
  if (ref === undefined) {
    throw new StateflowError(
      'INPUT_INVALID',
      `${method} needs config.configurable.thread_id: pass { configurable: { thread_id: "…" } } when invoking the graph`,
      { field: 'thread_id', reason: 'missing' },
    );
  }
  return ref;
}

function threadIdText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  throw new StateflowError('INPUT_INVALID', `thread_id must be a string, got ${typeof value}`, { field: 'thread_id', reason: 'not-string' });
}

function namespaceText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  throw new StateflowError('INPUT_INVALID', `checkpoint_ns must be a string, got ${typeof value}`, { field: 'checkpoint_ns', reason: 'not-string' });
}

/** A non-empty, well-formed id. @throws `INPUT_INVALID` `{ field, reason }` */
function identifier(value: unknown, field: string): string {
  if (typeof value !== 'string' || value === '') {
    throw new StateflowError('INPUT_INVALID', `${field} must be a non-empty string, got ${value === '' ? 'an empty string' : typeof value}`, { field, reason: 'missing' });
  }
  if (!isWellFormed(value)) throw new StateflowError('INPUT_INVALID', `${field} is not well-formed Unicode (lone surrogate)`, { field, reason: 'lone-surrogate' });
  return value;
}
