/**
 * `StateflowSaver`: a LangGraph.js checkpointer over a Stateflow store (README).
 *
 * Each thread and checkpoint namespace is one stream; each checkpoint is one revision whose
 * state is that checkpoint (net patch: what changed since the revision before); each
 * `putWrites` batch is a revision that adds the batch to its checkpoint's state. The LangGraph
 * metadata of a checkpoint is its transition's meta. So `stateflow log --stream langgraph:<thread>`
 * is the thread's history, `stateflow diff` shows what a step changed, and `audit` verifies it.
 */
import { BaseCheckpointSaver, getCheckpointId } from '@langchain/langgraph-checkpoint';
import type {
  ChannelVersions,
  Checkpoint,
  CheckpointListOptions,
  CheckpointMetadata,
  CheckpointTuple,
  DeltaChannelHistory,
  PendingWrite,
  SerializerProtocol,
} from '@langchain/langgraph-checkpoint';
import type { RunnableConfig } from '@langchain/core/runnables';
import { StateflowError } from '@stateflow/core';
import { SerialQueue, checkShapeSelector, retryOnConflict } from '@stateflow/store';
import type { Durability, ShapeSelector, Store } from '@stateflow/store';
import { CheckpointConflictError } from './checkpoint-conflict.js';
import { checkpointTuple, listedNamespaces, metadataMatches } from './internal/checkpoint-tuples.js';
import { deleteAttempt, compactThread, threadStreams } from './internal/delete-thread.js';
import { deltaChannelHistory } from './internal/delta-history.js';
import { keepLatest } from './internal/prune-thread.js';
import { copyStreams, deleteRunsFrom } from './internal/replay-revisions.js';
import { HeadLeases } from './internal/head-leases.js';
import { NamespaceSnapshots } from './internal/namespace-snapshots.js';
import { putAttempt } from './internal/put-checkpoint.js';
import { writesAttempt } from './internal/put-writes.js';
import { storedWrites } from './internal/revision-state.js';
import type { SaverContext } from './internal/saver-context.js';
import { identifier, optionalRef, requiredRef } from './internal/saver-input.js';
import { namespaceRef, parseStream } from './internal/stream-names.js';
import { putMeta, writesMeta } from './internal/transition-meta.js';

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
  /**
   * The shape every checkpoint is read in (README "Shapes"): `'current'` (default: a thread
   * written under an older version of the `langgraph:*` family's shape resumes upcast to the
   * latest, as the graph that resumes it expects), `'stored'` (the states as written), or a
   * version number ≥ 1 (reading only: a put computed on a state in an older version is refused
   * by the store's write check). A namespace no shape governs reads the same in each.
   */
  shape?: ShapeSelector;
}

/** Publishes retried after losing a CAS to a write that does not conflict (a writes batch, a branch). */
const MAX_ATTEMPTS = 16;

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
  readonly #ctx: SaverContext;
  /**
   * One write at a time per stream, in call order: a saver's writes to one stream read the
   * head, compute a net patch against it and publish with that head as the expected revision;
   * queued, a saver's own calls never fail each other's CAS, and LangGraph's order (a task's
   * writes before the next checkpoint) is the log's.
   */
  readonly #queue = new SerialQueue();

  /**
   * @param store the Stateflow store that holds the checkpoints (`openStore(dir)`,
   *   `openMemoryStore()`, or any other `Store`).
   * @param options `fencing` (default `true`), `serde`, `durability`, `shape` (default `'current'`).
   * @throws StateflowError `INPUT_INVALID` `{ field: 'shape' }` for a shape that is not `'stored'`,
   *   `'current'` or a version number ≥ 1.
   */
  constructor(store: Store, options: StateflowSaverOptions = {}) {
    super(options.serde);
    const shape = options.shape ?? 'current';
    checkShapeSelector(shape);
    this.store = store;
    this.#ctx = {
      store,
      serde: this.serde,
      durability: options.durability,
      fencing: options.fencing ?? true,
      leases: new HeadLeases(),
      snapshots: new NamespaceSnapshots(store, shape),
      firstVersion: () => this.getNextVersion(undefined),
    };
  }

  /**
   * The checkpoint `config` names (`checkpoint_id`), or the namespace's head (its most recently
   * put checkpoint) without one. `undefined` when there is none, or when `config` has no
   * `thread_id`. A checkpoint id is a point read through the namespace's index stream, in any
   * process.
   */
  async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    const ref = optionalRef(config);
    if (ref === undefined) return undefined;
    const id = getCheckpointId(config) || undefined;
    const snapshot = await this.#ctx.snapshots.take(ref.stream);
    const head = await snapshot.index.head();
    const entry = id === undefined ? head : await snapshot.index.get(id);
    const { leases } = this.#ctx;
    if (entry === undefined) {
      if (id === undefined) leases.grant(ref.stream, undefined);
      return undefined;
    }
    if (entry === head) leases.grant(ref.stream, entry.id);
    else leases.release(ref.stream, entry.id);
    return checkpointTuple(this.#ctx, ref, snapshot, entry);
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
    for (const ref of await listedNamespaces(this.#ctx, config)) {
      const snapshot = await this.#ctx.snapshots.take(ref.stream);
      for await (const entry of snapshot.index.newestFirst()) {
        if (onlyId !== undefined && entry.id !== onlyId) continue;
        if (beforeId !== undefined && !(entry.id < beforeId)) continue;
        if (filter !== undefined && !(await metadataMatches(this.#ctx, entry, filter))) continue;
        if (limit !== undefined && limit-- <= 0) return;
        const tuple = await checkpointTuple(this.#ctx, ref, snapshot, entry);
        if (tuple !== undefined) yield tuple;
      }
    }
  }

  /**
   * Store `checkpoint` as a child of `config.configurable.checkpoint_id` (a first checkpoint
   * without one), with the channel values named by `newVersions`; other channels keep the
   * parent's values while their version is unchanged. One revision, one transition whose meta
   * carries `metadata` (and whose index-stream entry says where the checkpoint is); one store
   * call (one round trip to a remote store) unless another writer came between.
   * @throws StateflowError `INPUT_INVALID` for a config without `thread_id` or a checkpoint
   *   without an `id`; {@link CheckpointConflictError} (`CONFLICT`) when fencing refuses it.
   */
  async put(config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata, newVersions: ChannelVersions): Promise<RunnableConfig> {
    const ref = requiredRef(config, 'put');
    const id = identifier(checkpoint?.id, 'checkpoint.id');
    const parentId = getCheckpointId(config) || undefined;
    const meta = await putMeta(this.serde, { threadId: ref.threadId, checkpointNs: ref.checkpointNs, checkpointId: id, parentId }, metadata);
    const request = { ref, checkpoint, id, parentId, newVersions: newVersions ?? {}, meta };
    await this.#queue.run(ref.stream, async () => {
      // A fencing refusal is a CONFLICT too, but a final one: looking again would not change it.
      await retryOnConflict({ attempts: MAX_ATTEMPTS, retryable: (err) => !(err instanceof CheckpointConflictError) }, (attempt) => putAttempt(this.#ctx, request, attempt));
      this.#ctx.leases.grant(ref.stream, id);
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
    await this.#queue.run(ref.stream, () => retryOnConflict({ attempts: MAX_ATTEMPTS }, (attempt) => writesAttempt(this.#ctx, ref.stream, id, batch, meta, attempt)));
  }

  /**
   * Delete every checkpoint and write of a thread, in all its namespaces: one transition sets
   * each of its streams to `{}` (meta `{ langgraph: { op: 'delete' } }`), then each stream is
   * compacted to that revision, so the data is gone from the store (pruned stubs keep the hash
   * chain verifiable). Nothing to do for an unknown thread.
   */
  async deleteThread(threadId: string): Promise<void> {
    const streams = await threadStreams(this.#ctx, identifier(threadId, 'thread_id'));
    await this.#queue.runAll(streams, async () => {
      await retryOnConflict({ attempts: MAX_ATTEMPTS }, () => deleteAttempt(this.#ctx, threadId, streams));
      await compactThread(this.#ctx, streams);
    });
  }

  /**
   * Prune threads (README "Pruning threads"; the shape of LangGraph's `prune`): with `strategy:
   * 'delete'` each thread is deleted as {@link StateflowSaver.deleteThread} does; with
   * `'keep_latest'` (the default) each namespace keeps its most recent checkpoint and the
   * writes after it — `getTuple` and `list` then find that checkpoint and nothing older, and
   * the head is untouched, so write fencing and the next put go on as before. Unknown threads
   * are skipped.
   * @throws StateflowError `INPUT_INVALID` for a thread id that cannot name a stream or an
   *   unknown strategy, before anything is pruned.
   */
  async prune(threadIds: readonly string[], options: { strategy?: 'keep_latest' | 'delete' } = {}): Promise<void> {
    const ids = threadIds.map((id) => identifier(id, 'thread_id'));
    if (options.strategy !== undefined && options.strategy !== 'keep_latest' && options.strategy !== 'delete') {
      throw new StateflowError('INPUT_INVALID', `prune strategy ${JSON.stringify(options.strategy)} is neither 'keep_latest' nor 'delete'`, { field: 'strategy', reason: 'unknown' });
    }
    for (const threadId of ids) {
      if (options.strategy === 'delete') {
        await this.deleteThread(threadId);
        continue;
      }
      const streams = await threadStreams(this.#ctx, threadId);
      await this.#queue.runAll(streams, () => keepLatest(this.#ctx, streams));
    }
  }

  /**
   * Copy a thread (README "Copying a thread, deleting runs"; the shape of LangGraph's
   * `copyThread`): every checkpoint `fromThreadId` still lists, in every namespace, with its
   * pending writes and metadata, becomes a checkpoint of `toThreadId` with the same id, listed
   * in the same order and found by id (time travel on the copy as on the source). Each copied
   * revision is published again (the target's own revisions, meta `thread_id` rewritten); the
   * source is untouched. An unknown source copies nothing.
   * @throws StateflowError `INPUT_INVALID` `{ field, reason }` for an id that cannot name a
   *   stream, the same thread twice (`reason: 'same-thread'`), or a target that already has
   *   checkpoints (`field: 'to_thread_id', reason: 'not-empty'`), before anything is written;
   *   `CONFLICT` when another writer publishes on the target during the copy.
   */
  async copyThread(fromThreadId: string, toThreadId: string): Promise<void> {
    const from = identifier(fromThreadId, 'from_thread_id');
    const to = identifier(toThreadId, 'to_thread_id');
    if (from === to) throw new StateflowError('INPUT_INVALID', `copyThread: from and to are the same thread ${JSON.stringify(from)}`, { field: 'to_thread_id', reason: 'same-thread' });
    const sources = await threadStreams(this.#ctx, from);
    const targets = sources.map((s) => namespaceRef(to, parseStream(s)?.checkpointNs ?? '').stream);
    const existing = await threadStreams(this.#ctx, to);
    await this.#queue.runAll([...sources, ...targets, ...existing], () => copyStreams(this.#ctx, sources, targets, to));
  }

  /**
   * Delete every checkpoint whose LangGraph metadata has a `run_id` in `runIds`, with its
   * writes, in every thread and namespace (README "Copying a thread, deleting runs"; the shape
   * of LangGraph's `deleteForRuns`). A namespace holding one is rewritten: one transition clears
   * it, its other checkpoints are published again in their order (same ids, writes, metadata),
   * and the old revisions are compacted away, so the removed checkpoints leave the store and
   * `audit` stays clean. When the head checkpoint was removed the head is the newest kept one,
   * and a writer still continuing the removed head is refused by write fencing. Unknown or no
   * run ids change nothing. Reads every namespace's retained log to find the runs.
   * @throws StateflowError `INPUT_INVALID` for a run id that is not a non-empty string, before
   *   anything is written; `CONFLICT` when another writer keeps publishing on a namespace.
   */
  async deleteForRuns(runIds: readonly string[]): Promise<void> {
    const runs = new Set(runIds.map((id) => identifier(id, 'run_id')));
    if (runs.size === 0) return;
    for (const { stream } of await this.store.streams()) {
      const ref = parseStream(stream);
      if (ref === null) continue;
      await this.#queue.run(stream, () => deleteRunsFrom(this.#ctx, stream, ref.threadId, runs));
    }
  }

  /**
   * The delta-channel walk of `BaseCheckpointSaver` (same result), over the stream's index
   * instead of one `getTuple` per ancestor, and without counting as a read for write fencing.
   */
  override async getDeltaChannelHistory(options: { config: RunnableConfig; channels: string[] }): Promise<Record<string, DeltaChannelHistory>> {
    const { config, channels } = options;
    if (channels.length === 0) return {};
    const ref = optionalRef(config);
    if (ref === undefined) return deltaChannelHistory(this.#ctx, undefined, undefined, channels);
    const snapshot = await this.#ctx.snapshots.take(ref.stream);
    const target = (getCheckpointId(config) || undefined) ?? (await snapshot.index.head())?.id;
    return deltaChannelHistory(this.#ctx, snapshot, target, channels);
  }
}
