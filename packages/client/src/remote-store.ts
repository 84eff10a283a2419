/**
 * `openRemoteStore`: the store of a running `stateflow serve` as a {@link Store}, through the
 * server's store endpoints (`/v1/store/…`, `/v1/watch`; server README "Store API"). Code written
 * against `Store` — the tools runtime, the CLI's commands, a LangGraph checkpointer — runs
 * unchanged against a store that another process holds: that process stays the one writer and
 * every publish is still one CAS transition decided under its lock.
 */
import { freeze } from 'immer';
import { StateTree, StateflowError } from '@stateflow/core';
import type { JsonObject, JsonValue, PatchPathStep } from '@stateflow/core';
import type {
  AuditReport,
  ForkOptions,
  MergeInput,
  UndoInput,
  UndoResult,
  MergeResult,
  PublishInput,
  PublishManyOptions,
  PublishResult,
  Store,
  StoreNotice,
  StoreView,
  StreamHead,
  StreamId,
  ShapeReadOptions,
  Transition,
  WatchOptions,
} from '@stateflow/store';
import { NamedLocks, diffInShape, shaped, stateAtShape, transitionsInShape } from '@stateflow/store';
import type { LockAttempt } from '@stateflow/store';
import type { HttpRoutes, RouteReply, ShownTransition } from '@stateflow/http-contract';
import type { ServerEndpoint } from './http-call.js';
import { callRoute } from './route-call.js';
import type { RouteCallOptions, RouteName } from './route-call.js';
import { watchTransitions } from './watch-client.js';

/** Options of {@link openRemoteStore}. */
export interface RemoteStoreOptions extends ServerEndpoint {
  /**
   * Time one request may take, in ms, before it fails with `STORE_UNAVAILABLE` (audits have no
   * limit). Default 60,000.
   */
  timeoutMs?: number;
}

/**
 * What `GET /v1/server` answers: the server's `version` and last accepted seq (`lastSeq`); for
 * the store's owner (token, or no API keys) also the store directory (`dir`) and the server's
 * process id (`pid`).
 */
export type ServerInfo = RouteReply<HttpRoutes['GET /v1/server']>;

/** Transitions per page of `GET /v1/store/transitions` asked by {@link Store.transitions}. */
const PAGE = 1000;

/**
 * Connect to the store served at `options.url` (checks the server answers `GET /v1/server`).
 *
 * The returned store behaves as the served one, with these differences: `lastSeq()` is the last
 * seq any answer of that server reported (it may lag writes made by other clients until the
 * next call), and a `watch` without `from` starts there; `append`, `appendMany` and `audit` are for the store's owner (the token) only; `audit`'s `onProgress` is called once, at the end; with API keys only the caller's own
 * session streams exist. A request that cannot reach the server fails with
 * `STORE_UNAVAILABLE` (`details.outcome` says whether it may have been applied).
 *
 * @throws StateflowError `STORE_UNAVAILABLE` when the server cannot be reached; `UNAUTHORIZED`
 *   when it needs a token or key that was not given.
 */
export async function openRemoteStore(options: RemoteStoreOptions): Promise<Store> {
  const store = new RemoteStore(options);
  const info = await store.info();
  store.location = info.dir ?? null;
  return store;
}

class RemoteStore implements Store {
  location: string | null = null;
  /** What the server's open found is the server's to print (it did, in its log): none here. */
  readonly notices: readonly StoreNotice[] = [];
  #lastSeq = 0;
  #closed = false;
  readonly #endpoint: ServerEndpoint;
  readonly #timeoutMs: number | undefined;
  readonly #watches = new Set<AbortController>();
  /** Locks of this process only: the server orders its own writers, and its store's CAS decides. */
  readonly #locks = new NamedLocks();

  constructor(options: RemoteStoreOptions) {
    const { url, token, apiKey, surface, client } = options;
    this.#endpoint = { url, ...(token === undefined ? {} : { token }), ...(apiKey === undefined ? {} : { apiKey }), ...(surface === undefined ? {} : { surface }), ...(client === undefined ? {} : { client }) };
    this.#timeoutMs = options.timeoutMs;
  }

  async info(): Promise<ServerInfo> {
    const info = await this.#call('GET /v1/server');
    this.#lastSeq = Math.max(this.#lastSeq, info.lastSeq);
    return info;
  }

  lastSeq(): number {
    return this.#lastSeq;
  }

  head(stream: StreamId): Promise<StreamHead> {
    return this.#call('GET /v1/store/head', { query: { stream } });
  }

  async streams(): Promise<StreamHead[]> {
    return (await this.#call('GET /v1/store/streams')).streams;
  }

  async state(stream: StreamId): Promise<JsonObject> {
    return frozen((await this.#call('GET /v1/store/state', { query: { stream } })).state);
  }

  async view(streams: StreamId[]): Promise<StoreView> {
    return frozen(await this.#call('POST /v1/store/view', { body: { streams } }));
  }

  /** In a shape other than `stored`, upcast here: the shape's operations are data read from `stateflow:shapes`. */
  async stateAt(stream: StreamId, rev: number, options?: ShapeReadOptions): Promise<JsonObject> {
    if (shaped(options)) return stateAtShape(this, stream, rev, options.shape);
    return frozen((await this.#call('GET /v1/store/state', { query: { stream, rev: number(rev) } })).state);
  }

  /** Over HTTP the state at `rev` is read whole and the value taken from it (no route reads a path alone yet). */
  async valueAt(stream: StreamId, rev: number, path: readonly PatchPathStep[]): Promise<JsonValue | undefined> {
    return StateTree.of(await this.stateAt(stream, rev)).valueAt(path);
  }

  async patchAt(stream: StreamId, rev: number): Promise<JsonObject> {
    return frozen((await this.#call('GET /v1/store/patch', { query: { stream, rev: number(rev) } })).patch);
  }

  async revisionSeq(stream: StreamId, rev: number): Promise<number> {
    return (await this.#call('GET /v1/store/revision-seq', { query: { stream, rev: number(rev) } })).seq;
  }

  async statesAt(streams: StreamId[], seq: number): Promise<Record<StreamId, JsonObject>> {
    return frozen((await this.#call('POST /v1/store/states-at', { body: { streams, seq } })).states);
  }

  async effectiveAt(streams: StreamId[], seq: number): Promise<JsonObject> {
    return frozen((await this.#call('POST /v1/store/effective-at', { body: { streams, seq } })).state);
  }

  async publish(input: PublishInput): Promise<PublishResult> {
    return shownResult<PublishResult>(await this.#call('POST /v1/store/publish', { body: input }));
  }

  /**
   * One request, at most 1,000 inputs (the server answers `INPUT_INVALID` beyond). The server's
   * own staging budget applies (`workBudgetMs`), not `options.budgetMs`.
   */
  async publishMany(inputs: PublishInput[], _options?: PublishManyOptions): Promise<PublishResult[]> {
    return (await this.#call('POST /v1/store/publish-many', { body: { inputs } })).results.map((result) => shownResult<PublishResult>(result));
  }

  async transition(seq: number): Promise<Transition> {
    return shownAsTransition(await this.#call('GET /v1/store/transitions/:seq', { params: { seq: number(seq) } }));
  }

  async *transitions(range: { from?: number; to?: number; stream?: StreamId } & ShapeReadOptions = {}): AsyncIterable<Transition> {
    if (shaped(range)) {
      yield* transitionsInShape(this, { from: range.from, to: range.to, stream: range.stream }, range.shape);
      return;
    }
    let from = range.from;
    // The end defaults to the last seq at the call, as the local store's does: the first page
    // fixes it for the pages after it.
    let to = range.to;
    for (;;) {
      const page = await this.#call('GET /v1/store/transitions', { query: { from: optional(from), to: optional(to), stream: range.stream, limit: PAGE } });
      to ??= page.to;
      yield* page.transitions.map(shownAsTransition);
      if (page.next === null) return;
      from = page.next;
    }
  }

  async diff(stream: StreamId, revA: number, revB: number, options?: ShapeReadOptions): Promise<JsonObject> {
    if (shaped(options)) return diffInShape(this, stream, revA, revB, options.shape);
    return frozen((await this.#call('GET /v1/store/diff', { query: { stream, from: number(revA), to: number(revB) } })).patch);
  }

  compact(stream: StreamId, options: { keepRevisions: number }): Promise<{ origin: number; deleted: number }> {
    return this.#call('POST /v1/store/compact', { body: { stream, keepRevisions: options?.keepRevisions } });
  }

  async fork(from: StreamId, to: StreamId, options: ForkOptions = {}): Promise<PublishResult> {
    return shownResult<PublishResult>(await this.#call('POST /v1/store/fork', { body: { from, to, ...options } }));
  }

  async revert(stream: StreamId, toRev: number): Promise<PublishResult> {
    return shownResult<PublishResult>(await this.#call('POST /v1/store/revert', { body: { stream, rev: toRev } }));
  }

  /** `POST /v1/store/merge`; a `MERGE_CONFLICT` arrives as the server's typed error, its conflicts in `details`. */
  async merge(input: MergeInput): Promise<MergeResult> {
    return frozen(shownResult<MergeResult>(await this.#call('POST /v1/store/merge', { body: input })));
  }

  /** `POST /v1/store/undo`; an `UNDO_CONFLICT` arrives as the server's typed error, its conflicts in `details`. */
  async undo(input: UndoInput): Promise<UndoResult> {
    return frozen(shownResult<UndoResult>(await this.#call('POST /v1/store/undo', { body: input })));
  }

  /** One request, at most 1,000 transitions (the server answers `INPUT_INVALID` beyond). */
  async appendMany(transitions: Transition[]): Promise<void> {
    await this.#call('POST /v1/store/append-many', { body: { transitions } });
  }

  async append(transition: Transition): Promise<void> {
    await this.#call('POST /v1/store/append', { body: { transition } });
  }

  async audit(options: { onProgress?: (done: number, total: number) => void } = {}): Promise<AuditReport> {
    const report = await this.#call('POST /v1/store/audit', { body: {}, timeoutMs: null });
    options.onProgress?.(report.transitions, report.transitions);
    return report;
  }

  watch(options: WatchOptions = {}): AsyncIterable<Transition> {
    this.#open();
    // As a local store's: without `from` the watch starts at the last seq known at the call
    // (here the last one this client has seen), not when iteration begins.
    return this.#follow(options.from ?? this.#lastSeq, options);
  }

  async *#follow(from: number, options: WatchOptions): AsyncIterable<Transition> {
    const abort = new AbortController();
    this.#watches.add(abort);
    const stop = (): void => abort.abort();
    options.signal?.addEventListener('abort', stop, { once: true });
    try {
      for await (const event of watchTransitions(this.#endpoint, {
        from,
        signal: abort.signal,
        ...(options.streams === undefined ? {} : { streams: options.streams }),
      })) {
        this.#lastSeq = Math.max(this.#lastSeq, event.seq);
        yield shownAsTransition(event);
      }
    } finally {
      options.signal?.removeEventListener('abort', stop);
      this.#watches.delete(abort);
    }
  }

  withLock<T>(name: string, fn: () => Promise<T>): Promise<T> {
    this.#open();
    return this.#locks.run(name, fn);
  }

  withLockIfFree<T>(name: string, fn: () => Promise<T>, options?: { local?: 'decline' | 'wait' }): Promise<LockAttempt<T>> {
    this.#open();
    return this.#locks.runIfFree(name, fn, options);
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const watch of this.#watches) watch.abort();
  }

  #open(): void {
    if (this.#closed) throw new StateflowError('STORE_CLOSED', 'This remote store was closed; open it again with openRemoteStore.', {});
  }

  async #call<R extends RouteName>(route: R, options: RouteCallOptions<R> = {}): Promise<RouteReply<HttpRoutes[R]>> {
    this.#open();
    const { body, lastSeq } = await callRoute(this.#endpoint, route, {
      ...options,
      ...(options.timeoutMs === undefined && this.#timeoutMs !== undefined ? { timeoutMs: this.#timeoutMs } : {}),
    });
    if (lastSeq !== null) this.#lastSeq = Math.max(this.#lastSeq, lastSeq);
    return body;
  }
}

/**
 * A transition as the `Store` interface types it. The server leaves the hashes out of one
 * transition only: with API keys, a transition it shows with some of its changes hidden (they hash
 * the whole body, which the caller may not see). README "How it differs from a local store".
 */
function shownAsTransition(shown: ShownTransition): Transition {
  return shown as Transition;
}

/**
 * A write's result as the `Store` interface types it: with API keys, a `duplicate` the server
 * shows with some of its changes hidden lacks hashes and meta, as {@link shownAsTransition} says.
 */
function shownResult<R extends { status: string }>(result: { status: string }): R {
  return result as R;
}

/** States and patches are deeply frozen values, as the local store's are. */
function frozen<T>(value: T): T {
  return freeze(value, true);
}

/** A revision or seq for the query string: the server checks it (`INPUT_INVALID` for a bad one). */
function number(value: number): string {
  return typeof value === 'number' ? String(value) : JSON.stringify(value);
}

function optional(value: number | undefined): string | undefined {
  return value === undefined ? undefined : number(value);
}
