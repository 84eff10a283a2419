/**
 * A store that a long-running server keeps usable after a failed write (store README "Fail
 * closed"). After any failed storage write the store accepts no write until it is reopened
 * (`REOPEN_REQUIRED`), because LevelDB would lose writes accepted after a torn append. A library
 * caller reopens by hand; a server must not stay broken, so on the next write after such a
 * failure this wrapper closes the store, opens it again — which checks its files and replays
 * exactly the acknowledged transitions — and runs the write on the reopened store.
 *
 * One process cannot open a LevelDB directory twice, so a reopen closes the store first. While
 * `canReopen` says a reopen would fail (a disk still full), the wrapper keeps the stale store:
 * reads and watches are served from it (it holds every acknowledged transition), and writes
 * answer its `REOPEN_REQUIRED`. A reopen that fails all the same (damaged files) answers that
 * write with its error; the next call tries again. Reads and watches carry on across a reopen;
 * a watch resumes after the last transition it yielded.
 */
import { isStateflowError } from '@stateflow/core';
import type { JsonObject, JsonValue, PatchPathStep } from '@stateflow/core';
import { NamedLocks, outlinesOf } from '@stateflow/store';
import type {
  AuditReport,
  BackendLock,
  LockAttempt,
  PoolUse,
  ForkOptions,
  MergeInput,
  UndoInput,
  UndoResult,
  MergeResult,
  PublishInput,
  PublishManyOptions,
  PublishResult,
  Store,
  StoreView,
  StreamHead,
  StreamId,
  ShapeReadOptions,
  Transition,
  TransitionOutline,
  WatchOptions,
} from '@stateflow/store';

/** Options of {@link reopeningStore}. */
export interface ReopeningOptions {
  /**
   * Whether a reopen can succeed now (for a LevelDB store, `hasRoomToReopen(dir)` of
   * `@stateflow/store-leveldb`); until it says so, the stale store keeps serving reads. Default: always.
   */
  canReopen?: () => Promise<boolean>;
}

/**
 * Wrap `store` so that a write refused with `REOPEN_REQUIRED` reopens it with `open` and runs
 * again. The wrapper owns the store: `close()` closes whichever store is current.
 */
export function reopeningStore(store: Store, open: () => Promise<Store>, options: ReopeningOptions = {}): Store {
  return new ReopeningStore(store, open, options.canReopen ?? (() => Promise.resolve(true)));
}

class ReopeningStore implements Store {
  readonly location: string | null;
  #store: Store | null;
  #lastSeq: number;
  #reopening: Promise<Store> | null = null;
  #closed = false;
  readonly #open: () => Promise<Store>;
  readonly #canReopen: () => Promise<boolean>;
  /** This process's lock holders, in order across reopens (a reopened store's own locks start empty). */
  readonly #locks: NamedLocks;

  constructor(store: Store, open: () => Promise<Store>, canReopen: () => Promise<boolean>) {
    this.#store = store;
    this.#open = open;
    this.#canReopen = canReopen;
    this.#locks = new NamedLocks(this.#currentLock());
    this.location = store.location;
    this.#lastSeq = store.lastSeq();
  }

  /** The notices of the store's latest open. */
  get notices(): Store['notices'] {
    return this.#store?.notices ?? [];
  }

  connections(): readonly PoolUse[] {
    return this.#store?.connections?.() ?? [];
  }

  lastSeq(): number {
    return this.#store?.lastSeq() ?? this.#lastSeq;
  }

  head(stream: StreamId): Promise<StreamHead> {
    return this.#read((s) => s.head(stream));
  }

  streams(): Promise<StreamHead[]> {
    return this.#read((s) => s.streams());
  }

  state(stream: StreamId): Promise<JsonObject> {
    return this.#read((s) => s.state(stream));
  }

  view(streams: StreamId[]): Promise<StoreView> {
    return this.#read((s) => s.view(streams));
  }

  stateAt(stream: StreamId, rev: number, options?: ShapeReadOptions): Promise<JsonObject> {
    return this.#read((s) => s.stateAt(stream, rev, options));
  }

  valueAt(stream: StreamId, rev: number, path: readonly PatchPathStep[]): Promise<JsonValue | undefined> {
    return this.#read((s) => s.valueAt(stream, rev, path));
  }

  patchAt(stream: StreamId, rev: number): Promise<JsonObject> {
    return this.#read((s) => s.patchAt(stream, rev));
  }

  revisionSeq(stream: StreamId, rev: number): Promise<number> {
    return this.#read((s) => s.revisionSeq(stream, rev));
  }

  statesAt(streams: StreamId[], seq: number): Promise<Record<StreamId, JsonObject>> {
    return this.#read((s) => s.statesAt(streams, seq));
  }

  effectiveAt(streams: StreamId[], seq: number): Promise<JsonObject> {
    return this.#read((s) => s.effectiveAt(streams, seq));
  }

  transition(seq: number): Promise<Transition> {
    return this.#read((s) => s.transition(seq));
  }

  async *transitions(range?: { from?: number; to?: number; stream?: StreamId } & ShapeReadOptions): AsyncIterable<Transition> {
    yield* (await this.#current()).transitions(range);
  }

  async *transitionOutlines(range: { from: number; to: number }): AsyncIterable<TransitionOutline> {
    yield* outlinesOf(await this.#current(), range.from, range.to);
  }

  diff(stream: StreamId, revA: number, revB: number, options?: ShapeReadOptions): Promise<JsonObject> {
    return this.#read((s) => s.diff(stream, revA, revB, options));
  }

  audit(options?: { onProgress?: (done: number, total: number) => void }): Promise<AuditReport> {
    return this.#read((s) => s.audit(options));
  }

  publish(input: PublishInput): Promise<PublishResult> {
    return this.#write((s) => s.publish(input));
  }

  publishMany(inputs: PublishInput[], options?: PublishManyOptions): Promise<PublishResult[]> {
    return this.#write((s) => s.publishMany(inputs, options));
  }

  compact(stream: StreamId, options: { keepRevisions: number }): Promise<{ origin: number; deleted: number }> {
    return this.#write((s) => s.compact(stream, options));
  }

  reclaimSpace(): Promise<void> {
    return this.#write(async (s) => s.reclaimSpace?.());
  }

  fork(from: StreamId, to: StreamId, options?: ForkOptions): Promise<PublishResult> {
    return this.#write((s) => s.fork(from, to, options));
  }

  revert(stream: StreamId, toRev: number): Promise<PublishResult> {
    return this.#write((s) => s.revert(stream, toRev));
  }

  merge(input: MergeInput): Promise<MergeResult> {
    return this.#write((s) => s.merge(input));
  }

  undo(input: UndoInput): Promise<UndoResult> {
    return this.#write((s) => s.undo(input));
  }

  append(transition: Transition): Promise<void> {
    return this.#write((s) => s.append(transition));
  }

  appendMany(transitions: Transition[]): Promise<void> {
    return this.#write((s) => s.appendMany(transitions));
  }

  /** Queued in this wrapper across reopens, then holding the current store's lock (see {@link #currentLock}). */
  withLock<T>(name: string, fn: () => Promise<T>): Promise<T> {
    return this.#locks.run(name, fn);
  }

  withLockIfFree<T>(name: string, fn: () => Promise<T>, options?: { local?: 'decline' | 'wait' }): Promise<LockAttempt<T>> {
    return this.#locks.runIfFree(name, fn, options);
  }

  /** Yields across reopens: when the store under it is reopened, it resumes after the last seq it yielded. */
  async *watch(options: WatchOptions = {}): AsyncIterable<Transition> {
    let from = options.from ?? this.lastSeq();
    for (;;) {
      const store = await this.#current();
      for await (const t of store.watch({ ...options, from })) {
        from = t.seq;
        yield t;
      }
      if (this.#closed || options.signal?.aborted === true || store === this.#store) return;
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#reopening?.catch(() => undefined);
    await this.#store?.close();
  }

  async #read<T>(fn: (store: Store) => Promise<T>): Promise<T> {
    return fn(await this.#current());
  }

  async #write<T>(fn: (store: Store) => Promise<T>): Promise<T> {
    const store = await this.#current();
    try {
      return await fn(store);
    } catch (err) {
      if (!isStateflowError(err, 'REOPEN_REQUIRED') || this.#closed) throw err;
      // Closing the stale store before a reopen that cannot succeed would leave no store to read.
      if (!(await this.#canReopen())) throw err;
      return fn(await this.#reopen(store));
    }
  }

  /**
   * The current store's lock of a name as the backend lock of this wrapper's queue: held from
   * the moment the store's `withLock` runs its function until released (a shared store's lock
   * spans processes; a LevelDB store's adds nothing to the queue in front of it).
   */
  #currentLock(): BackendLock {
    return async (name, { wait }) => {
      const store = await this.#current();
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      let entered!: () => void;
      const inside = new Promise<boolean>((resolve) => (entered = () => resolve(true)));
      const hold = async (): Promise<void> => {
        entered();
        await released;
      };
      const holding = wait ? store.withLock(name, hold).then(() => true) : store.withLockIfFree(name, hold, { local: 'wait' }).then((attempt) => attempt.ran);
      if (!(await Promise.race([inside, holding]))) return null;
      return {
        release: async () => {
          release();
          await holding.catch(() => undefined);
        },
      };
    };
  }

  /** The store to use now: waits for a reopen in progress, and retries one that failed. */
  async #current(): Promise<Store> {
    if (this.#reopening !== null) return this.#reopening;
    if (this.#store !== null) return this.#store;
    return this.#reopen(null);
  }

  /** Close `stale` (if it is still the current store) and open the store again, once for all callers. */
  #reopen(stale: Store | null): Promise<Store> {
    if (this.#reopening !== null) return this.#reopening;
    if (this.#store !== stale && this.#store !== null) return Promise.resolve(this.#store);
    const reopening = (async () => {
      if (stale !== null) {
        this.#lastSeq = stale.lastSeq();
        this.#store = null;
        await stale.close();
      }
      const store = await this.#open();
      this.#store = store;
      return store;
    })();
    this.#reopening = reopening;
    const done = (): void => {
      if (this.#reopening === reopening) this.#reopening = null;
    };
    reopening.then(done, done);
    return reopening;
  }
}
